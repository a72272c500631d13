"""SVG board pictures: the primitives each game's renderer draws with, and the generic picture.

A game draws its states through the optional ``picture`` hook of :class:`mctslab.games.base.Game`
(declared in :mod:`mctslab.games.contract`), usually in a ``<game>_render.py`` module beside its
kernels. The hook returns a :class:`Picture`: the SVG elements, its size, and ``anchors``, the
centre and radius of the spot on the board that stands for each action it draws. Elements the
user may click carry ``data-action`` (the web page sends that action; the server decides whether
it is legal). A game without the hook (or whose hook returns None) is drawn generically: as a
Go-like grid when it has the ``board`` hook, else as its text picture (``str(state)`` shown, not
parsed), so a newly registered game is shown at once and looks better once it has a renderer.

:func:`svg_document` wraps a picture into the SVG document (with the last move circled); the
search overlay on top (heat map, principal variation) is the interface layer's
(:mod:`mctslab.interfaces.render`), the same for every game.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from mctslab.games.coords import GO_LETTERS

if TYPE_CHECKING:
    from collections.abc import Iterable

    from mctslab.games.base import State

#: colours of the two players' stones (Black, White) and their outlines
STONE_FILL = ("#1b1b1b", "#f4f4f0")
STONE_EDGE = ("#000000", "#5a5a5a")


@dataclass
class Picture:
    """A board picture before the overlay: ``elements`` are SVG fragments in drawing order."""

    width: float
    height: float
    elements: list[str] = field(default_factory=list)
    #: action -> (x, y, r): where the overlay marks the action, and how big it may be
    anchors: dict[int, tuple[float, float, float]] = field(default_factory=dict)
    #: whether the last action of the history is a spot to circle (not for Nim, whose action
    #: numbers are amounts, nor where a chance event came last)
    mark_last_move: bool = True


def esc(text: object) -> str:
    """``text`` escaped for SVG text and attribute values."""
    return html.escape(str(text), quote=True)


def picture_of(state: State) -> Picture:
    """The picture of a state: its game's ``picture`` hook, else :func:`generic_picture`."""
    pic = state.game.picture(state)
    return pic if pic is not None else generic_picture(state)


def svg_document(
    state: State, pic: Picture, overlay: Iterable[str] = (), *, last_move: bool = True
) -> str:
    """The whole SVG document of a picture of ``state``: its elements, the last move circled
    (when the picture allows and ``last_move``), then the ``overlay`` elements."""
    parts = list(pic.elements)
    if last_move and pic.mark_last_move and state.history:
        last = state.history[-1]
        if last in pic.anchors:
            x, y, r = pic.anchors[last]
            parts.append(
                f'<circle class="last-move" cx="{x:.1f}" cy="{y:.1f}" r="{r * 0.28:.1f}" '
                'fill="none" stroke="#d0312d" stroke-width="2.5" pointer-events="none"/>'
            )
    parts += overlay
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="board" width="{pic.width:.0f}" '
        f'height="{pic.height:.0f}" viewBox="0 0 {pic.width:.0f} {pic.height:.0f}" '
        f'data-game="{esc(state.game.NAME)}" font-family="sans-serif">' + "".join(parts) + "</svg>"
    )


def state_svg(state: State) -> str:
    """The SVG document of a state without a search overlay (``State._repr_svg_``)."""
    return svg_document(state, picture_of(state))


# -- Go-like grids ------------------------------------------------------------------------------


