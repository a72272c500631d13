"""Search statistics drawn over a board picture, for the web UI, Jupyter and the tests.

The board itself is the game's: each game draws its states through the ``picture`` hook of its
class (usually in ``mctslab/games/<game>_render.py``), with the primitives and the generic picture
of :mod:`mctslab.games.picture`, which returns a :class:`Picture` whose ``anchors`` give the spot
on the board that stands for each action it draws. What is drawn here is the same for every
game: the overlay of a search (:func:`state_svg`; visit counts and win rates as a heat map, the
principal variation as numbered marks, an AlphaZero search's network priors as dashed rings) at
those anchors, the heat colours (:func:`heat_colour`, also used by
:mod:`mctslab.interfaces.treeviz`), the buttons for actions without an anchor (pass, swap,
2048's slides: :func:`off_board_actions`), and the notebook view of a search
(:class:`SearchView`).
"""

from __future__ import annotations

import colorsys
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from mctslab.games.base import State
from mctslab.games.picture import STONE_EDGE, STONE_FILL, Picture, picture_of, svg_document
from mctslab.games.picture import esc as _esc

__all__ = [
    "PV_SHOWN",
    "Overlay",
    "Picture",
    "SearchView",
    "heat_colour",
    "move_strings",
    "off_board_actions",
    "state_svg",
]

#: how many principal-variation moves are numbered on the board
PV_SHOWN = 6


@dataclass
class Overlay:
    """Per-action search statistics to draw over the board (from a :class:`SearchResult`)."""

    visits: dict[int, int] = field(default_factory=dict)
    values: dict[int, float] = field(default_factory=dict)
    pv: list[int] = field(default_factory=list)
    chosen: int | None = None
    #: the network's prior of each root move (an ``az`` search; empty for others)
    priors: dict[int, float] = field(default_factory=dict)

    @classmethod
    def from_result(cls, result) -> Overlay:
        """From anything with ``actions``, ``visits``, ``values``, ``pv`` and ``action`` (and
        ``priors``, aligned with ``actions``, when a network gave them)."""
        priors = getattr(result, "priors", None) or []
        return cls(
            visits={int(a): int(v) for a, v in zip(result.actions, result.visits, strict=False)},
            values={int(a): float(q) for a, q in zip(result.actions, result.values, strict=False)},
            pv=[int(a) for a in result.pv],
            chosen=int(result.action) if result.action is not None else None,
            priors={int(a): float(p) for a, p in zip(result.actions, priors, strict=False)},
        )


def heat_colour(value: float) -> str:
    """``#rrggbb`` from red (0, a sure loss for the mover) through yellow to green (1, a sure
    win); hex, not ``hsl()``, so that graphviz takes it too (:mod:`mctslab.interfaces.treeviz`)."""
    v = min(1.0, max(0.0, float(value)))
    red, green, blue = colorsys.hls_to_rgb(v / 3.0, 0.45, 0.8)
    return f"#{round(255 * red):02x}{round(255 * green):02x}{round(255 * blue):02x}"


def state_svg(state: State, overlay: Overlay | None = None, *, last_move: bool = True) -> str:
    """The whole SVG document of a state (its game's picture), with an optional search
    overlay."""
    pic = picture_of(state)
    parts = []
    if overlay is not None:
        parts = _priors(state, pic, overlay) + _heat(state, pic, overlay) + _pv(state, pic, overlay)
    return svg_document(state, pic, parts, last_move=last_move)


def off_board_actions(state: State) -> list[int]:
    """Legal actions the board picture has no spot for (shown as buttons)."""
    anchors = picture_of(state).anchors
    return [a for a in state.legal_actions() if a not in anchors]


def _priors(state: State, pic: Picture, ov: Overlay) -> list[str]:
    """The network's prior of each legal root move as a dashed ring whose radius grows with
    the square root of the prior (relative to the largest), under the visits' heat map, so a
    move the network likes but the search has not visited yet still shows."""
    top = max(ov.priors.values(), default=0.0)
    if top <= 0:
        return []
    legal = set(state.legal_actions())
    out = []
    for a, p in ov.priors.items():
        if a not in pic.anchors or a not in legal:
            continue
        x, y, r = pic.anchors[a]
        rr = r * (0.3 + 0.6 * math.sqrt(p / top))
        move = _esc(state.action_to_string(a))
        out.append(
            f'<g class="prior" data-action="{a}" data-prior="{p:.4f}">'
            f"<title>{move}: prior {100 * p:.1f}%</title>"
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{rr:.1f}" fill="none" stroke="#5b2a86" '
            f'stroke-width="{max(1.0, r * 0.08):.1f}" stroke-dasharray="{r * 0.2:.1f}"/></g>'
        )
    return out


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
        prior = f", prior {100 * ov.priors[a]:.1f}%" if a in ov.priors else ""
        if a in legal:
            chosen = ' stroke="#0b3d91" stroke-width="2.5"' if a == ov.chosen else ""
            paint = f'fill="{heat_colour(q)}" fill-opacity="{0.45 + 0.4 * share:.2f}"{chosen}'
        else:
            rr = r * 1.02
            paint = f'fill="none" stroke="{heat_colour(q)}" stroke-width="{max(2.0, r * 0.16):.1f}"'
        out.append(
            f'<g class="heat" data-action="{a}" data-visits="{n}" data-value="{q:.4f}">'
            f"<title>{move}: {n} visits, win rate {100 * q:.1f}%{prior}</title>"
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
