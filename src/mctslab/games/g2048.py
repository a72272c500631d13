"""2048 (Kochenderfer, Wheeler and Wray, *Algorithms for Decision Making*, the worked MCTS example
of section 9.6): a single-player MDP with chance.

Rules and the state layout are in :mod:`mctslab.games.g2048_kernels`. The spec name is ``2048``
(module names cannot start with a digit, spec names can). The return is the score: the sum of the
tiles made by merging.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pydantic

from mctslab.errors import IllegalMoveError, SpecError
from mctslab.games import g2048_kernels as k
from mctslab.games import g2048_ntuple, g2048_render
from mctslab.games.base import Game, State
from mctslab.games.picture import Picture
from mctslab.games.registry import register
from mctslab.games.symmetry import Symmetry, identity

#: accepted move words (the first of each is the canonical one)
MOVE_WORDS = {
    "left": 0,
    "l": 0,
    "down": 1,
    "d": 1,
    "right": 2,
    "r": 2,
    "up": 3,
    "u": 3,
}


class G2048Params(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", frozen=True)


@register
class G2048Game(Game):
    NAME = "2048"
    DESCRIPTION = "2048 on 4x4: slide and merge tiles; a 2 (p=0.9) or 4 appears after each move"
    Params = G2048Params
    kernels = k
    #: the rollout policies of :func:`g2048_kernels.policy_playout` (see ``pick_move`` there)
    ROLLOUT_POLICIES: ClassVar[dict[str, int]] = {
        "greedy": k.ROLLOUT_GREEDY,
        "corner": k.ROLLOUT_CORNER,
        "greedy_corner": k.ROLLOUT_GREEDY_CORNER,
        "heuristic": k.ROLLOUT_HEURISTIC,
    }
    #: depth-limited expectimax and the greedy n-tuple network player
    AGENTS = ("mctslab.agents.g2048:ExpectimaxAgent", "mctslab.agents.g2048:NetworkAgent")
    #: MDP MCTS with the n-tuple network's leaf values at the 1,000 simulations it was measured
    #: with (2048 reached in 196 of 200 games, docs/chance-and-mdp.md); ``best`` caps it by time
    BEST_AGENT = "mdp(d=2,c=200,leaf=network,sims=1000)"

    def _build(self, p: G2048Params):
        spec = self._spec(
            num_players=1,
            num_distinct_actions=k.NUM_ACTIONS,
            num_chance_outcomes=k.NUM_CHANCE,
            min_utility=0.0,
            # score <= sum over merges of the tile made; a tile 2**e is made at most once per
            # 2**e of tiles spawned, and the board never holds more than 16 * 2**17: a loose bound
            max_utility=float(2**25),
            utility_sum=None,
            # every move spawns a tile (+2 or +4 to the tile sum), which stays below 16 * 2**17
            max_game_length=2 + 2 * (16 * 2**17 // 2),
            state_size=k.STATE_SIZE,
        )
        return _consts(), spec

    def action_to_string(self, player: int, action: int) -> str:
        return k.ACTION_NAMES[action]

    def string_to_action(self, player: int, text: str) -> int:
        t = text.strip().lower()
        if t not in MOVE_WORDS:
            raise IllegalMoveError(
                f"a 2048 move is left, down, right or up (or l/d/r/u), got {t!r}"
            )
        return MOVE_WORDS[t]

    def chance_outcome_to_string(self, outcome: int) -> str:
        cell, four = divmod(outcome, 2)
        return f"{4 if four else 2}@r{cell // 4 + 1}c{cell % 4 + 1}"

    def status(self, state: np.ndarray) -> str:
        """The score, the largest tile and whether the game is over, a tile is to appear or the
        player is to move (the last line of :meth:`render`)."""
        score, spawns, over = (int(state[i]) for i in (k.S_SCORE, k.S_SPAWNS, k.S_OVER))
        status = "game over" if over else ("tile to appear" if spawns else "to move")
        return f"score {score}, max tile {max_tile(state)}, {status}"

    def picture(self, state: State) -> Picture:
        """The tiles as SVG (:func:`mctslab.games.g2048_render.draw`)."""
        return g2048_render.draw(state)

    def render(self, state: np.ndarray) -> str:
        rows = []
        for r in range(4):
            cells = [int(e) for e in state[4 * r : 4 * r + 4]]
            rows.append(" ".join(f"{(1 << e) if e else '.':>6}" for e in cells))
        return "\n".join(rows) + "\n" + self.status(state)

    def observation(self, state: np.ndarray) -> np.ndarray:
        """Planes ``[18, 4, 4]``: plane ``e`` is one where the tile is ``2**e`` (plane 0 where
        the cell is empty)."""
        exps = np.asarray(state[: k.NUM_CELLS], dtype=np.int64).reshape(4, 4)
        return (exps[None] == np.arange(18)[:, None, None]).astype(np.float32)

    def symmetries(self) -> tuple[Symmetry, ...]:
        """The identity only: the board's rotations and reflections would have to map the chance
        outcomes (where a tile appears) too, which the contract does not declare yet."""
        return identity(k.NUM_CELLS, k.NUM_ACTIONS)

    def load_network(self, path: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The trained n-tuple network's weights (``path``, default the file ``mctslab train
        2048`` writes, else the shipped one: :func:`g2048_ntuple.load`) and feature offsets, for
        :func:`g2048_kernels.network_value`."""
        return g2048_ntuple.load(path), g2048_ntuple.feature_shifts()

    def state_from_board(self, text: str, score: int = 0) -> State:
        """A decision state from an ASCII board: 4 rows of 4 tiles (numbers, ``.`` or ``0`` empty).

        >>> load_game("2048").state_from_board("2 . . 2 / . . . . / . . . . / . . . 4")
        """
        rows = [r.split() for r in text.replace("/", "\n").strip().splitlines() if r.strip()]
        if len(rows) != 4 or any(len(r) != 4 for r in rows):
            raise SpecError(f"a 2048 board is 4 rows of 4 tiles, got {rows}")
        a = np.zeros(k.STATE_SIZE, dtype=k.STATE_DTYPE)
        for i, word in enumerate(w for r in rows for w in r):
            v = 0 if word in (".", "0") else int(word)
            if v and (v < 2 or v & (v - 1)):
                raise SpecError(f"a 2048 tile is a power of two >= 2, got {word!r}")
            a[i] = v.bit_length() - 1 if v else 0
        a[k.S_SCORE] = score
        if not k.any_move(self.consts, a):
            a[k.S_OVER] = 1
        return State(self, a)


def max_tile(state: np.ndarray) -> int:
    """The largest tile on the board (0 when empty)."""
    e = int(np.max(state[: k.NUM_CELLS]))
    return 1 << e if e else 0


_CONSTS: np.ndarray | None = None


def _consts() -> np.ndarray:
    """The move tables, built once per process (about 10 ms compiled)."""
    global _CONSTS
    if _CONSTS is None:
        _CONSTS = k.make_consts()
    return _CONSTS