def star_points(size: int) -> list[tuple[int, int]]:
    """The (row, column) of the star points of a Go board."""
    if size < 7:
        return []
    edge = 2 if size < 12 else 3
    lines = [edge, size - 1 - edge]
    if size % 2 == 1 and size >= 9:
        lines.insert(1, size // 2)
    pts = [(r, c) for r in lines for c in lines]
    if size % 2 == 1 and size < 9:
        pts.append((size // 2, size // 2))
    return pts


def go_picture(state: State, board: np.ndarray) -> Picture:
    """A Go board (GTP coordinates, ``A1`` bottom left) with the stones of ``board`` (``size`` x
    ``size``, 0 empty, 1 Black, 2 White, row 0 at the top); action ``row * size + column``."""
    size = board.shape[0]
    cell = max(24.0, min(44.0, 520.0 / size))
    margin = cell * 1.1
    width = height = 2 * margin + (size - 1) * cell
    els = [
        f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" rx="6" fill="#dcb35c"/>',
        '<defs><radialGradient id="gs0" cx="35%" cy="35%"><stop offset="0%" stop-color="#666"/>'
        '<stop offset="100%" stop-color="#111"/></radialGradient>'
        '<radialGradient id="gs1" cx="35%" cy="35%"><stop offset="0%" stop-color="#fff"/>'
        '<stop offset="100%" stop-color="#d8d8d0"/></radialGradient></defs>',
    ]
    lo, hi = margin, margin + (size - 1) * cell
    for i in range(size):
        p = margin + i * cell
        els.append(f'<line x1="{lo:.1f}" y1="{p:.1f}" x2="{hi:.1f}" y2="{p:.1f}" stroke="#333"/>')
        els.append(f'<line x1="{p:.1f}" y1="{lo:.1f}" x2="{p:.1f}" y2="{hi:.1f}" stroke="#333"/>')
        fs = cell * 0.38
        for y in (margin * 0.45, height - margin * 0.3):
            els.append(
                f'<text x="{p:.1f}" y="{y:.1f}" font-size="{fs:.1f}" text-anchor="middle" '
                f'fill="#3b2a10">{GO_LETTERS[i]}</text>'
            )
        for x in (margin * 0.4, width - margin * 0.4):
            els.append(
                f'<text x="{x:.1f}" y="{p + fs * 0.35:.1f}" font-size="{fs:.1f}" '
                f'text-anchor="middle" fill="#3b2a10">{size - i}</text>'
            )
    for r, c in star_points(size):
        els.append(
            f'<circle cx="{margin + c * cell:.1f}" cy="{margin + r * cell:.1f}" '
            f'r="{cell * 0.09:.1f}" fill="#333"/>'
        )
    anchors = {}
    rad = cell * 0.47
    for r in range(size):
        for c in range(size):
            a = r * size + c
            x, y = margin + c * cell, margin + r * cell
            anchors[a] = (x, y, rad)
            colour = int(board[r, c])
            if colour in (1, 2):
                els.append(
                    f'<circle class="stone" data-colour="{colour}" cx="{x:.1f}" cy="{y:.1f}" '
                    f'r="{rad:.1f}" fill="url(#gs{colour - 1})" stroke="{STONE_EDGE[colour - 1]}"/>'
                )
            els.append(
                f'<rect class="target" data-action="{a}" x="{x - cell / 2:.1f}" '
                f'y="{y - cell / 2:.1f}" width="{cell:.1f}" height="{cell:.1f}" fill="transparent">'
                f"<title>{esc(state.action_to_string(a, 0))}</title></rect>"
            )
    return Picture(width, height, els, anchors)


# -- anything else ------------------------------------------------------------------------------


def board_of(state: State) -> np.ndarray | None:
    """The game's ``board`` hook of the state when it is a square array of 0 (empty), 1 and 2
    (the two players' stones), else None."""
    board_fn = getattr(state.game, "board", None)
    if not callable(board_fn):
        return None
    b = np.asarray(board_fn(state.array))
    if b.ndim != 2 or b.shape[0] != b.shape[1] or b.size == 0:
        return None
    if int(b.max(initial=0)) > 2 or int(b.min(initial=0)) < 0:
        return None
    return b


def generic_picture(state: State) -> Picture:
    """A Go-like grid for a game with a ``board`` hook of stones (:func:`board_of`), else the
    text picture."""
    board = board_of(state)
    if board is not None:
        return go_picture(state, board)
    return text_picture(state)


def text_picture(state: State) -> Picture:
    """The game's own ASCII picture (``str(state)``) as monospaced SVG text."""
    lines = str(state).splitlines() or [""]
    width = 20 + 9.6 * max(len(line) for line in lines)
    height = 20 + 20 * len(lines)
    els = [f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" rx="6" fill="#f7f7f7"/>']
    els.append('<text font-family="monospace" font-size="16" fill="#222" xml:space="preserve">')
    for i, line in enumerate(lines):
        els.append(f'<tspan x="10" y="{26 + 20 * i}">{esc(line)}</tspan>')
    els.append("</text>")
    return Picture(width, height, els, {})
