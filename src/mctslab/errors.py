"""Errors that mctslab raises for bad user input.

Every error that can reach a user names the problem and the allowed values; the CLI turns them
into one-line messages (never a traceback).
"""


class MctslabError(Exception):
    """Base class of every error mctslab raises on purpose."""


class SpecError(MctslabError, ValueError):
    """A spec string (game or agent) is malformed, names an unknown thing, or has a bad value."""


class IllegalMoveError(MctslabError, ValueError):
    """A move that is not legal in the current state, or that cannot be parsed."""
