"""SVG rendering of states (each game's ``picture`` hook, mctslab.games.picture) and search
overlays (mctslab.interfaces.render)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

import mctslab
from mctslab.agents import make_agent
from mctslab.games import nim_render, picture
from mctslab.games.base import Game
from mctslab.interfaces import render
from mctslab.search import SearchResult

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def by_class(root: ET.Element, cls: str) -> list[ET.Element]:
    return [e for e in root.iter() if cls in (e.get("class") or "").split()]


def actions_of(root: ET.Element, cls: str = "target") -> list[int]:
    return sorted(int(e.get("data-action")) for e in by_class(root, cls))


def random_state(spec: str, plies: int, seed: int = 0):
    game = mctslab.load_game(spec)
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    for _ in range(plies):
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
    return state


@pytest.mark.parametrize("name", list(mctslab.registered_games()))
def test_every_registered_game_draws_valid_svg(name):
    for plies in (0, 5):
        state = random_state(name, plies)
        svg = state._repr_svg_()
        assert svg == render.state_svg(state)
        root = parse(svg)
        assert root.tag == f"{SVG}svg"
        assert float(root.get("width")) > 50 and float(root.get("height")) > 50


def test_nogo_targets_stones_and_last_move():
    state = random_state("nogo(size=7)", 6, seed=3)
    root = parse(render.state_svg(state))
    assert actions_of(root) == list(range(49))
    board = state.game.board(state.array)
    stones = by_class(root, "stone")
    assert len(stones) == int(np.count_nonzero(board)) == 6
    assert sorted(int(s.get("data-colour")) for s in stones) == sorted(board[board > 0].tolist())
    (last,) = by_class(root, "last-move")
    target = next(
        e for e in by_class(root, "target") if int(e.get("data-action")) == state.history[-1]
    )
    x, y, w = (float(target.get(k)) for k in ("x", "y", "width"))
    assert float(last.get("cx")) == pytest.approx(x + w / 2, abs=0.2)
    assert float(last.get("cy")) == pytest.approx(y + w / 2, abs=0.2)


def test_go_coordinates_match_gtp_names():
    state = mctslab.load_game("nogo(size=9)").new_initial_state()
    state.apply_move("C7")
    root = parse(render.state_svg(state))
    (stone,) = by_class(root, "stone")
    target = next(e for e in by_class(root, "target") if e.find(f"{SVG}title").text == "C7")
    assert int(target.get("data-action")) == state.string_to_action("C7")
    assert float(stone.get("cx")) == pytest.approx(
        float(target.get("x")) + float(target.get("width")) / 2, abs=0.2
    )


def test_hex_cells_are_hexagons_with_stone_colours():
    state = mctslab.load_game("hex(size=5)").new_initial_state()
    state.apply_move("c3")
    state.apply_move("a1")
    root = parse(render.state_svg(state))
    cells = by_class(root, "cell")
    assert len(cells) == 25 and all(len(c.get("points").split()) == 6 for c in cells)
    colours = {int(c.get("data-action")): int(c.get("data-colour")) for c in cells}
    assert colours[state.string_to_action("c3")] == 1 and colours[state.string_to_action("a1")] == 2
    assert sum(v != 0 for v in colours.values()) == 2


def test_off_board_actions_are_the_buttons():
    hex_swap = mctslab.load_game("hex(size=5,swap=true)").new_initial_state()
    assert render.off_board_actions(hex_swap) == []
    hex_swap.apply_move("b2")
    assert render.off_board_actions(hex_swap) == [25]  # the swap
    nim = mctslab.load_game("nim(n=10,k=3)").new_initial_state()
    assert render.off_board_actions(nim) == []
    g2048 = random_state("2048", 2)
    assert render.off_board_actions(g2048) == g2048.legal_actions() != []


def test_nim_counter_click_takes_it_and_those_to_its_right():
    state = mctslab.load_game("nim(n=7,k=3)").new_initial_state()
    root = parse(render.state_svg(state))
    counters = by_class(root, "counter")
    assert len(counters) == 7
    # left to right: the last counter takes 1 (action 0), the first takes all 7 (action 6)
    assert [int(c.get("data-action")) for c in counters] == [6, 5, 4, 3, 2, 1, 0]
    assert not by_class(root, "last-move")
    big = mctslab.load_game("nim(n=500)").new_initial_state()
    assert len(by_class(parse(render.state_svg(big)), "counter")) == nim_render.NIM_SHOWN


def test_2048_tiles_show_the_board():
    state = mctslab.load_game("2048").state_from_board("2 . . 2 / . 4 . . / . . 8 . / . . . 2048")
    root = parse(render.state_svg(state))
    tiles = by_class(root, "tile")
    assert [int(t.get("data-exponent")) for t in tiles] == [
        1,
        0,
        0,
        1,
        0,
        2,
        0,
        0,
        0,
        0,
        3,
        0,
        0,
        0,
        0,
        11,
    ]
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "2048" in texts and texts.count("2") == 2


def test_overlay_heat_map_and_principal_variation():
    game = mctslab.load_game("nogo(size=5)")
    state = game.new_initial_state()
    result = make_agent("mcts(sims=800)", game, seed=4).search(state)
    root = parse(render.state_svg(state, render.Overlay.from_result(result)))
    heat = {int(h.get("data-action")): h for h in by_class(root, "heat")}
    visited = {a for a, n in zip(result.actions, result.visits, strict=True) if n > 0}
    assert set(heat) == visited
    for a, n, q in zip(result.actions, result.visits, result.values, strict=True):
        if n:
            assert int(heat[a].get("data-visits")) == n
            assert float(heat[a].get("data-value")) == pytest.approx(q, abs=1e-4)
    # the most visited move has the largest circle
    radius = {a: float(h.find(f"{SVG}circle").get("r")) for a, h in heat.items()}
    assert max(radius, key=radius.get) == max(
        visited, key=lambda a: result.visits[result.actions.index(a)]
    )
    pv = by_class(root, "pv")
    assert [int(p.get("data-action")) for p in pv] == result.pv[: render.PV_SHOWN]
    assert [p.find(f"{SVG}text").text for p in pv] == [str(i + 1) for i in range(len(pv))]


def test_heat_colour_runs_from_red_to_green():
    def rgb(c):
        return tuple(int(c[i : i + 2], 16) for i in (1, 3, 5))

    lose, draw, win = (rgb(render.heat_colour(v)) for v in (0.0, 0.5, 1.0))
    assert lose[0] > lose[1] and win[1] > win[0] and draw[0] > draw[2] and draw[1] > draw[2]
    assert render.heat_colour(-3) == render.heat_colour(0) and render.heat_colour(
        7
    ) == render.heat_colour(1)


def test_generic_rendering_of_a_game_without_a_picture(monkeypatch):
    state = random_state("nogo(size=5)", 3)
    monkeypatch.setattr(type(state.game), "picture", Game.picture)
    # no picture hook: the game's board() hook is drawn as a Go-like grid
    root = parse(render.state_svg(state))
    assert actions_of(root) == list(range(25)) and len(by_class(root, "stone")) == 3
    nim = mctslab.load_game("nim(n=5)").new_initial_state()
    monkeypatch.setattr(type(nim.game), "picture", Game.picture)
    text = "".join(t.text or "" for t in parse(render.state_svg(nim)).iter(f"{SVG}tspan"))
    assert "|||||" in text and not by_class(parse(render.state_svg(nim)), "target")


def test_board_hook_is_read_as_a_grid_of_stones():
    state = random_state("nogo(size=6)", 9, seed=8)
    grid = picture.board_of(state)
    assert np.array_equal(grid, state.game.board(state.array))
    assert picture.board_of(mctslab.load_game("nim(n=5)").new_initial_state()) is None
    # a generic picture of a board game is the game's own Go picture
    assert picture.generic_picture(state) == state.game.picture(state)


def test_every_game_draws_through_its_own_picture_hook():
    for name, cls in mctslab.registered_games().items():
        state = random_state(name, 3)
        assert cls.picture is not Game.picture, name
        assert picture.picture_of(state) == state.game.picture(state)


def test_search_view_for_notebooks():
    game = mctslab.load_game("hex(size=4)")
    state = game.new_initial_state()
    result = make_agent("mcts(sims=300)", game, seed=1).search(state)
    view = render.SearchView(state, result)
    html = view._repr_html_()
    assert f"<b>{state.action_to_string(result.action)}</b>" in html
    assert html.count("<tr>") == 1 + min(10, len(result.actions))
    parse(view._repr_svg_())
    empty = SearchResult(action=0, actions=[0], visits=[0], values=[0.0])
    assert not by_class(parse(render.state_svg(state, render.Overlay.from_result(empty))), "heat")


def test_heat_on_a_played_point_is_a_ring_so_the_stone_shows():
    game = mctslab.load_game("nogo(size=5)")
    state = game.new_initial_state()
    result = make_agent("mcts(sims=400)", game, seed=6).search(state)
    state.apply_action(result.action)  # the agent's move: its search is shown after it
    root = parse(render.state_svg(state, render.Overlay.from_result(result)))
    heat = {int(h.get("data-action")): h.find(f"{SVG}circle") for h in by_class(root, "heat")}
    assert heat[result.action].get("fill") == "none"
    assert all(c.get("fill") != "none" for a, c in heat.items() if a != result.action)
    # the ring comes after the stone but leaves its middle visible
    assert float(heat[result.action].get("r")) > float(by_class(root, "stone")[0].get("r"))
