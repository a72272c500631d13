"""Error messages as every interface shows them (GTP replies, the web app's JSON errors, the
command line): one line, and never longer than :data:`MAX_MESSAGE` characters, since a message
often quotes what the user sent (a 10 MB GTP vertex, a 60 KB game spec). Notices that are not
answers (a search about to compile) go to stderr: :func:`to_stderr`."""

from __future__ import annotations

import sys

#: the longest message shown whole; a longer one is cut, saying how long it was
MAX_MESSAGE = 200


def clip(message: str) -> str:
    """``message``, cut to :data:`MAX_MESSAGE` characters when longer, saying how long it was."""
    if len(message) <= MAX_MESSAGE:
        return message
    return f"{message[:MAX_MESSAGE]}... ({len(message):,} characters)"


def to_stderr(message: str) -> None:
    """A line for the user on stderr, flushed: the terminal of ``play`` and ``serve``, the engine
    console of a GUI running ``gtp`` (whose stdout carries only protocol replies)."""
    print(message, file=sys.stderr, flush=True)
