"""Openings: parsing and checking, colour-swapped pairs per opening, the opening stored with each
game and replayed, refused on resume when it differs, and schema-1 databases upgraded."""

import json
import sqlite3

import pytest
from click.testing import CliRunner

import mctslab
from mctslab.harness import openings
from mctslab.harness.game import replay
from mctslab.harness.schedule import match_tasks, run_match
from mctslab.harness.sgf import read_sgf, write_sgf
from mctslab.harness.store import _SCHEMA, APPLICATION_ID, ResultsStore, StoreError
from mctslab.interfaces.cli.main import main

HEX5 = "hex(size=5)"


def _file(tmp_path, text, name="o.txt"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_parse_skips_comments_and_blank_lines(tmp_path):
    path = _file(tmp_path, "# two openings\n\nc3 d4  # centre, then a reply\n  a2\n")
    book = openings.load(path)
    assert book.lines == ((3, ("c3", "d4")), (4, ("a2",)))
    game = mctslab.load_game(HEX5)
    assert book.actions(game) == [(12, 18), (5,)]  # c3 = row 2 col 2; d4 = row 3 col 3
    assert json.loads(book.key(game)) == [["c3", "d4"], ["a2"]]
    # the key is the game's notation, whatever the spelling in the file
    assert openings.load(_file(tmp_path, "C3 D4\nA2\n", "b.txt")).key(game) == book.key(game)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("c3\nb2 z9\n", r"o\.txt line 2: move 2 'z9': unknown move \(bad cell 'z9'"),
        ("# x\nc3 c3\n", r"o\.txt line 2: move 2 'c3': illegal in this position"),
        ("\n\n# only comments\n", "hold no opening"),
    ],
)
def test_bad_lines_name_file_line_and_move(tmp_path, text, message):
    book_or_error = None
    with pytest.raises(openings.OpeningError, match=message):
        book_or_error = openings.load(_file(tmp_path, text))
        book_or_error.actions(mctslab.load_game(HEX5))


def test_opening_that_ends_the_game_or_meets_chance_is_refused(tmp_path):
    with pytest.raises(openings.OpeningError, match="line 1: the opening ends the game"):
        openings.load(_file(tmp_path, "3 2\n")).actions(mctslab.load_game("nim(n=5,k=3)"))
    coin = mctslab.load_game("nim(n=5,k=3,coin=true)")
    with pytest.raises(openings.OpeningError, match="has chance events"):
        openings.load(_file(tmp_path, "1\n")).actions(coin)


def test_a_game_finds_its_builtin_set_by_canonical_spec():
    assert openings.builtin_for(mctslab.load_game("hex(size=7,swap=false)")) == "hex7-balanced"
    assert openings.builtin_for(mctslab.load_game("connect_four")) == "connect4-three-moves"
    assert openings.builtin_for(mctslab.load_game("hex(size=7,swap=true)")) is None
    assert openings.builtin_for(mctslab.load_game("nim(n=9,k=3)")) is None


def test_builtin_sets_load_on_their_game_only():
    for name, (spec, _) in openings.BUILTIN.items():
        lines = openings.load(name).actions(mctslab.load_game(spec))
        assert lines and len({tuple(x) for x in lines}) == len(lines), name  # no repeats
    with pytest.raises(openings.OpeningError, match=r"hex8-balanced are for hex\(size=8"):
        openings.load("hex8-balanced").actions(mctslab.load_game("hex(size=11)"))
    with pytest.raises(openings.OpeningError, match=r"not a built-in set.*hex11-balanced"):
        openings.load("no-such-set")


@pytest.mark.parametrize("name", ["hex7-two-moves", "nogo7-two-moves"])
def test_two_move_sets_hold_each_opening_once_up_to_the_games_symmetries(name):
    spec, _ = openings.BUILTIN[name]
    game = mctslab.load_game(spec)
    sims = game.symmetries()
    cells = game.num_distinct_actions()  # every action is a cell on these boards

    def orbit(a, b):
        return min((int(s.actions[a]), int(s.actions[b])) for s in sims)

    lines = openings.load(name).actions(game)
    classes = {orbit(a, b) for a, b in lines}
    everything = {orbit(a, b) for a in range(cells) for b in range(cells) if a != b}
    assert len(classes) == len(lines) and classes == everything


def test_each_opening_is_played_twice_with_colours_swapped_and_cycles():
    lines = [(1,), (2,), (3,)]
    tasks = match_tasks([HEX5], "a", "b", 8, 0, lines)
    assert [t.opening for t in tasks] == [(1,), (1,), (2,), (2,), (3,), (3,), (1,), (1,)]
    assert [t.seat_a for t in tasks] == [0, 1] * 4
    assert all(t.opening == () for t in match_tasks([HEX5], "a", "b", 4, 0))


