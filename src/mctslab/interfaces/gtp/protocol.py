"""The line protocol of GTP v2 (Farnebäck, "GTP — Go Text Protocol, version 2.0", draft 2,
2002): pre-processing of an input line (section 3.1), ``[id] name [arguments]`` commands, and the
argument types the engine's handlers declare (integers, floats, strings, colours).
"""

from __future__ import annotations

import re
from typing import NewType

import numpy as np

#: a GTP colour argument: ``b``/``black`` -> 0, ``w``/``white`` -> 1
Colour = NewType("Colour", int)

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


class GtpError(Exception):
    """A command failed; the message is the GTP error reply."""


def preprocess(line: str) -> str:
    """GTP section 3.1: drop control characters except tab/newline, cut ``#`` comments, tabs
    become spaces; returns the stripped command text ('' to ignore)."""
    line = _CONTROL.sub("", line).split("#", 1)[0].replace("\t", " ")
    return line.strip()


def is_id(word: str) -> bool:
    """Whether ``word`` is a command id: ASCII digits only (GTP's ``int``; ``str.isdigit`` alone
    takes any script's digits, such as ``١``)."""
    return word.isascii() and word.isdigit()


def parse_command(text: str) -> tuple[int | None, str, list[str]]:
    """``[id] name args...`` of a pre-processed non-empty line."""
    words = text.split()
    cid = None
    if words and is_id(words[0]):
        cid = int(words.pop(0))
    if not words:
        raise GtpError("missing command name")
    return cid, words[0].lower(), words[1:]


def _colour(text: str) -> int:
    t = text.lower()
    if t in ("b", "black"):
        return 0
    if t in ("w", "white"):
        return 1
    raise GtpError(f"invalid color {text!r}: expected b, black, w or white")


def _int(text: str) -> int:
    try:
        if not text.isascii():  # int() reads any script's digits
            raise ValueError
        return int(text)
    except ValueError:
        raise GtpError(f"expected an integer, got {text!r}") from None


def _float(text: str) -> float:
    try:
        if not text.isascii():
            raise ValueError
        value = float(text)
    except ValueError:
        raise GtpError(f"expected a number, got {text!r}") from None
    if not np.isfinite(value):
        raise GtpError(f"expected a finite number, got {text!r}")
    return value


#: argument converters by the handler's type hint
CONVERT = {int: _int, float: _float, str: str, Colour: _colour}
