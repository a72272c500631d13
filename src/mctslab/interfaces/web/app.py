"""The web app (Starlette): a JSON API over :class:`~mctslab.interfaces.web.session.Session`
objects, a
server-sent-event stream per session for the live search view, tree pictures, and the static page.

Every request is validated; a bad request gets ``{"error": "..."}`` with status 400 (bad input:
game or agent spec, move, results file name), 404 (unknown session, page or results file), 409 (not
possible now, e.g. a move while the agent thinks), 413 (body too large) or 422 (a results database
the store refuses: corrupt, foreign, newer schema); anything unexpected is a 500 with a one-line
error, and the server carries on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import threading
from collections import OrderedDict
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from mctslab import specstr
from mctslab.agents import describe_agents
from mctslab.errors import MctslabError, SpecError
from mctslab.games.registry import load_game, registered_games
from mctslab.harness.store import StoreError
from mctslab.interfaces.messages import clip
from mctslab.interfaces.render import state_svg
from mctslab.interfaces.treeviz import to_svg
from mctslab.interfaces.web.session import HUMAN, ConflictError, Session

STATIC = Path(__file__).parent / "static"
#: sessions kept at most; the least recently used one is dropped (its search abandoned)
MAX_SESSIONS = 32
#: the largest request body accepted
MAX_BODY = 64 * 1024
#: seconds between two checks for news in an event stream
EVENT_POLL = 0.12
DEFAULT_PLAYERS = (HUMAN, "best(time=1)")


class NotFoundError(MctslabError):
    """An unknown session (HTTP 404)."""


class Sessions:
    """The live sessions, least recently used first."""

    def __init__(self, limit: int = MAX_SESSIONS):
        self.limit = limit
        self._items: OrderedDict[str, Session] = OrderedDict()
        self._lock = threading.Lock()

    def create(self, game: str, players: list[str], seed: int) -> Session:
        session = Session(secrets.token_hex(8), game, players, seed)
        dropped = []
        with self._lock:
            self._items[session.id] = session
            while len(self._items) > self.limit:
                dropped.append(self._items.popitem(last=False)[1])
        for old in dropped:
            old.close()
        return session

    def get(self, sid: str) -> Session:
        with self._lock:
            session = self._items.get(sid)
            if session is None:
                raise NotFoundError(f"no game {sid!r} (it may have been closed): start a new game")
            self._items.move_to_end(sid)
            return session

    def close_all(self) -> None:
        with self._lock:
            items = list(self._items.values())
            self._items.clear()
        for s in items:
            s.close()


# -- request parsing ------------------------------------------------------------------------------


async def _body(request: Request) -> dict:
    """The request's JSON object. The size limit is enforced while the body streams in: a
    declared ``Content-Length`` over :data:`MAX_BODY` is refused before any of it is read, and a
    body without one is refused at the chunk that crosses the limit, so a 300 MB body never
    sits in memory."""
    too_large = HTTPException(413, f"request body larger than {MAX_BODY} bytes")
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > MAX_BODY:
        raise too_large
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise too_large
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise SpecError(f"the request body is not valid JSON: {exc}") from exc
    except RecursionError:  # 60,000 '[' fit in the size limit
        raise SpecError("the request body is not valid JSON: nested too deeply") from None
    if not isinstance(data, dict):
        raise SpecError(f"the request body must be a JSON object, got {type(data).__name__}")
    return data


def _field(data: dict, key: str, kind: type | tuple[type, ...], default=None, required=False):
    if key not in data or data[key] is None:
        if required:
            raise SpecError(f"missing field {key!r}")
        return default
    value = data[key]
    if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        raise SpecError(f"field {key!r} must be {_kind_name(kind)}, got a boolean")
    if not isinstance(value, kind):
        raise SpecError(f"field {key!r} must be {_kind_name(kind)}, got {type(value).__name__}")
    return value


def _kind_name(kind) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    names = {str: "a string", int: "an integer", list: "a list", bool: "a boolean"}
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def _int_param(request: Request, key: str, default: int, lo: int, hi: int) -> int:
    raw = request.query_params.get(key)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise SpecError(f"query parameter {key!r} must be an integer, got {raw!r}") from None
    if not lo <= value <= hi:
        raise SpecError(f"query parameter {key!r} must be {lo}..{hi}, got {value}")
    return value


# -- the app ------------------------------------------------------------------------------------


def create_app(results_dir: str | os.PathLike = "results") -> Starlette:
    """The web app; ``results_dir`` is the folder of results databases and reports to browse."""
    sessions = Sessions()

    def session_of(request: Request) -> Session:
        return sessions.get(request.path_params["sid"])

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def catalog(request: Request) -> Response:
        games = []
        for name, cls in registered_games().items():
            schema = cls.Params.model_json_schema().get("properties", {})
            games.append(
                {
                    "name": name,
                    "description": cls.DESCRIPTION,
                    "params": schema,
                    "summary": specstr.describe_fields(cls.Params),
                    "players": load_game(name).num_players(),
                }
            )
        return JSONResponse(
            {"games": games, "agents": describe_agents(), "default_players": DEFAULT_PLAYERS}
        )

    async def create(request: Request) -> Response:
        data = await _body(request)
        game = _field(data, "game", str, required=True)
        players = _field(data, "players", list)
        seed = _field(data, "seed", int, default=secrets.randbits(31))
        if players is None:
            n = load_game(game).num_players()
            players = list(DEFAULT_PLAYERS[:n]) if n <= 2 else [HUMAN] * n
        if any(not isinstance(p, str) for p in players):
            raise SpecError("field 'players' must be a list of strings ('human' or agent specs)")
        session = await run_in_threadpool(sessions.create, game, players, seed)
        await run_in_threadpool(session.begin)
        return JSONResponse(await run_in_threadpool(session.view))

    async def show(request: Request) -> Response:
        session = session_of(request)
        return JSONResponse(await run_in_threadpool(session.view))

    async def move(request: Request) -> Response:
        session = session_of(request)
        data = await _body(request)
        action = _field(data, "action", int)
        text = _field(data, "move", str)
        if (action is None) == (text is None):
            raise SpecError("give exactly one of 'action' (an integer) or 'move' (a string)")
        await run_in_threadpool(session.play, action, text)
        return JSONResponse(await run_in_threadpool(session.view))

    def command(name: str):
        async def endpoint(request: Request) -> Response:
            session = session_of(request)
            await run_in_threadpool(getattr(session, name))
            return JSONResponse(await run_in_threadpool(session.view))

        return endpoint

    async def events(request: Request) -> Response:
        session = session_of(request)

        async def stream():
            last = -1
            while not await request.is_disconnected():
                if session.version != last:
                    view = await run_in_threadpool(session.view)
                    last = view["version"]
                    yield f"event: view\ndata: {json.dumps(view)}\n\n"
                await asyncio.sleep(EVENT_POLL)

        headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)

    async def tree(request: Request) -> Response:
        session = session_of(request)
        depth = _int_param(request, "depth", 2, 0, 5)
        width = _int_param(request, "width", 4, 1, 12)
        dot = await run_in_threadpool(session.tree_dot, depth, width)
        if request.query_params.get("format") == "dot":
            return Response(dot, media_type="text/vnd.graphviz")
        return Response(await run_in_threadpool(to_svg, dot), media_type="image/svg+xml")

    async def position(request: Request) -> Response:
        """The SVG of ``game`` after ``moves`` (space-separated move strings): for replays."""
        spec = request.query_params.get("game")
        if not spec:
            raise SpecError("missing query parameter 'game'")
        moves = request.query_params.get("moves", "")

        def draw() -> str:
            state = load_game(spec).new_initial_state()
            for i, word in enumerate(moves.split()):
                try:
                    if word.startswith("("):
                        _chance(state, word)
                    else:
                        state.apply_move(word)
                except MctslabError as exc:
                    raise type(exc)(f"move {i + 1} ({word}): {exc}") from exc
            return state_svg(state)

        return Response(await run_in_threadpool(draw), media_type="image/svg+xml")

    routes = [
        Route("/", index),
        Route("/api/catalog", catalog),
        Route("/api/position.svg", position),
        Route("/api/sessions", create, methods=["POST"]),
        Route("/api/sessions/{sid}", show),
        Route("/api/sessions/{sid}/move", move, methods=["POST"]),
        Route("/api/sessions/{sid}/undo", command("undo"), methods=["POST"]),
        Route("/api/sessions/{sid}/stop", command("stop"), methods=["POST"]),
        Route("/api/sessions/{sid}/resume", command("resume"), methods=["POST"]),
        Route("/api/sessions/{sid}/events", events),
        Route("/api/sessions/{sid}/tree.svg", tree),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    import mctslab.interfaces.web.results as results

    routes += results.routes(results_dir)

    def error(status: int):
        async def handler(request: Request, exc: Exception) -> Response:
            return JSONResponse({"error": clip(str(exc))}, status_code=status)

        return handler

    async def http_error(request: Request, exc: HTTPException) -> Response:
        detail = exc.detail if exc.status_code != 404 else f"no such page: {request.url.path}"
        return JSONResponse({"error": detail}, status_code=exc.status_code)

    async def internal(request: Request, exc: Exception) -> Response:
        return JSONResponse(
            {"error": clip(f"internal error: {type(exc).__name__}: {exc}")}, status_code=500
        )

    @contextlib.asynccontextmanager
    async def lifespan(app):
        yield
        await run_in_threadpool(sessions.close_all)

    app = Starlette(
        routes=routes,
        exception_handlers={
            NotFoundError: error(404),
            results.ResultsNotFound: error(404),
            StoreError: error(422),
            ConflictError: error(409),
            MctslabError: error(400),
            HTTPException: http_error,
            Exception: internal,
        },
        lifespan=lifespan,
    )
    app.state.sessions = sessions
    return app


def _chance(state, word: str) -> None:
    """Apply a chance outcome written as in a session's move list, e.g. ``(heads)``."""
    name = word.strip("()")
    for outcome, _ in state.chance_outcomes():
        if state.action_to_string(outcome) == name:
            state.apply_action(outcome)
            return
    raise SpecError(f"no chance outcome {name!r} here")
