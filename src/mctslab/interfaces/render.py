"""SVG pictures of game states, with a search's statistics drawn over the board.

One implementation serves the web UI (:mod:`mctslab.interfaces.web`), Jupyter (``State._repr_svg_``,
:class:`SearchView`) and the tests. Each game has a *board renderer*, found by the game's name in a
registry (:func:`register_renderer`); a game without one is drawn generically (a Go-like grid when
the game has a ``size`` parameter and a ``board()`` method or an ASCII grid, else its text), so a
newly registered game is shown at once and looks better once it has a renderer.

A board renderer draws the position and returns a :class:`Picture`: the SVG elements, its size, and
``anchors``, the centre and radius of the spot on the board that stands for each action it draws.
Elements the user may click carry ``data-action`` (the web page sends that action; the server
decides whether it is legal). The overlay (visit counts and win rates as a heat map, the principal
variation as numbered marks, the last move) is drawn by :func:`state_svg` at those anchors, the
same way for every game. Actions that have no anchor (pass, swap, 2048's slides) are for the page
to show as buttons (:func:`off_board_actions`).
"""

from __future__ import annotations

import colorsys
import html
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from mctslab.games.base import State
from mctslab.games.coords import GO_LETTERS, HEX_LETTERS

#: colours of the two players' stones (Black, White) and their outlines
STONE_FILL = ("#1b1b1b", "#f4f4f0")
STONE_EDGE = ("#000000", "#5a5a5a")
#: how many principal-variation moves are numbered on the board
PV_SHOWN = 6


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


Renderer = Callable[[State], Picture]
_RENDERERS: dict[str, Renderer] = {}


def register_renderer(*names: str) -> Callable[[Renderer], Renderer]:
    """Decorator: draw the games with these registry names (``Game.NAME``) with this function."""

    def deco(fn: Renderer) -> Renderer:
        for name in names:
            _RENDERERS[name.lower()] = fn
        return fn

    return deco


def renderer_for(state: State) -> Renderer:
    """The registered renderer of the state's game, else the generic one."""
    return _RENDERERS.get(state.game.NAME.lower(), _generic)


@dataclass
class Overlay:
    """Per-action search statistics to draw over the board (from a :class:`SearchResult`)."""

    visits: dict[int, int] = field(default_factory=dict)
    values: dict[int, float] = field(default_factory=dict)
    pv: list[int] = field(default_factory=list)
    chosen: int | None = None

    @classmethod
    def from_result(cls, result) -> Overlay:
        """From anything with ``actions``, ``visits``, ``values``, ``pv`` and ``action``."""
        return cls(
            visits={int(a): int(v) for a, v in zip(result.actions, result.visits, strict=False)},
            values={int(a): float(q) for a, q in zip(result.actions, result.values, strict=False)},
            pv=[int(a) for a in result.pv],
            chosen=int(result.action) if result.action is not None else None,
        )


def heat_colour(value: float) -> str:
    """``#rrggbb`` from red (0, a sure loss for the mover) through yellow to green (1, a sure
    win); hex, not ``hsl()``, so that graphviz takes it too (:mod:`mctslab.interfaces.treeviz`)."""
    v = min(1.0, max(0.0, float(value)))
    red, green, blue = colorsys.hls_to_rgb(v / 3.0, 0.45, 0.8)
    return f"#{round(255 * red):02x}{round(255 * green):02x}{round(255 * blue):02x}"


