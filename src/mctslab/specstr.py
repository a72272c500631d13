"""The one parser for spec strings such as ``nogo(size=9)`` or ``mcts(sims=1000,c=0.7)``.

Grammar (whitespace around tokens is ignored)::

    spec   := NAME [ "(" [ item ("," item)* ] ")" ]
    item   := KEY "=" VALUE
    NAME   := [A-Za-z_][A-Za-z0-9_]*       (also a leading digit, for games like 2048)
    KEY    := [A-Za-z_][A-Za-z0-9_]*
    VALUE  := any run of characters without ",", "(", ")", "=" or '"'
            |  '"' any characters, with '\\"' for '"' and '\\\\' for '\\' '"'

A quoted value keeps spaces, commas, parentheses and "=" (``gtp(cmd="gnugo --mode gtp",time=1)``);
:func:`format_spec` quotes a value that needs it, so canonical strings parse back. Values stay
strings here; the caller validates and converts them against a schema
(:func:`validate`), so that every consumer (games, agents) reports errors the same way.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Mapping
from typing import Any

import pydantic

from mctslab.errors import SpecError

_NAME = re.compile(r"[A-Za-z0-9_]+\Z")
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"\Z', re.DOTALL)
#: characters that make :func:`format_spec` quote a value
_NEEDS_QUOTES = re.compile(r'[\s,()="\\]')


def parse(text: object) -> tuple[str, dict[str, str]]:
    """Split ``name(k=v,...)`` into the name and a dict of raw string values.

    >>> parse("nogo(size=9)")
    ('nogo', {'size': '9'})
    """
    if not isinstance(text, str):
        raise SpecError(
            f"a spec must be a string like 'name(key=value)', got {type(text).__name__}"
        )
    s = text.strip()
    if not s:
        raise SpecError("empty spec: expected 'name' or 'name(key=value,...)'")
    if "(" in s:
        if not s.endswith(")"):
            raise SpecError(f"spec {text!r}: '(' without a closing ')' at the end")
        name, _, body = s[:-1].partition("(")
    else:
        if ")" in s:
            raise SpecError(f"spec {text!r}: ')' without '('")
        name, body = s, ""
    name = name.strip()
    if not _NAME.match(name):
        raise SpecError(f"spec {text!r}: bad name {name!r} (letters, digits and '_' only)")
    params: dict[str, str] = {}
    if body.strip():
        for raw in _items(text, body):
            key, eq, value = raw.partition("=")
            key, value = key.strip(), value.strip()
            quoted = value.startswith('"')
            if not eq or (not quoted and ("=" in value or '"' in value)):
                raise SpecError(f"spec {text!r}: expected key=value, got {raw.strip()!r}")
            if not _KEY.match(key):
                raise SpecError(f"spec {text!r}: bad key {key!r}")
            if quoted:
                match = _QUOTED.match(value)
                if match is None:
                    raise SpecError(f"spec {text!r}: key {key!r}: text after the closing '\"'")
                value = re.sub(r"\\(.)", r"\1", match.group(1), flags=re.DOTALL)
            if not value:
                raise SpecError(f"spec {text!r}: key {key!r} has no value")
            if key in params:
                raise SpecError(f"spec {text!r}: key {key!r} given twice")
            params[key] = value
    return name, params


def _items(text: str, body: str) -> list[str]:
    """``body`` split at the commas outside double quotes (a backslash escapes the next character
    inside quotes); a parenthesis outside quotes or an unclosed quote is an error."""
    items, start, quoted, escaped = [], 0, False, False
    for i, ch in enumerate(body):
        if quoted:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                quoted = False
        elif ch == '"':
            quoted = True
        elif ch in "()":
            raise SpecError(f"spec {text!r}: nested or unbalanced parentheses")
        elif ch == ",":
            items.append(body[start:i])
            start = i + 1
    if quoted:
        raise SpecError(f"spec {text!r}: a '\"' without its closing '\"'")
    items.append(body[start:])
    return items


def _value_text(value: Any) -> str:
    """A value as a spec string writes it: booleans lowercase, quoted (with ``\\`` escapes) when
    it has spaces, commas, parentheses, ``=``, quotes or backslashes."""
    text = str(value).lower() if isinstance(value, bool) else str(value)
    if _NEEDS_QUOTES.search(text):
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return text


def describe_field(key: str, field: Any) -> str:
    """``key: type range, default d`` for one pydantic field (a field may show another default
    than its value, e.g. ``c``'s per formula, with ``json_schema_extra={"shown_default": ...}``).
    """
    if typing.get_origin(field.annotation) is typing.Literal:
        ann = "|".join(str(a) for a in typing.get_args(field.annotation))
    else:
        ann = getattr(field.annotation, "__name__", None) or str(field.annotation)
        ann = ann.replace("typing.", "")
    bounds = []
    for m in field.metadata:
        for attr, sym in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<")):
            v = getattr(m, attr, None)
            if v is not None:
                bounds.append(f"{sym}{v}")
    extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
    d = extra.get("shown_default", field.default)
    d = str(d).lower() if isinstance(d, bool) else d
    default = "" if field.is_required() else f", default {d}"
    rng = (" " + " ".join(bounds)) if bounds else ""
    return f"{key}: {ann}{rng}{default}"


def describe_fields(model: type[pydantic.BaseModel]) -> str:
    """One line per field: ``key: type range (default d)`` — used in every error message."""
    parts = [describe_field(key, field) for key, field in model.model_fields.items()]
    return "; ".join(parts) if parts else "(no parameters)"


def validate(
    model: type[pydantic.BaseModel], what: str, params: Mapping[str, Any]
) -> pydantic.BaseModel:
    """Validate raw parameters against a strict pydantic model (unknown keys are errors).

    Raises :class:`SpecError` naming the bad key or value and listing every allowed key with
    its type, range and default.
    """
    unknown = sorted(set(params) - set(model.model_fields))
    allowed = describe_fields(model)
    if unknown:
        raise SpecError(f"{what}: unknown key(s) {', '.join(unknown)}; allowed: {allowed}")
    try:
        return model.model_validate(dict(params))
    except pydantic.ValidationError as exc:
        problems = []
        for err in exc.errors():
            loc = ".".join(str(p) for p in err["loc"]) or "value"
            if err["type"] == "missing":
                problems.append(f"{loc}: required, not given")
                continue
            given = params.get(loc, err.get("input"))
            problems.append(f"{loc}={given!s}: {err['msg'].lower()}")
        raise SpecError(f"{what}: {'; '.join(problems)}; allowed: {allowed}") from None


def format_spec(name: str, params: Mapping[str, Any]) -> str:
    """The canonical string for a name and parameters: ``name(k=v,...)``, booleans lowercase,
    values quoted where :func:`parse` needs it."""
    if not params:
        return name
    items = ",".join(f"{k}={_value_text(v)}" for k, v in params.items())
    return f"{name}({items})"
