"""Dead stones by playout ownership, for GTP's ``final_status_list`` and ``final_score`` (and any
caller that must judge the end of a Go game: pass and resign logic).

The method is Fuego's and Pachi's ownership-based status (Pachi, ``ownermap.c``: a point's owner
over many playouts; Enzenberger, Müller et al., "Fuego", IEEE TCIAIG 2010, section on GTP
``final_status_list``): from the position as it stands, with the same stones and player to move
(:func:`mctslab.games.stones.setup_state`, so a finished game is played on), run
:data:`PLAYOUTS` of the self-atari-avoiding Go-style playout
(:func:`mctslab.games.go_playouts.safe_go_playout`: captures, atari escapes, MoGo's 3x3 patterns,
no self-ataris) and record who owns each point of the final position:
a stone's colour, or for an empty point the one colour among its neighbours (in a playout's
final position every empty point is an eye or a point neither side may fill, so its neighbours
name the owner), none when they disagree. ``share[c, a]`` is the fraction of playouts in which
colour ``c`` (0 neither, 1 Black, 2 White) owns point ``a``.

A group's status averages the shares over its stones: **dead** when the opponent owns its points
in more than half of the playouts; **seki** when, not dead, its liberties (the empty points next
to it) are owned by neither side in more than half (a seki's shared liberties stay empty, since
filling one is self-atari, while dame and territory get filled or owned); else **alive**. This is
why the playout must avoid self-ataris: the plain Go-style playout
(:func:`~mctslab.games.go_playouts.go_style_playout`) fills a shared liberty and breaks the seki.
On a 7x7 corner seki (two 6- and 8-stone groups sharing two liberties) it owned the shared
liberties in every playout and called White's 8-stone group dead; the self-atari-avoiding playout
keeps them neutral (``tests/test_gtp_extensions.py``). GNU Go reads sekis tactically.

:func:`final_score` removes the dead stones and counts the rest by area (Tromp-Taylor: stones
plus empty regions that reach only one colour) less komi: the score of a game played to the end
as a human referee, GNU Go or KGS count it. The playouts are seeded (:data:`SEED`), so the same
position always gets the same verdict.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit
from scipy import ndimage

from mctslab.games import go_kernels as _K
from mctslab.games.base import Game, State
from mctslab.games.go_playouts import safe_go_playout
from mctslab.games.stones import setup_state
from mctslab.kernels.rng import seed_state

#: playouts per estimate ("a few hundred": Pachi judges after 500 (GJ_MINGAMES); 300 keep
#: a 9x9 estimate near 0.1 s)
PLAYOUTS = 300
#: seed of the playouts' generator (any fixed value: the verdict is reproducible)
SEED = 20261124
#: the statuses of GTP's ``final_status_list``
STATUSES = ("alive", "dead", "seki")


@njit(cache=True)
def point_owners(consts, state, out):
    """``out[action]``: 1 Black or 2 White for a stone or an empty point whose on-board
    neighbours are stones of that one colour, else 0 (see the module doc)."""
    n = consts[_K.C_N]
    w = np.int64(consts[_K.C_W])
    for a in range(n):
        p = consts[_K.C_TABLES + a]
        v = state[_K.HEADER + p]
        if v != _K.EMPTY:
            out[a] = v
            continue
        seen = 0
        for d in (-1, 1, -w, w):
            u = state[_K.HEADER + p + d]
            if u == _K.BLACK or u == _K.WHITE:
                seen |= u
        out[a] = seen if seen != 3 else 0


@njit(cache=True)
def ownership_counts(consts, start, playouts, rng, counts):
    """Play ``playouts`` self-atari-avoiding Go-style playouts from ``start`` and add each
    final position's :func:`point_owners` to ``counts[owner, action]``; returns the generator's
    state."""
    n = consts[_K.C_N]
    work = start.copy()
    moves = np.empty(2 * consts[_K.C_MAX_LEN] + 2, dtype=np.int64)
    ret = np.empty(2, dtype=np.float64)
    owners = np.empty(n, dtype=np.int64)
    for _ in range(playouts):
        work[:] = start
        _, rng = safe_go_playout(consts, work, rng, moves, ret)
        point_owners(consts, work, owners)
        for a in range(n):
            counts[owners[a], a] += 1
    return rng


def ownership(game: Game, state: State, playouts: int = PLAYOUTS) -> np.ndarray:
    """``share[c, action]`` of the module doc, shape ``(3, size * size)``."""
    colours = game.board(state.array).reshape(-1)
    to_move = int(state.array[_K.S_TO_MOVE])
    start = setup_state(game, colours, to_move).array
    counts = np.zeros((3, colours.size), dtype=np.int64)
    ownership_counts(game.consts, start, playouts, seed_state(SEED), counts)
    return counts / float(playouts)


@dataclass(frozen=True)
class Group:
    """A group of stones: its colour (1 Black, 2 White), its points (actions, ascending) and its
    status (one of :data:`STATUSES`)."""

    colour: int
    points: tuple[int, ...]
    status: str


def groups(game: Game, state: State, playouts: int = PLAYOUTS) -> list[Group]:
    """Every group on the board with its status (module doc), in board order."""
    return judge(game.board(state.array), ownership(game, state, playouts))


def judge(board: np.ndarray, share: np.ndarray) -> list[Group]:
    """The groups of ``board`` (a square array, 0 empty, 1 Black, 2 White) judged by the
    ownership ``share`` (shape ``(3, points)``) as the module doc says, in board order."""
    cross = ndimage.generate_binary_structure(2, 1)  # 4-connected, as Go groups and liberties
    empty = (board == 0).reshape(-1)
    out: list[tuple[int, Group]] = []
    for colour in (1, 2):
        labels, count = ndimage.label(board == colour, structure=cross)
        for k in range(1, count + 1):
            stones = labels == k
            points = np.flatnonzero(stones.reshape(-1))
            liberties = np.flatnonzero(ndimage.binary_dilation(stones, cross).reshape(-1) & empty)
            if share[3 - colour, points].mean() > 0.5:
                status = "dead"
            elif liberties.size and share[0, liberties].mean() > 0.5:
                status = "seki"
            else:
                status = "alive"
            group = Group(colour, tuple(int(a) for a in points), status)
            out.append((int(points[0]), group))
    return [g for _, g in sorted(out, key=lambda item: item[0])]


def final_score(game: Game, state: State, playouts: int = PLAYOUTS) -> float:
    """Black's area minus White's minus komi once the dead stones are removed (module doc)."""
    colours = game.board(state.array).reshape(-1).copy()
    for group in groups(game, state, playouts):
        if group.status == "dead":
            colours[list(group.points)] = 0
    cleaned = setup_state(game, colours, int(state.array[_K.S_TO_MOVE]))
    return game.score(cleaned.array)