def state_svg(state: State, overlay: Overlay | None = None, *, last_move: bool = True) -> str:
    """The whole SVG document of a state, with an optional search overlay."""
    pic = renderer_for(state)(state)
    parts = list(pic.elements)
    if last_move and pic.mark_last_move and state.history:
        last = state.history[-1]
        if last in pic.anchors:
            x, y, r = pic.anchors[last]
            parts.append(
                f'<circle class="last-move" cx="{x:.1f}" cy="{y:.1f}" r="{r * 0.28:.1f}" '
                'fill="none" stroke="#d0312d" stroke-width="2.5" pointer-events="none"/>'
            )
    if overlay is not None:
        parts += _heat(state, pic, overlay)
        parts += _pv(state, pic, overlay)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="board" width="{pic.width:.0f}" '
        f'height="{pic.height:.0f}" viewBox="0 0 {pic.width:.0f} {pic.height:.0f}" '
        f'data-game="{_esc(state.game.NAME)}" font-family="sans-serif">' + "".join(parts) + "</svg>"
    )


def off_board_actions(state: State) -> list[int]:
    """Legal actions the board picture has no spot for (shown as buttons)."""
    anchors = renderer_for(state)(state).anchors
    return [a for a in state.legal_actions() if a not in anchors]


def _heat(state: State, pic: Picture, ov: Overlay) -> list[str]:
    top = max(ov.visits.values(), default=0)
    if top <= 0:
        return []
    out = []
    # a move that cannot be played now (the search was of the position before the last move,
    # which is played there) is drawn as a ring, so that the stone stays visible
    legal = set(state.legal_actions())
    for a, n in sorted(ov.visits.items(), key=lambda kv: kv[1]):
        if a not in pic.anchors or n <= 0:
            continue
        x, y, r = pic.anchors[a]
        q = ov.values.get(a, 0.0)
        share = math.sqrt(n / top)
        rr = r * (0.3 + 0.6 * share)
        move = _esc(state.action_to_string(a))
        if a in legal:
            chosen = ' stroke="#0b3d91" stroke-width="2.5"' if a == ov.chosen else ""
            paint = f'fill="{heat_colour(q)}" fill-opacity="{0.45 + 0.4 * share:.2f}"{chosen}'
        else:
            rr = r * 1.02
            paint = f'fill="none" stroke="{heat_colour(q)}" stroke-width="{max(2.0, r * 0.16):.1f}"'
        out.append(
            f'<g class="heat" data-action="{a}" data-visits="{n}" data-value="{q:.4f}">'
            f"<title>{move}: {n} visits, win rate {100 * q:.1f}%</title>"
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{rr:.1f}" {paint}/>'
        )
        if r >= 11 and share >= 0.25 and a in legal:
            out.append(
                f'<text x="{x:.1f}" y="{y + r * 0.16:.1f}" font-size="{r * 0.5:.1f}" '
                f'text-anchor="middle" fill="#111" pointer-events="none">{round(100 * q)}</text>'
            )
        out.append("</g>")
    return out


def _pv(state: State, pic: Picture, ov: Overlay) -> list[str]:
    out = []
    player = max(state.current_player(), 0)
    players = state.game.num_players()
    for i, a in enumerate(ov.pv[:PV_SHOWN]):
        who = (player + i) % max(players, 1) % 2
        if a not in pic.anchors:
            continue
        x, y, r = pic.anchors[a]
        dx = r * 0.55  # to the upper right of the spot, so the heat value stays readable
        out.append(
            f'<g class="pv" data-action="{a}" pointer-events="none">'
            f'<circle cx="{x + dx:.1f}" cy="{y - dx:.1f}" r="{r * 0.38:.1f}" '
            f'fill="{STONE_FILL[who]}" stroke="{STONE_EDGE[who]}" fill-opacity="0.9"/>'
            f'<text x="{x + dx:.1f}" y="{y - dx + r * 0.14:.1f}" font-size="{r * 0.45:.1f}" '
            f'text-anchor="middle" fill="{STONE_FILL[1 - who]}">{i + 1}</text></g>'
        )
    return out


def _esc(text: object) -> str:
    return html.escape(str(text), quote=True)


# -- Go and NoGo --------------------------------------------------------------------------------


