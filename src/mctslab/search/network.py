"""The greedy player of a trained 2048 n-tuple network (the ``network`` agent): from ``s`` the
move maximising ``r(s, a) + V(after(s, a))``, ``V`` the network of
:mod:`mctslab.games.g2048_ntuple` (Szubert and Jaśkowski 2014). No search: the baseline that
shows what the network alone is worth, next to MDP MCTS with ``leaf=network``."""

from __future__ import annotations

import time

import numpy as np

from mctslab.errors import MctslabError
from mctslab.games import g2048_kernels as k
from mctslab.games.base import Game, State
from mctslab.search.result import SearchResult


class NetworkPlayer:
    """One-ply play by a network's afterstate values."""

    def __init__(self, game: Game, path: str | None):
        if not hasattr(game, "load_network"):
            raise MctslabError(f"agent network plays 2048 only, not {game.spec.spec_string}")
        self.game = game
        self.w, self.fs = game.load_network(path)

    def search(self, state: State) -> SearchResult:
        start = time.perf_counter()
        moves = state.legal_actions()
        if not moves:
            raise MctslabError("search needs a position with a player to move")
        b, ok = k.pack(state.array)
        values = []
        for a in moves:
            nb, r = k.board_move(self.game.consts, np.uint64(b), a) if ok else (0, -1)
            if r < 0:  # a tile beyond the bitboard: the merge reward alone
                after = state.clone()
                before = float(after.returns()[0])
                after.apply_action(a)
                values.append(float(after.returns()[0]) - before)
            else:
                values.append(r + k.network_afterstate_value(self.w, self.fs, np.uint64(nb)))
        best = int(np.argmax(values))
        return SearchResult(
            action=moves[best],
            actions=moves,
            values=values,
            visits=[0 for _ in moves],
            pv=[moves[best]],
            simulations=len(moves),
            elapsed=time.perf_counter() - start,
        )
