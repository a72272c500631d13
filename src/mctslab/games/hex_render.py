"""The Hex board as SVG (the ``picture`` hook of :class:`mctslab.games.hex.HexGame`): a rhombus
of pointy-top hexagons, Black's edges (top and bottom) dark and White's (left and right) light,
HTP coordinates around it. The swap has no cell: the web page shows it as a button."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from mctslab.games import hex_kernels as k
from mctslab.games.coords import HEX_LETTERS
from mctslab.games.picture import STONE_FILL, Picture, esc

if TYPE_CHECKING:
    from mctslab.games.base import State


def _hex_corner(x: float, y: float, r: float, i: int) -> tuple[float, float]:
    """Corner ``i`` of a pointy-top hexagon (i=0 at 30 degrees, clockwise, y down)."""
    ang = math.radians(30 + 60 * i)
    return x + r * math.cos(ang), y + r * math.sin(ang)


def draw(state: State) -> Picture:
    """The cells of ``state`` (read through the kernels' layout), action ``row * size + col``."""
    size = state.game.params.size
    a = state.array
    r = max(12.0, min(26.0, 300.0 / size))
    w = math.sqrt(3) * r
    x0, y0 = r * 2.2, r * 2.2
    width = x0 * 2 + (size - 1) * w * 1.5
    height = y0 * 2 + (size - 1) * 1.5 * r
    els = [f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" rx="6" fill="#eee8d5"/>']
    anchors = {}
    # boundary edges of a cell (corner pairs): top (3-4, 4-5), bottom (0-1, 1-2),
    # left (1-2, 2-3), right (4-5, 5-0)
    sides = {"top": ((3, 4), (4, 5)), "bottom": ((0, 1), (1, 2))}
    sides |= {"left": ((1, 2), (2, 3)), "right": ((4, 5), (5, 0))}
    edge_colour = {"top": "#1b1b1b", "bottom": "#1b1b1b", "left": "#c8c8c0", "right": "#c8c8c0"}
    edges = []
    for row in range(size):
        for col in range(size):
            act = row * size + col
            x = x0 + col * w + row * w / 2
            y = y0 + row * 1.5 * r
            anchors[act] = (x, y, r * 0.9)
            colour = int(a[k.B + act])
            fill = {k.BLACK: STONE_FILL[0], k.WHITE: STONE_FILL[1]}.get(colour, "#d9c89e")
            pts = " ".join(
                f"{px:.1f},{py:.1f}" for px, py in (_hex_corner(x, y, r, i) for i in range(6))
            )
            cls = "cell stone" if colour in (k.BLACK, k.WHITE) else "cell"
            els.append(
                f'<polygon class="{cls} target" data-action="{act}" data-colour="{colour}" '
                f'points="{pts}" fill="{fill}" stroke="#7a6a4a" stroke-width="1">'
                f"<title>{esc(state.action_to_string(act, 0))}</title></polygon>"
            )
            for side, hit in (
                ("top", row == 0),
                ("bottom", row == size - 1),
                ("left", col == 0),
                ("right", col == size - 1),
            ):
                if hit:
                    for i, j in sides[side]:
                        (ax, ay), (bx, by) = _hex_corner(x, y, r, i), _hex_corner(x, y, r, j)
                        edges.append(
                            f'<line x1="{ax:.1f}" y1="{ay:.1f}" x2="{bx:.1f}" y2="{by:.1f}" '
                            f'stroke="{edge_colour[side]}" stroke-width="{r * 0.3:.1f}" '
                            'stroke-linecap="round" pointer-events="none"/>'
                        )
    els += edges
    fs = r * 0.6
    for i in range(size):
        x, y, _ = anchors[i]
        els.append(
            f'<text x="{x:.1f}" y="{y - r * 1.6:.1f}" font-size="{fs:.1f}" '
            f'text-anchor="middle" fill="#444">{HEX_LETTERS[i]}</text>'
        )
        x, y, _ = anchors[i * size]
        els.append(
            f'<text x="{x - w * 0.95:.1f}" y="{y + fs * 0.35:.1f}" font-size="{fs:.1f}" '
            f'text-anchor="end" fill="#444">{i + 1}</text>'
        )
    return Picture(width, height, els, anchors)