def _grid_from_ascii(text: str, size: int) -> np.ndarray | None:
    """A ``size`` x ``size`` board (0 empty, 1 X/Black, 2 O/White) from an ASCII picture: the
    lines that, without spaces and digits, are ``size`` marks from ``.+XO``; None if there are
    not ``size`` such lines (the game draws its board differently)."""
    marks = {".": 0, "+": 0, "X": 1, "O": 2}
    rows = []
    for line in text.splitlines():
        s = "".join(ch for ch in line if not ch.isspace() and not ch.isdigit())
        if len(s) == size and set(s) <= set(marks):
            rows.append([marks[ch] for ch in s])
    return np.array(rows, dtype=np.int64) if len(rows) == size else None


def _board_of(state: State) -> np.ndarray | None:
    game = state.game
    size = getattr(game.params, "size", None)
    if not isinstance(size, int):
        return None
    if hasattr(game, "board"):
        b = np.asarray(game.board(state.array))
        if b.shape == (size, size):
            return b
    return _grid_from_ascii(str(state), size)


def _star_points(size: int) -> list[tuple[int, int]]:
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
    """A Go board (GTP coordinates, ``A1`` bottom left) with the stones of ``board``."""
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
    for r, c in _star_points(size):
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
                f"<title>{_esc(state.action_to_string(a, 0))}</title></rect>"
            )
    return Picture(width, height, els, anchors)


@register_renderer("nogo", "go")
def _go_like(state: State) -> Picture:
    board = _board_of(state)
    if board is None:
        return _generic_text(state)
    return go_picture(state, board)


# -- Hex ----------------------------------------------------------------------------------------


def _hex_corner(x: float, y: float, r: float, k: int) -> tuple[float, float]:
    """Corner ``k`` of a pointy-top hexagon (k=0 at 30 degrees, clockwise, y down)."""
    ang = math.radians(30 + 60 * k)
    return x + r * math.cos(ang), y + r * math.sin(ang)


