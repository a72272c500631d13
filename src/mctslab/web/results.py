"""Browsing the results database in the web app: not built yet.

The results store (``mctslab.store``, the arena issue) had not landed in the repository when the
web app was written, so there is nothing to browse against. Until it is, ``/api/results`` answers
with a clear 501 error that the page's Results tab shows. The place to add experiments, their
tables and plots, and game replays is here; replays can draw positions with the app's
``/api/position.svg?game=...&moves=...``.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

NOT_YET = (
    "browsing the results database is not built yet: the web app was written before the results "
    "store landed (see docs/web.md); use 'mctslab results' on the command line meanwhile"
)


def routes(db_path: str | None) -> list[Route]:
    async def results(request: Request) -> JSONResponse:
        return JSONResponse({"error": NOT_YET, "database": db_path}, status_code=501)

    return [Route("/api/results", results)]
