"""Each game's GTP/HTP adapter lives next to the game (``mctslab/games/<game>_protocol.py``), is
found by the engine by the game's name, and imports nothing from the interfaces."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from mctslab.errors import SpecError
from mctslab.interfaces.gtp import GAMES, protocol_for


@pytest.mark.parametrize("name", GAMES)
def test_each_game_has_its_protocol_adapter_beside_it(name):
    module = importlib.import_module(f"mctslab.games.{name}_protocol")
    adapter = protocol_for(name)
    assert adapter is module.PROTOCOL and adapter.name == name
    game = adapter.load(min(adapter.sizes) + 2, 7.5)
    assert name == game.NAME
    state = game.new_initial_state()
    action = state.legal_actions()[0]
    text = adapter.move_text(game, 0, action)
    assert adapter.parse_move(game, 0, text) == action
    adapter.force_to_move(game, state, 1)
    assert state.current_player() == 1
    tree = ast.parse(Path(module.__file__).read_text())
    imported = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module] + [
        a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
    ]
    assert not any(m.startswith("mctslab.interfaces") for m in imported)


def test_unknown_protocol_game():
    with pytest.raises(SpecError, match="unknown GTP game"):
        protocol_for("chess")
