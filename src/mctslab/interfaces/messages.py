"""Error messages as every interface shows them (GTP replies, the web app's JSON errors, the
command line): one line, and never longer than :data:`MAX_MESSAGE` characters, since a message
often quotes what the user sent (a 10 MB GTP vertex, a 60 KB game spec)."""

from __future__ import annotations

#: the longest message shown whole; a longer one is cut, saying how long it was
MAX_MESSAGE = 200


def clip(message: str) -> str:
    """``message``, cut to :data:`MAX_MESSAGE` characters when longer, saying how long it was."""
    if len(message) <= MAX_MESSAGE:
        return message
    return f"{message[:MAX_MESSAGE]}... ({len(message):,} characters)"