@register_renderer("hex")
def _hex(state: State) -> Picture:
    from mctslab.games import hex_kernels as k

    size = state.game.params.size
    a = state.array
    r = max(12.0, min(26.0, 300.0 / size))
    w = math.sqrt(3) * r
    x0, y0 = r * 2.2, r * 2.2
    width = x0 * 2 + (size - 1) * w * 1.5
    height = y0 * 2 + (size - 1) * 1.5 * r
    els = [f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" rx="6" fill="#eee8d5"/>']
    anchors = {}
    # boundary edges of a cell (corner pairs): top (k 3-4, 4-5), bottom (0-1, 1-2),
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
                f"<title>{_esc(state.action_to_string(act, 0))}</title></polygon>"
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


# -- Nim ----------------------------------------------------------------------------------------

#: counters drawn at most; a larger heap is drawn as a number and its last counters
NIM_SHOWN = 60


@register_renderer("nim")
def _nim(state: State) -> Picture:
    from mctslab.games import nim_kernels as k

    counters = int(state.array[k.S_COUNTERS])
    per_row, d = 15, 34.0
    shown = min(counters, NIM_SHOWN)
    hidden = counters - shown
    rows = max(1, math.ceil(shown / per_row))
    top = 30.0
    width = d * per_row + 20
    height = top + rows * d + 36
    els = [f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" rx="6" fill="#f3efe4"/>']
    label = f"{counters} counters" + (f" ({hidden} not drawn)" if hidden else "")
    els.append(f'<text x="10" y="20" font-size="14" fill="#333">{_esc(label)}</text>')
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
    status = str(state).splitlines()[-1]
    els.append(
        f'<text x="10" y="{height - 12:.0f}" font-size="13" fill="#333">{_esc(status)}</text>'
    )
    return Picture(width, height, els, anchors, mark_last_move=False)


# -- 2048 ---------------------------------------------------------------------------------------

#: tile colours by exponent (2 = 2**1 ... 2048 = 2**11), the original game's palette
TILE_COLOURS = (
    "#cdc1b4", "#eee4da", "#ede0c8", "#f2b179", "#f59563", "#f67c5f", "#f65e3b",
    "#edcf72", "#edcc61", "#edc850", "#edc53f", "#edc22e",
)  # fmt: skip


@register_renderer("2048")
def _g2048(state: State) -> Picture:
    """The 4x4 tiles; the moves (slides) have no spot on the board: they are buttons."""
    cell, gap = 80.0, 10.0
    width = 4 * cell + 5 * gap
    height = width + 34
    exps = [int(e) for e in state.array[:16]]
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
    status = str(state).splitlines()[-1]
    els.append(
        f'<text x="{gap:.0f}" y="{height - 12:.0f}" font-size="14" fill="#f9f6f2">'
        f"{_esc(status)}</text>"
    )
    return Picture(width, height, els, {}, mark_last_move=False)


# -- anything else ------------------------------------------------------------------------------


def _generic(state: State) -> Picture:
    """A Go-like grid for games with a ``size`` and a readable board, else the text picture."""
    board = _board_of(state)
    if board is not None and int(board.max(initial=0)) <= 2 and int(board.min(initial=0)) >= 0:
        return go_picture(state, board)
    return _generic_text(state)


def _generic_text(state: State) -> Picture:
    """The game's own ASCII picture (``str(state)``) as monospaced SVG text."""
    lines = str(state).splitlines() or [""]
    width = 20 + 9.6 * max(len(line) for line in lines)
    height = 20 + 20 * len(lines)
    els = [f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" rx="6" fill="#f7f7f7"/>']
    els.append('<text font-family="monospace" font-size="16" fill="#222" xml:space="preserve">')
    for i, line in enumerate(lines):
        els.append(f'<tspan x="10" y="{26 + 20 * i}">{_esc(line)}</tspan>')
    els.append("</text>")
    return Picture(width, height, els, {})


# -- notebooks ----------------------------------------------------------------------------------


class SearchView:
    """A search result shown on its position, for Jupyter: ``SearchView(state, agent.last_result)``
    displays the board with the heat map and principal variation and a table of the root moves."""

    def __init__(self, state: State, result, top: int = 10):
        self.state = state.clone()
        self.result = result
        self.top = top

    def _repr_svg_(self) -> str:
        return state_svg(self.state, Overlay.from_result(self.result))

    def _repr_html_(self) -> str:
        r = self.result
        rows = sorted(zip(r.actions, r.visits, r.values, strict=False), key=lambda t: -t[1])
        body = "".join(
            f"<tr><td>{_esc(self.state.action_to_string(a))}</td><td>{n:,}</td>"
            f"<td>{100 * q:.1f}%</td></tr>"
            for a, n, q in rows[: self.top]
        )
        pv = " ".join(self.state_moves(r.pv))
        stats = (
            f"move <b>{_esc(self.state.action_to_string(r.action))}</b> · "
            f"{r.simulations:,} simulations · {r.sims_per_second:,.0f}/s · {r.nodes:,} nodes"
            f"<br>PV: {_esc(pv)}"
        )
        return (
            '<div style="display:flex;gap:1em;align-items:flex-start">'
            f"<div>{self._repr_svg_()}</div><div><p>{stats}</p><table>"
            "<tr><th>move</th><th>visits</th><th>win rate</th></tr>"
            f"{body}</table></div></div>"
        )

    def state_moves(self, actions: Sequence[int]) -> list[str]:
        """Move strings of a line of play from this position (stops at a move it cannot play)."""
        return move_strings(self.state, actions)


def move_strings(state: State, actions: Sequence[int]) -> list[str]:
    """The move strings of ``actions`` played one after another from ``state`` (not changed);
    stops at the first action that cannot be played there."""
    s = state.clone()
    out = []
    for a in actions:
        if s.current_player() < 0:
            break
        out.append(s.action_to_string(a))
        try:
            s.apply_action(a)
        except ValueError:
            break
    return out
