"""The same-run references: C playouts (NoGo, Hex) and OpenSpiel's C++ MCTS.

Statistical tolerances: a difference of two independent estimates is compared with its standard
error; |z| < 4.5 fails a correct implementation about once in 150,000 runs.
"""

from __future__ import annotations

import math
import sys

import pytest

import mctslab
from mctslab.errors import MctslabError, SpecError
from mctslab.games import registered_games
from mctslab.harness import bench, references
from mctslab.harness.references import native

Z = 4.5


def _z_rates(p1: float, n1: int, p2: float, n2: int) -> float:
    p = (p1 * n1 + p2 * n2) / (n1 + n2)
    return (p1 - p2) / math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2))


# ---- C playouts -------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [3, 4, 5, 7])
def test_c_nogo_selfcheck(size):
    assert references.selfcheck("nogo", size, games=60, seed=size) == 0


@pytest.mark.parametrize("size", [3, 7, 11])
def test_c_hex_selfcheck(size):
    assert references.selfcheck("hex", size, games=3000, seed=size) == 0


def test_c_playouts_result_dict():
    r = references.c_playouts("nogo", 9, seconds=0.2)
    assert r["seconds"] >= 0.2
    assert r["playouts"] > 0
    assert r["playouts_per_second"] == pytest.approx(r["playouts"] / r["seconds"])
    assert 0.0 < r["first_player_win_rate"] < 1.0
    # NoGo 9x9 random games fill most of the 81 points
    assert 60 < r["mean_length"] <= 81


def test_c_playouts_fixed_count_is_reproducible():
    a = references.c_playouts("nogo", 5, 0, playouts=5000, seed=7)
    b = references.c_playouts("nogo", 5, 0, playouts=5000, seed=7)
    assert a["playouts"] == 5000
    for key in ("mean_length", "length_std", "first_player_win_rate"):
        assert a[key] == b[key]


def test_c_hex_first_player_wins_more_often():
    """Random-fill Hex on an odd board: Black has one stone more, and the first move."""
    n = 400_000
    r = references.c_playouts("hex", 11, 0, playouts=n, seed=3)
    assert r["playouts"] == n
    assert r["mean_length"] == 121
    p = r["first_player_win_rate"]
    assert (p - 0.5) / math.sqrt(0.25 / n) > Z


def test_c_nogo_agrees_with_our_kernels():
    """Same first-player win rate and mean game length as mctslab's NoGo kernels on 5x5."""
    if "nogo" not in registered_games():
        pytest.skip("nogo is not registered yet")
    ours = bench.playouts(mctslab.load_game("nogo(size=5)"), seconds=0.5, seed=11)
    c = references.c_playouts("nogo", 5, 0, playouts=200_000, seed=12)
    n1, n2 = c["playouts"], ours["playouts"]
    p_ours = (ours["mean_returns"][0] + 1) / 2
    assert abs(_z_rates(c["first_player_win_rate"], n1, p_ours, n2)) < Z
    se = c["length_std"] * math.sqrt(1 / n1 + 1 / n2)
    assert abs(c["mean_length"] - ours["mean_length"]) / se < Z


def test_c_hex_agrees_with_our_kernels():
    if "hex" not in registered_games():
        pytest.skip("hex is not registered yet")
    ours = bench.playouts(mctslab.load_game("hex(size=7)"), seconds=0.3, seed=13)
    c = references.c_playouts("hex", 7, 0, playouts=300_000, seed=14)
    p_ours = (ours["mean_returns"][0] + 1) / 2
    assert abs(_z_rates(c["first_player_win_rate"], c["playouts"], p_ours, ours["playouts"])) < Z
    assert c["mean_length"] == ours["mean_length"] == 49


def test_c_playouts_bad_input():
    with pytest.raises(SpecError, match="known: nogo, hex"):
        references.c_playouts("go", 9, 1.0)
    with pytest.raises(SpecError, match="size"):
        references.c_playouts("nogo", 20, 1.0)
    with pytest.raises(SpecError):
        references.c_playouts("hex", 11, 0, playouts=0)


def test_no_compiler_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("PATH", "")
    monkeypatch.setenv("CC", "no-such-compiler")
    with pytest.raises(references.CompilerNotFoundError, match="no C compiler") as info:
        native.find_compiler()
    assert isinstance(info.value, MctslabError)


def test_build_into_empty_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("MCTSLAB_CACHE_DIR", str(tmp_path))
    native._library.cache_clear()
    try:
        path = native.build("hex")
        assert path.parent == tmp_path / "references"
        assert references.c_playouts("hex", 5, 0, playouts=1000)["playouts"] == 1000
    finally:
        native._library.cache_clear()  # later tests load from the normal cache again


# ---- OpenSpiel --------------------------------------------------------------------------------


def test_openspiel_missing_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # makes `import pyspiel` fail
    with pytest.raises(references.OpenSpielNotInstalledError, match=r"mctslab\[bench\]"):
        references.openspiel_search("hex(board_size=7)", 100)


def test_openspiel_search():
    pytest.importorskip("pyspiel")
    r = references.openspiel_search("hex(board_size=7)", 300, seed=1, count_nodes=True)
    assert r["sims"] == 300
    assert r["sims_per_second"] > 0
    assert r["bytes_per_node"] == references.SEARCH_NODE_BYTES == 80
    # the root and its 49 children at least; every expansion adds a whole child array
    assert r["nodes"] >= 50
    assert r["tree_bytes"] == 80 * r["nodes"]
    again = references.openspiel_search("hex(board_size=7)", 300, seed=1)
    assert again["action"] == r["action"]  # seeded: the same search


def test_openspiel_bad_game():
    pytest.importorskip("pyspiel")
    with pytest.raises(SpecError, match="OpenSpiel cannot load"):
        references.openspiel_search("no_such_game", 100)
