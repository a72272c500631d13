"""The 2048 board as SVG (the ``picture`` hook of :class:`mctslab.games.g2048.G2048Game`): the
4x4 tiles in the original game's colours and a status line. The moves (slides) have no spot on
the board: the web page shows them as buttons."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mctslab.games import g2048_kernels as k
from mctslab.games.picture import Picture, esc

if TYPE_CHECKING:
    from mctslab.games.base import State

#: tile colours by exponent (2 = 2**1 ... 2048 = 2**11), the original game's palette
TILE_COLOURS = (
    "#cdc1b4", "#eee4da", "#ede0c8", "#f2b179", "#f59563", "#f67c5f", "#f65e3b",
    "#edcf72", "#edcc61", "#edc850", "#edc53f", "#edc22e",
)  # fmt: skip


def draw(state: State) -> Picture:
    """The tiles (exponents, cells ``0..15`` of the kernels' state, row-major) and
    :meth:`G2048Game.status`."""
    cell, gap = 80.0, 10.0
    width = 4 * cell + 5 * gap
    height = width + 34
    exps = [int(e) for e in state.array[: k.NUM_CELLS]]
    els = [f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" rx="8" fill="#bbada0"/>']
    for i, e in enumerate(exps):
        r, c = divmod(i, 4)
        x, y = gap + c * (cell + gap), gap + r * (cell + gap)
        fill = TILE_COLOURS[e] if e < len(TILE_COLOURS) else "#3c3a32"
        els.append(
            f'<rect class="tile" data-exponent="{e}" x="{x:.0f}" y="{y:.0f}" width="{cell:.0f}" '
            f'height="{cell:.0f}" rx="5" fill="{fill}"/>'
        )
        if e:
            v = 1 << e
            fs = 34 if v < 100 else 28 if v < 1000 else 22 if v < 10000 else 17
            ink = "#776e65" if e <= 2 else "#f9f6f2"
            els.append(
                f'<text x="{x + cell / 2:.0f}" y="{y + cell / 2 + fs * 0.36:.0f}" '
                f'font-size="{fs}" font-weight="bold" text-anchor="middle" fill="{ink}">{v}</text>'
            )
    status = state.game.status(state.array)
    els.append(
        f'<text x="{gap:.0f}" y="{height - 12:.0f}" font-size="14" fill="#f9f6f2">'
        f"{esc(status)}</text>"
    )
    return Picture(width, height, els, {}, mark_last_move=False)