def test_opening_is_stored_replayed_and_exported(tmp_path):
    path = _file(tmp_path, "a2 e4\nb1\n")
    db = tmp_path / "r.sqlite"
    with ResultsStore(db) as store:
        result = run_match(HEX5, "random", "random", 4, 3, store=store, openings=path)
    game = mctslab.load_game(HEX5)
    want = [[5, 19], [5, 19], [1], [1]]
    assert [r["opening"] for r in result.rows] == want
    assert [r["seat_a"] for r in result.rows] == [0, 1, 0, 1]
    with ResultsStore(db) as store:
        rows = list(store.games())
    for row, opening in zip(rows, want, strict=True):
        assert row["opening"] == opening
        assert row["moves"][: len(opening)] == opening
        # opening moves are not decisions: one time entry per agent move only
        assert len(row["move_seconds"]) == len(row["moves"]) - len(opening)
        final = replay(row)
        assert final.is_terminal() and final.history == row["moves"]
        sgf = write_sgf(game, row["moves"], black="a", white="b")
        assert [a for _, a in read_sgf(sgf).moves] == row["moves"]


def test_resume_with_other_openings_is_refused(tmp_path):
    db = tmp_path / "r.sqlite"
    first = _file(tmp_path, "c3\n", "first.txt")
    with ResultsStore(db) as store:
        run_match(HEX5, "random", "random", 2, 0, store=store, openings=first)
    same = _file(tmp_path, "# the same opening, spelled otherwise\nC3\n", "same.txt")
    with ResultsStore(db) as store:
        again = run_match(HEX5, "random", "random", 2, 0, store=store, openings=same)
        assert again.resumed_games == 2
        other = _file(tmp_path, "b2\nd4\n", "other.txt")
        with pytest.raises(StoreError, match=r"played with 1 openings \(c3\), not 2 openings"):
            run_match(HEX5, "random", "random", 2, 0, store=store, openings=other)
        with pytest.raises(StoreError, match="not no openings; resume it with the same"):
            run_match(HEX5, "random", "random", 2, 0, store=store)
        assert store.game_count() == 2


def test_schema_1_database_is_upgraded_and_keeps_its_games(tmp_path):
    db = tmp_path / "old.sqlite"
    old_schema = _SCHEMA.replace(",\n    openings TEXT NOT NULL DEFAULT ''", "").replace(
        "    opening TEXT NOT NULL DEFAULT '[]',\n", ""
    )
    assert "opening" not in old_schema
    con = sqlite3.connect(db)
    con.executescript(old_schema)
    key = json.dumps({"a": "random", "b": "random", "games": ["nim"], "seed": 0}, sort_keys=True)
    row = (1, key, '["nim"]', "random", "random", 0, "", "x")
    con.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?)", row)
    con.execute(
        "INSERT INTO games VALUES (1, 0, 'nim', 0, '[]', '[]', 0, '[1]', '[1,-1]', 1.0, '[]', "
        "'{}', '0', 'x')"
    )
    con.execute(f"PRAGMA application_id={APPLICATION_ID}")
    con.execute("PRAGMA user_version=1")
    con.commit()
    con.close()
    with ResultsStore(db) as store:
        assert store.run_id(["nim"], "random", "random", 0) == 1
        assert [g["opening"] for g in store.games()] == [[]]
        with pytest.raises(StoreError, match="was played with no openings"):
            store.run_id(["nim"], "random", "random", 0, openings='[["1"]]')
    assert sqlite3.connect(db).execute("PRAGMA user_version").fetchone()[0] == 2


def test_cli_match_with_openings(tmp_path):
    runner = CliRunner()
    bad = _file(tmp_path, "a1\nb2 b2\n")
    res = runner.invoke(main, ["match", HEX5, "random", "random", "--openings", bad])
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [
        f"error: {bad} line 2: move 2 'b2': illegal in this position"
    ]
    res = runner.invoke(
        main,
        [
            *("match", "hex(size=8)", "random", "random", "--games", "2", "--workers", "1"),
            *("--openings", "hex8-balanced", "--json"),
        ],
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["games"] == 2 and out["openings"] == "hex8-balanced"
    assert "hex8-balanced" in runner.invoke(main, ["match", "--help"]).output


EXPERIMENT = """
title = "openings"
source = "made up"
[scale.quick]
games = 2
[[table]]
title = "Hex"
game = "hex(size=5)"
openings = "{openings}"
row = "sims"
rows = [10]
a = "mcts(sims={{sims}})"
b = "random"
"""


def test_experiment_tables_take_openings(tmp_path):
    from mctslab.harness import experiments as ex

    path = tmp_path / "o.toml"
    path.write_text(EXPERIMENT.format(openings=_file(tmp_path, "b2\n")))
    exp = ex.load(str(path))
    assert exp.tables[0].openings.endswith("o.txt")
    with ResultsStore(tmp_path / "e.sqlite") as store:
        ex.run(exp, store)
        assert [g["opening"] for g in store.games()] == [[6], [6]]
    path.write_text(EXPERIMENT.format(openings="x") + "per_n = true\n")
    with pytest.raises(ex.ExperimentError, match="per_n counts every move as a decision"):
        ex.load(str(path))
