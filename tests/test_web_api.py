"""The web app's JSON API with Starlette's test client: games, moves, agents, errors."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import time

import pytest
from starlette.testclient import TestClient

from mctslab.interfaces.render import state_svg
from mctslab.interfaces.web import app as web_app
from mctslab.interfaces.web import create_app

#: generous: only reached if an agent never finishes (a bug), never on the normal path
DEADLINE = 60.0


@pytest.fixture
def client():
    with TestClient(create_app()) as c:
        yield c


def new(client, game="nogo(size=7)", players=("human", "mcts(sims=1500)"), seed=1):
    r = client.post("/api/sessions", json={"game": game, "players": list(players), "seed": seed})
    assert r.status_code == 200, r.text
    return r.json()


def settle(client, sid):
    """The view once no agent is thinking."""
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end:
        v = client.get(f"/api/sessions/{sid}").json()
        if not v["thinking"]:
            return v
        time.sleep(0.05)
    raise AssertionError("the agent did not finish")


def test_catalog_lists_games_and_agents(client):
    data = client.get("/api/catalog").json()
    names = {g["name"]: g for g in data["games"]}
    assert {"nogo", "hex", "nim"} <= set(names)
    assert names["nogo"]["params"]["size"]["maximum"] == 19 and names["nogo"]["players"] == 2
    assert "mcts" in data["agents"]


def test_page_and_static_files(client):
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/style.css").status_code == 200


def test_play_against_the_agent_and_see_its_search(client):
    v = new(client)
    assert v["human_to_move"] and v["moves"] == [] and v["board_svg"].startswith("<svg")
    v = client.post(f"/api/sessions/{v['id']}/move", json={"move": "D4"}).json()
    assert v["moves"] == ["D4"]
    v = settle(client, v["id"])
    assert len(v["moves"]) == 2 and v["human_to_move"]
    s = v["search"]
    assert s["simulations"] == 1500 and s["nodes"] > 1 and s["sims_per_second"] > 0
    assert s["move"] == v["moves"][1] and not s["running"]
    assert s["moves"][0]["visits"] == max(m["visits"] for m in s["moves"])
    assert s["pv"][0] == s["moves"][0]["move"]
    assert v["search_shown_on_board"] and 'class="heat"' in v["board_svg"]
    # by action number, too; then the heat map is of the agent's next search
    v = client.post(f"/api/sessions/{v['id']}/move", json={"action": 0}).json()
    assert v["moves"][2] == "A7"
    v = settle(client, v["id"])
    assert len(v["moves"]) == 4 and v["search"]["move"] == v["moves"][3]
    assert v["search_shown_on_board"]


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"move": "D4"}, 400, "illegal move D4"),  # occupied
        ({"move": "Z99"}, 400, "bad vertex"),
        ({"action": 49}, 400, "integer 0..48"),
        ({"action": -1}, 400, "integer 0..48"),
        ({"action": True}, 400, "must be an integer"),
        ({"action": "3"}, 400, "must be an integer"),
        ({"action": 1, "move": "A1"}, 400, "exactly one"),
        ({}, 400, "exactly one"),
    ],
)
def test_bad_moves_are_refused_clearly(client, body, status, message):
    v = new(client, players=("human", "human"))
    client.post(f"/api/sessions/{v['id']}/move", json={"move": "D4"})
    r = client.post(f"/api/sessions/{v['id']}/move", json=body)
    assert r.status_code == status and message in r.json()["error"]
    after = client.get(f"/api/sessions/{v['id']}").json()
    assert after["moves"] == ["D4"]  # nothing changed


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"game": "nogo(size=99)"}, "less than or equal to 19"),
        ({"game": "chess"}, "unknown game 'chess'"),
        ({"game": "nogo(size=7"}, "closing"),
        ({"game": "nogo", "players": ["human", "mcst"]}, "unknown agent 'mcst'"),
        ({"game": "nogo", "players": ["human", "mcts(sims=0)"]}, "sims"),
        ({"game": "nogo", "players": ["human"]}, "has 2 player"),
        ({"game": "nogo", "players": ["human", 3]}, "list of strings"),
        ({"game": "nogo", "players": "human"}, "must be a list"),
        ({"game": 7}, "must be a string"),
        ({}, "missing field 'game'"),
        ({"game": "nogo", "seed": "x"}, "must be an integer"),
    ],
)
def test_bad_new_games_are_refused_clearly(client, body, message):
    r = client.post("/api/sessions", json=body)
    assert r.status_code == 400 and message in r.json()["error"]


def test_malformed_requests(client):
    for raw in (b"{not json", b"[1, 2]", b"\xff\xfe", b"[" * 60_000):
        r = client.post("/api/sessions", content=raw)
        assert r.status_code == 400 and "JSON" in r.json()["error"]
    r = client.post("/api/sessions", content=b"x" * (web_app.MAX_BODY + 1))
    assert r.status_code == 413
    r = client.post("/api/sessions", json={"game": "x" * 60_000})  # quoted back, cut
    assert r.status_code == 400 and r.json()["error"].startswith("unknown game 'xxx")
    assert r.json()["error"].endswith(" characters)") and len(r.json()["error"]) < 300
    assert client.get("/api/sessions/nope").status_code == 404
    assert "no game 'nope'" in client.post("/api/sessions/nope/undo").json()["error"]
    r = client.get("/no/such/page")
    assert r.status_code == 404 and "no such page" in r.json()["error"]
    assert client.get("/api/sessions").status_code == 405
    # the server is still fine
    assert new(client)["human_to_move"]


@pytest.mark.parametrize("declared", [True, False])
def test_a_large_body_is_refused_without_reading_it_all(declared):
    """300 MB in 64 KB chunks, with and without a Content-Length: the app answers 413 having
    read at most the chunk that crossed the limit (the old app read it all first)."""
    import asyncio

    chunk, count = b"x" * 65536, 300 * 16
    read, sent = [0], []
    headers = [(b"content-type", b"application/json")]
    if declared:
        headers.append((b"content-length", str(len(chunk) * count).encode()))

    async def receive():
        read[0] += 1
        return {"type": "http.request", "body": chunk, "more_body": read[0] < count}

    async def send(message):
        sent.append(message)

    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": "/api/sessions", "raw_path": b"/api/sessions",
        "query_string": b"", "root_path": "", "headers": headers,
        "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80),
    }  # fmt: skip
    asyncio.run(create_app()(scope, receive, send))
    assert sent[0]["status"] == 413
    assert read[0] <= (0 if declared else 2)


def test_conflicts(client):
    v = new(client, players=("human", "human"))
    sid = v["id"]
    assert "nothing to undo" in client.post(f"/api/sessions/{sid}/undo").json()["error"]
    assert client.post(f"/api/sessions/{sid}/stop").status_code == 409
    assert client.post(f"/api/sessions/{sid}/resume").status_code == 409
    # an agent that would think for ages: a human move while it thinks is refused, stop plays
    v = new(client, players=("mcts(sims=100000000)", "human"))
    sid = v["id"]
    assert v["thinking"]
    r = client.post(f"/api/sessions/{sid}/move", json={"move": "D4"})
    assert r.status_code == 409 and "thinking" in r.json()["error"]
    v = client.post(f"/api/sessions/{sid}/stop").json()
    v = settle(client, sid)
    assert len(v["moves"]) == 1 and v["human_to_move"] and 0 < v["search"]["simulations"] < 10**8


def test_undo_goes_back_to_the_humans_last_turn(client):
    v = new(client, players=("human", "mcts(sims=300)"))
    sid = v["id"]
    client.post(f"/api/sessions/{sid}/move", json={"move": "D4"})
    v = settle(client, sid)
    client.post(f"/api/sessions/{sid}/move", json={"move": "A1"})
    v = settle(client, sid)
    assert len(v["moves"]) == 4
    v = client.post(f"/api/sessions/{sid}/undo").json()
    assert v["moves"] == v["moves"][:2] and len(v["moves"]) == 2 and v["human_to_move"]
    assert 'data-colour="1"' in v["board_svg"] and v["board_svg"].count('class="stone"') == 2
    v = client.post(f"/api/sessions/{sid}/undo").json()
    assert v["moves"] == [] and not v["can_undo"]


def test_watch_two_agents_stop_pause_and_resume(client):
    v = new(client, players=("mcts(sims=100000000)", "mcts(sims=200)"))
    sid = v["id"]
    assert v["thinking"]
    client.post(f"/api/sessions/{sid}/stop")
    v = settle(client, sid)
    assert len(v["moves"]) == 1 and v["paused"] and not v["human_to_move"]
    v = client.post(f"/api/sessions/{sid}/resume").json()
    assert not v["paused"]
    # White answers (200 sims), then Black thinks for ages again: stop, then undo one move
    end = time.monotonic() + DEADLINE
    while len(client.get(f"/api/sessions/{sid}").json()["moves"]) < 2:
        assert time.monotonic() < end
        time.sleep(0.05)
    v = client.post(f"/api/sessions/{sid}/undo").json()
    assert len(v["moves"]) == 1 and v["paused"] and not v["thinking"]


def test_chance_games_and_single_player_games(client):
    v = new(client, game="nim(n=9,k=3,coin=true)", players=("human", "human"))
    v = client.post(f"/api/sessions/{v['id']}/move", json={"move": "2"}).json()
    assert v["moves"][0] == "2" and v["moves"][1] in ("(heads)", "(tails)")
    assert v["to_move"] == 1
    v = new(client, game="2048", players=("human",))
    assert v["to_move"] == 0 and {b["move"] for b in v["buttons"]} <= {
        "left",
        "down",
        "right",
        "up",
    }
    assert len(v["moves"]) == 2 and all(m.startswith("(") for m in v["moves"])  # two first tiles
    move = v["buttons"][0]["move"]
    v = client.post(f"/api/sessions/{v['id']}/move", json={"move": move}).json()
    assert v["moves"][2] == move and v["moves"][3].startswith("(") and len(v["moves"]) == 4
    v = client.post(f"/api/sessions/{v['id']}/undo").json()
    assert len(v["moves"]) == 2 and not v["can_undo"]
    r = client.post(f"/api/sessions/{v['id']}/move", json={"move": "sideways"})
    assert r.status_code == 400 and "left, down, right or up" in r.json()["error"]


def test_a_solved_chance_position_shows_its_exact_value(client):
    v = new(client, game="nim(n=30,k=3,coin=true)", players=("mcts(exact=1000)", "human"))
    s = settle(client, v["id"])["search"]
    assert s["proven"] == 2 and 0.0 < s["solved_value"] < 1.0  # an expectation, not a proof


def test_agent_errors_are_reported_not_crashing(client):
    # a node pool too small for the root's children: the agent's error reaches the page
    v = new(client, players=("human", "mcts(sims=100,max_nodes=3)"))
    client.post(f"/api/sessions/{v['id']}/move", json={"move": "D4"})
    v = settle(client, v["id"])
    assert "max_nodes" in v["message"] and v["paused"] and len(v["moves"]) == 1


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' not installed")
def test_tree_picture_of_the_latest_search(client):
    v = new(client, players=("human", "mcts(sims=500)"))
    sid = v["id"]
    r = client.get(f"/api/sessions/{sid}/tree.svg")
    assert r.status_code == 409 and "no search tree yet" in r.json()["error"]
    client.post(f"/api/sessions/{sid}/move", json={"move": "D4"})
    settle(client, sid)
    r = client.get(f"/api/sessions/{sid}/tree.svg?depth=1&width=3")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert "N=500" in r.text and "White (O) to move" in r.text
    dot = client.get(f"/api/sessions/{sid}/tree.svg?format=dot&depth=1&width=3").text
    assert dot.count("->") == 4  # three moves and the "more" node
    r = client.get(f"/api/sessions/{sid}/tree.svg?depth=9")
    assert r.status_code == 400 and "'depth' must be 0..5" in r.json()["error"]
    r = client.get(f"/api/sessions/{sid}/tree.svg?width=x")
    assert r.status_code == 400 and "integer" in r.json()["error"]


def test_position_pictures_for_replays(client):
    r = client.get("/api/position.svg", params={"game": "hex(size=5)", "moves": "c3 a1"})
    assert r.status_code == 200 and r.text.count('class="cell stone') == 2
    r = client.get("/api/position.svg", params={"game": "hex(size=5)", "moves": "c3 c3"})
    assert r.status_code == 400 and "move 2 (c3)" in r.json()["error"]
    assert client.get("/api/position.svg").status_code == 400


def test_sessions_are_capped(client, monkeypatch):
    sessions = client.app.state.sessions
    monkeypatch.setattr(sessions, "limit", 2)
    ids = [new(client, players=("human", "human"))["id"] for _ in range(3)]
    assert client.get(f"/api/sessions/{ids[0]}").status_code == 404
    assert all(client.get(f"/api/sessions/{i}").status_code == 200 for i in ids[1:])


# -- the results folder ------------------------------------------------------------------------


def _digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def results_dir(tmp_path_factory):
    """A results folder with a real 4-game NoGo 5x5 match (random vs flat) stored by the ``match``
    command, a report with a plot, a corrupt database, a foreign file and one outside the folder."""
    from click.testing import CliRunner

    from mctslab.interfaces.cli.main import main

    root = tmp_path_factory.mktemp("results")
    folder = root / "results"
    folder.mkdir()
    db = folder / "m.sqlite"
    args = ["match", "nogo(size=5)", "random", "flat(sims=20)", "--games", "4", "--db", str(db)]
    r = CliRunner().invoke(main, [*args, "--workers", "1"])
    assert r.exit_code == 0, r.output
    con = sqlite3.connect(db)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    (folder / "exp.md").write_text(
        "# Exp\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n![plot](exp-t1.png)\n\n<script>x</script>\n"
    )
    (folder / "exp-t1.png").write_bytes(b"\x89PNG\r\n\x1a\nfake")
    data = bytearray(db.read_bytes())
    data[2 * 4096 : 3 * 4096] = b"\x5a" * 4096  # a page of garbage, header intact
    (folder / "bad.sqlite").write_bytes(bytes(data))
    (folder / "text.sqlite").write_text("not a database")
    (folder / "empty.sqlite").write_bytes(b"")
    (root / "outside.sqlite").write_bytes(db.read_bytes())
    return folder


@pytest.fixture
def rclient(results_dir):
    with TestClient(create_app(results_dir)) as c:
        yield c


def test_results_listing(rclient):
    r = rclient.get("/api/results").json()
    names = [d["name"] for d in r["databases"]]
    assert names == ["bad.sqlite", "empty.sqlite", "m.sqlite", "text.sqlite"]
    assert r["reports"] == [{"name": "exp.md", "plots": ["exp-t1.png"]}]


def test_results_listing_of_a_missing_folder(tmp_path):
    with TestClient(create_app(tmp_path / "nope")) as c:
        r = c.get("/api/results").json()
    assert r["exists"] is False and r["databases"] == [] and r["reports"] == []


def test_results_runs_with_wilson_interval(rclient, results_dir):
    from mctslab.harness.stats import wilson_interval
    from mctslab.harness.store import ResultsStore

    before = _digest(results_dir / "m.sqlite")
    r = rclient.get("/api/results/m.sqlite/runs")
    assert r.status_code == 200, r.text
    (run,) = r.json()["runs"]
    with ResultsStore(results_dir / "m.sqlite") as store:
        rows = list(store.games(run["id"]))
    score = sum(g["score_a"] for g in rows)
    assert run["played"] == 4 == len(rows)
    assert run["agent_a"] == "random" and run["agent_b"].startswith("flat(sims=20")
    assert run["score_a"] == score
    assert run["wins"] + run["draws"] + run["losses"] == 4
    assert run["wilson95"] == pytest.approx(list(wilson_interval(score, 4)))
    assert _digest(results_dir / "m.sqlite") == before


def test_results_games_and_replay(rclient, results_dir):
    from mctslab.harness.game import replay
    from mctslab.harness.store import ResultsStore

    games = rclient.get("/api/results/m.sqlite/runs/1/games").json()["games"]
    assert [g["index"] for g in games] == [0, 1, 2, 3]
    with ResultsStore(results_dir / "m.sqlite") as store:
        row = next(g for g in store.games(1) if g["game_index"] == 1)
    n = len(row["moves"])
    assert games[1]["moves"] == n and games[1]["seat_a"] == 1
    end = rclient.get("/api/results/m.sqlite/games/1/1").json()
    assert end["step"] == n and len(end["moves"]) == n
    assert end["board_svg"] == state_svg(replay(row))
    start = rclient.get("/api/results/m.sqlite/games/1/1?step=0").json()
    one = rclient.get("/api/results/m.sqlite/games/1/1?step=1").json()
    assert start["board_svg"].count('class="stone') == 0
    assert one["board_svg"].count('class="stone') == 1
    assert one["moves"][0] in one["board_svg"]
    for url, status in [
        ("/api/results/m.sqlite/games/1/1?step=999", 400),
        ("/api/results/m.sqlite/games/1/1?step=x", 400),
        ("/api/results/m.sqlite/games/1/99", 404),
        ("/api/results/m.sqlite/games/7/0", 404),
        ("/api/results/m.sqlite/runs/7/games", 404),
    ]:
        r = rclient.get(url)
        assert r.status_code == status, (url, r.text)
        assert r.json()["error"]


@pytest.mark.parametrize(
    ("name", "status", "words"),
    [
        ("..%2Fx", 400, "not a .sqlite file name"),
        ("..%2Foutside.sqlite", 400, "not a .sqlite file name"),
        ("%2Fetc%2Fpasswd", 400, "not a .sqlite file name"),
        (".hidden.sqlite", 400, "leading dot"),
        ("exp.md", 400, "not a .sqlite file name"),
        ("nope.sqlite", 404, "no nope.sqlite"),
        ("bad.sqlite", 422, "corrupt"),
        ("text.sqlite", 422, "not an SQLite database"),
        ("empty.sqlite", 422, "is empty (0 bytes)"),
    ],
)
def test_results_bad_databases_are_json_errors(rclient, results_dir, name, status, words):
    def files() -> dict[str, str]:
        # SQLite's own -wal/-shm side files of a reader aside, nothing is created or changed
        side = (".sqlite-wal", ".sqlite-shm")
        return {p.name: _digest(p) for p in results_dir.iterdir() if p.suffix not in side}

    before = files()
    for url in (f"/api/results/{name}/runs", f"/api/results/{name}/games/1/0"):
        r = rclient.get(url)
        assert r.status_code == status, r.text
        assert words in r.json()["error"]
    assert files() == before


def test_results_symlink_out_of_the_folder_is_refused(tmp_path, results_dir):
    folder = tmp_path / "r"
    folder.mkdir()
    (folder / "link.sqlite").symlink_to(results_dir / "m.sqlite")
    with TestClient(create_app(folder)) as c:
        r = c.get("/api/results/link.sqlite/runs")
    assert r.status_code == 400 and "outside" in r.json()["error"]


def test_results_report_and_plot(rclient):
    r = rclient.get("/api/results/reports/exp.md")
    assert r.status_code == 200
    html = r.json()["html"]
    assert "<h1>Exp</h1>" in html and "<table>" in html and "<td>1</td>" in html
    assert '<img src="/api/results/files/exp-t1.png" alt="plot"' in html
    assert "<script>" not in html  # raw HTML is escaped
    png = rclient.get("/api/results/files/exp-t1.png")
    assert png.status_code == 200 and png.headers["content-type"] == "image/png"
    assert png.content.startswith(b"\x89PNG")
    for url, status in [
        ("/api/results/reports/..%2F..%2Fpyproject.toml", 400),
        ("/api/results/reports/nope.md", 404),
        ("/api/results/files/m.sqlite", 400),
        ("/api/results/files/..%2Fresults%2Fexp-t1.png", 400),
    ]:
        r = rclient.get(url)
        assert r.status_code == status, (url, r.text)
        assert r.json()["error"]
