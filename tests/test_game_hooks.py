"""The optional hooks of the game contract (mctslab.games.contract): declared, checked at
registration, and used through the declaration (the MDP search, the agent registry, pictures)."""

from __future__ import annotations

import ast
from pathlib import Path
from types import SimpleNamespace

import pytest
from numba import njit

import mctslab
from mctslab.agents import describe_agents, make_agent
from mctslab.errors import SpecError
from mctslab.games import contract, nim_kernels
from mctslab.games.base import Game
from mctslab.games.nim import NimGame
from mctslab.games.registry import hook_problems, register, registered_games
from mctslab.search.mdp import rollout_policies

GAMES = Path(mctslab.__file__).resolve().parent / "games"


def _kernels(**extra):
    names = (*contract.KERNEL_NAMES, "STATE_DTYPE", "STATE_SIZE")
    return SimpleNamespace(**{n: getattr(nim_kernels, n) for n in names}, **extra)


def _game(name: str, kernels, **attrs) -> type[Game]:
    return type(name, (NimGame,), {"NAME": name, "kernels": kernels, "AGENTS": (), **attrs})


@njit(cache=False)
def _one_arg(consts):
    return 0.0


@njit(cache=False)
def _heuristic(consts, state):
    return 1.0


def test_every_registered_game_declares_its_hooks_correctly():
    for name, cls in registered_games().items():
        assert hook_problems(cls) == [], name
    g2048 = registered_games()["2048"]
    assert contract.provides(g2048, "heuristic_value") and contract.provides(g2048, "network_value")
    assert contract.provides(g2048, "policy_playout") and g2048.ROLLOUT_POLICIES
    nim = registered_games()["nim"]
    assert not contract.provides(nim, "heuristic_value") and not nim.ROLLOUT_POLICIES
    assert all(contract.provides(cls, "picture") for cls in registered_games().values())
    with pytest.raises(KeyError):
        contract.provides(nim, "no_such_hook")


@pytest.mark.parametrize(
    ("kernels", "attrs", "problem"),
    [
        (_kernels(heuristic_value=_one_arg), {}, r"heuristic_value\('consts',\) should take"),
        (_kernels(heuristic_value=lambda consts, state: 0.0), {}, "not compiled"),
        (_kernels(heuristic_value=_heuristic), {"ROLLOUT_POLICIES": {"best": 1}}, "policy_playout"),
        (_kernels(network_value=njit(lambda consts, w, fs, state: 0.0)), {}, "load_network"),
        (_kernels(), {"load_network": lambda self, path=None: (0, 0)}, "load_network"),
        (_kernels(), {"AGENTS": ("mctslab.agents.nim.GreedyNimAgent",)}, "module:Class"),
        (_kernels(), {"picture": lambda self: None}, r"picture\(\) should take"),
    ],
)
def test_registration_refuses_a_hook_of_the_wrong_shape(kernels, attrs, problem):
    cls = _game("badgame", kernels, **attrs)
    with pytest.raises(TypeError, match=problem):
        register(cls)
    assert "badgame" not in registered_games()


def test_a_game_with_a_heuristic_kernel_gets_the_mdp_heuristic_leaf():
    cls = _game("solo_h", _kernels(heuristic_value=_heuristic))
    assert hook_problems(cls) == []
    assert contract.provides(cls, "heuristic_value")
    assert rollout_policies(cls) == {"random": 0}
    assert list(rollout_policies(registered_games()["2048"])) == [
        "random",
        "greedy",
        "corner",
        "greedy_corner",
        "heuristic",
    ]


def test_agents_come_from_the_games_that_offer_them():
    text = describe_agents()
    for name in ("expectimax", "network", "greedy", "mcts", "random"):
        assert f"\n{name}: " in f"\n{text}"
    nim = mctslab.load_game("nim(n=9,k=3)")
    assert make_agent("greedy", nim).step(nim.new_initial_state()) == 0  # take 1: leave 8
    with pytest.raises(SpecError, match="plays Nim only"):
        make_agent("greedy", mctslab.load_game("hex(size=3)"))
    with pytest.raises(SpecError, match="plays 2048 only"):
        make_agent("expectimax", nim)


def _imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


def test_game_modules_import_no_higher_layer():
    """games/ imports only kernels/, games/ and the package's top level (the playout-policy
    modules, ``*_policies.py``, specialise a search template and are left out here)."""
    higher = ("mctslab.search", "mctslab.agents", "mctslab.harness", "mctslab.interfaces")
    bad = {
        p.name: sorted(m for m in _imports(p) if m.startswith(higher))
        for p in GAMES.glob("*.py")
        if not p.name.endswith("_policies.py")
    }
    assert {k: v for k, v in bad.items() if v} == {}
