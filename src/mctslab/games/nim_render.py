"""The Nim heap as SVG (the ``picture`` hook of :class:`mctslab.games.nim.NimGame`): a row of
counters; clicking a counter takes it and every counter to its right."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from mctslab.games.picture import Picture, esc

if TYPE_CHECKING:
    from mctslab.games.base import State

#: counters drawn at most; a larger heap is drawn as a number and its last counters
NIM_SHOWN = 60


def draw(state: State) -> Picture:
    """The counters left (:meth:`NimGame.counters`) and the status line (:meth:`NimGame.status`);
    action ``take - 1`` is anchored at the counter that takes ``take``."""
    game = state.game
    counters = game.counters(state.array)
    per_row, d = 15, 34.0
    shown = min(counters, NIM_SHOWN)
    hidden = counters - shown
    rows = max(1, math.ceil(shown / per_row))
    top = 30.0
    width = d * per_row + 20
    height = top + rows * d + 36
    els = [f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" rx="6" fill="#f3efe4"/>']
    label = f"{counters} counters" + (f" ({hidden} not drawn)" if hidden else "")
    els.append(f'<text x="10" y="20" font-size="14" fill="#333">{esc(label)}</text>')
    anchors = {}
    for i in range(shown):
        take = shown - i  # clicking this counter takes it and every counter to its right
        row, col = divmod(i, per_row)
        x, y = 10 + d / 2 + col * d, top + d / 2 + row * d
        act = take - 1
        anchors[act] = (x, y, d * 0.45)
        els.append(
            f'<circle class="counter target" data-action="{act}" cx="{x:.1f}" cy="{y:.1f}" '
            f'r="{d * 0.36:.1f}" fill="#b5651d" stroke="#5c3310">'
            f"<title>take {take}</title></circle>"
        )
    status = game.status(state.array)
    els.append(
        f'<text x="10" y="{height - 12:.0f}" font-size="13" fill="#333">{esc(status)}</text>'
    )
    return Picture(width, height, els, anchors, mark_last_move=False)
