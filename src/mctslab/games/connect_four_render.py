"""The Connect Four board as SVG (the ``picture`` hook of
:class:`mctslab.games.connect_four.ConnectFour`): a blue frame with a hole per cell, the discs, and
a click target per column, anchored at the hole where that column's next disc would land."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mctslab.games.picture import STONE_EDGE, Picture, esc

if TYPE_CHECKING:
    from mctslab.games.base import State

#: the first and second player's discs
DISC_FILL = ("#e8c21a", "#c8312c")


def draw(state: State) -> Picture:
    """The discs of :meth:`ConnectFour.cells` (row 0 at the bottom) and the status line."""
    game = state.game
    cells = game.cells(state.array)
    rows, cols = cells.shape
    d, top = 46.0, 10.0
    width, height = cols * d + 20, top + rows * d + 34
    els = [
        f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" rx="6" fill="#f3efe4"/>',
        f'<rect x="10" y="{top:.0f}" width="{cols * d:.0f}" height="{rows * d:.0f}" rx="8" '
        'fill="#2456a6"/>',
    ]
    anchors = {}
    for c in range(cols):
        x = 10 + d / 2 + c * d
        filled = int((cells[:, c] > 0).sum())
        for r in range(rows):
            y = top + d / 2 + (rows - 1 - r) * d
            v = int(cells[r, c])
            fill = DISC_FILL[v - 1] if v else "#f3efe4"
            edge = STONE_EDGE[v - 1] if v else "#1b3f7a"
            els.append(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{d * 0.4:.1f}" fill="{fill}" '
                f'stroke="{edge}"/>'
            )
        if filled < rows:
            anchors[c] = (x, top + d / 2 + (rows - 1 - filled) * d, d * 0.45)
        els.append(
            f'<rect class="target" data-action="{c}" x="{x - d / 2:.1f}" y="{top:.0f}" '
            f'width="{d:.0f}" height="{rows * d:.0f}" fill="transparent">'
            f"<title>column {c + 1}</title></rect>"
        )
    status = str(state).splitlines()[-1]
    els.append(
        f'<text x="10" y="{height - 10:.0f}" font-size="13" fill="#333">{esc(status)}</text>'
    )
    return Picture(width, height, els, anchors, mark_last_move=False)
