"""Experiment files (``experiments/*.toml``): parsing, templates, scales and availability.

An experiment is a list of tables shaped like the source's. A table's cells are matches (or
single searches for ``kind = "memory"``) built from templates over the row and column variables::

    title = "RAVE against UCT"            # what the report calls it
    source = "NoGo paper §3.1"            # where the source's numbers come from
    kind = "match"                        # match | memory | round_robin | score
    value = "rate"                        # rate (± 2σ) | wins (of source_games) | ratio (w/(w+l))
    seed = 0                              # the run seed of every cell
    needs = "the RAVE preset"             # what must exist to run it (named when it does not)
    explains = "nogo_rave"                # optional: this file tests an explanation of where
                                          # that experiment differs from its source
    [scale.quick]                         # defaults of every table at this scale
    games = 20
    [scale.paper]
    games = 300
    [[table]]
    title = "7x7 NoGo"
    game = "nogo(size=7)"
    row = "sims"                          # the row variable ...
    rows = [50, 500, 1000]                # ... and its values (or tables: {label=..., a=..., z=1})
    col = "z"                             # optional column variable and values
    cols = [1, 2]
    a = "mcts(preset=rave,sims={sims})"   # {expression}: arithmetic over the variables
    b = "mcts(sims={sims})"
    source = ["56 % ± 5%", "64 % ± 4%", "64 % ± 2%"]   # as printed, per row (lists per column)
    quick = {rows = [50, 500], games = 10}              # per-table overrides of a scale
    draw = {n = [20, 50]}                 # optional: each pair's game drawn from n = 20..50
    vars = {t = 1.0}                      # constants (a scale's ``vars`` override them)
    openings = "hex8-balanced"            # optional: an openings set or file for every match

Rows may also be inline tables of variables, with an optional ``label`` and per-row ``a``, ``b``,
``game`` and ``source``.

``kind = "score"`` tables play a single-player game (2048): each row is one agent ``a`` (no
``b``) playing the scale's ``games`` games, each with its own seeds; the report gives per row the
share of games reaching each of the table's ``tiles`` (default 1024, 2048, 4096) with its Wilson
95% interval, the median and mean score and the milliseconds per move (see
:mod:`mctslab.harness.single_player`)::

    kind = "score"
    [[table]]
    game = "2048"
    tiles = [1024, 2048, 4096]
    row = "U"
    rows = [{label = "rollout", leaf = "rollout"}, {label = "zero", leaf = "zero"}]
    a = "mdp(d=10,c=100,leaf={leaf},sims={sims})"

Unknown keys are refused with the allowed ones named (:data:`TOP_KEYS`, :data:`SCALE_KEYS`,
:data:`TABLE_KEYS` per kind).
"""

from __future__ import annotations

import ast
import operator
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from mctslab.errors import MctslabError

SCALES = ("quick", "decide", "paper")
KINDS = ("match", "memory", "round_robin", "score")
VALUES = ("rate", "wins", "ratio", "bytes", "score")
#: the keys of an experiment file, of a ``[scale.*]`` section (and a table's per-scale
#: overrides), and of a ``[[table]]`` by kind
TOP_KEYS = ("title", "source", "kind", "value", "seed", "needs", "notes", "explains", "plots",
            "scale", "table")  # fmt: skip
SCALE_KEYS = ("games", "searches", "vars", "rows", "cols")
_ROW_TABLE = ("title", "game", "row", "rows", "a", "vars", "source", *SCALES)
TABLE_KEYS = {
    "match": (*_ROW_TABLE, "b", "col", "cols", "draw", "per_n", "source_games", "openings"),
    "memory": (*_ROW_TABLE, "col", "cols", "source_games"),
    "round_robin": ("title", "game", "agents", "vars", "openings", *SCALES),
    "score": (*_ROW_TABLE, "tiles"),
}
#: the tiles a score table reports without ``tiles``
DEFAULT_TILES = (1024, 2048, 4096)


class ExperimentError(MctslabError):
    """A malformed experiment file, or one that needs agents or games not available yet."""


@dataclass
class Cell:
    """One match (or one search, for memory tables) of a table."""

    row_label: str
    col_label: str | None
    game: str | list[str]
    a: str
    b: str
    source: str | None
    variables: dict


@dataclass
class Table:
    title: str
    row_name: str
    col_labels: list[str]
    cells: list[Cell]
    games: int
    source_games: int | None
    per_n: bool
    searches: int
    agents: list[str] = field(default_factory=list)  # round robin
    tiles: list[int] = field(default_factory=list)  # score
    #: the openings of every match (a built-in set or a file, :mod:`mctslab.harness.openings`)
    openings: str | None = None

    @property
    def row_labels(self) -> list[str]:
        seen: list[str] = []
        for c in self.cells:
            if c.row_label not in seen:
                seen.append(c.row_label)
        return seen


@dataclass
class Experiment:
    name: str
    path: Path
    title: str
    source: str
    kind: str
    value: str
    needs: str
    notes: str
    #: the experiment whose differences from its source this one tests an explanation of
    #: ("" for a source table); the page counts its verdicts apart
    explains: str
    scale: str
    tables: list[Table]
    plots: list[str]
    seed: int


_OPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Pow: operator.pow,
    ast.USub: operator.neg,
}


def evaluate(expr: str, variables: dict):
    """Evaluate an arithmetic expression (numbers, variables, + − × / // **) — no ``eval``."""

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float | str):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in variables:
                raise ExperimentError(f"unknown variable {node.id!r} in {{{expr}}}")
            return variables[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.operand))
        raise ExperimentError(f"unsupported expression {{{expr}}} (arithmetic on variables only)")

    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        raise ExperimentError(f"bad expression {{{expr}}}") from None
    value = ev(tree)
    if isinstance(value, float) and value.is_integer() and "/" not in expr:
        value = int(value)
    return value


def fill(template: str, variables: dict) -> str:
    """Replace every ``{expression}`` in ``template``."""
    return re.sub(r"\{([^{}]+)\}", lambda m: _fmt(evaluate(m.group(1), variables)), template)


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def experiments_dirs() -> list[Path]:
    """Where experiment files are looked up: ``./experiments``, then the source checkout's."""
    dirs = [Path.cwd() / "experiments", Path(__file__).resolve().parents[4] / "experiments"]
    return [d for i, d in enumerate(dirs) if d.is_dir() and d not in dirs[:i]]


def find(name: str) -> Path:
    """The file of experiment ``name`` (or a path to a .toml file)."""
    p = Path(name)
    if p.suffix == ".toml" and p.is_file():
        return p
    for d in experiments_dirs():
        if (d / f"{name}.toml").is_file():
            return d / f"{name}.toml"
    known = ", ".join(list_names()) or "none found"
    raise ExperimentError(f"unknown experiment {name!r}; known: {known}")


def list_names() -> list[str]:
    names: list[str] = []
    for d in experiments_dirs():
        names += [p.stem for p in sorted(d.glob("*.toml")) if p.stem not in names]
    return names


def load(name: str, scale: str = "quick") -> Experiment:
    """Parse an experiment file and expand its tables at ``scale``."""
    if scale not in SCALES:
        raise ExperimentError(f"unknown scale {scale!r}; allowed: {', '.join(SCALES)}")
    path = find(name)
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise ExperimentError(f"{path}: {exc}") from None
    _check_keys(f"{path}", data, TOP_KEYS)
    kind = data.get("kind", "match")
    value = data.get("value", {"memory": "bytes", "score": "score"}.get(kind, "rate"))
    if kind not in KINDS or value not in VALUES:
        raise ExperimentError(f"{path}: kind must be one of {KINDS}, value one of {VALUES}")
    if (kind == "score") != (value == "score"):
        raise ExperimentError(
            f"{path}: value = {value!r} does not go with kind = {kind!r}; a score table's value "
            "is 'score' (tiles reached, scores), the other kinds' one of "
            f"{', '.join(v for v in VALUES if v != 'score')}"
        )
    for name, section in data.get("scale", {}).items():
        if name not in SCALES:
            raise ExperimentError(f"{path}: unknown scale [scale.{name}]; allowed: {SCALES}")
        _check_keys(f"{path} [scale.{name}]", section, SCALE_KEYS)
    defaults = data.get("scale", {}).get(scale, {})
    tables = [_table(path, t, defaults, scale, kind) for t in data.get("table", [])]
    if not tables:
        raise ExperimentError(f"{path}: no [[table]]")
    return Experiment(
        name=path.stem,
        path=path,
        title=data.get("title", path.stem),
        source=data.get("source", ""),
        kind=kind,
        value=value,
        needs=data.get("needs", ""),
        notes=data.get("notes", ""),
        explains=_explains(path, data.get("explains", "")),
        scale=scale,
        tables=tables,
        plots=data.get("plots", []),
        seed=int(data.get("seed", 0)),
    )


def _explains(path: Path, name: str) -> str:
    """``explains`` must name another experiment file."""
    if name and (name == path.stem or name not in list_names()):
        known = ", ".join(n for n in list_names() if n != path.stem)
        raise ExperimentError(
            f"{path}: explains = {name!r} is not another experiment; known: {known}"
        )
    return name


def _label(v) -> str:
    return _fmt(v)


def _check_keys(where: str, given: dict, allowed: tuple[str, ...]) -> None:
    """Refuse keys not in ``allowed``, naming them and every allowed key."""
    unknown = [k for k in given if k not in allowed]
    if unknown:
        raise ExperimentError(
            f"{where}: unknown key{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(map(repr, unknown))}; allowed: {', '.join(allowed)}"
        )


def _tiles(path: Path, title: str, t: dict) -> list[int]:
    """A score table's tiles: powers of two from 4 up, as given; without ``tiles`` the runner
    reports :data:`DEFAULT_TILES` for 2048 (and no tiles for another game)."""
    if "tiles" not in t:
        return []
    tiles = t["tiles"]
    ok = isinstance(tiles, list) and tiles
    if ok:
        ok = all(isinstance(x, int) and x >= 4 and x & (x - 1) == 0 for x in tiles)
    if not ok:
        raise ExperimentError(
            f"{path}: table {title!r}: tiles = {tiles!r}; allowed: a non-empty list of powers "
            "of two from 4 up, e.g. [1024, 2048, 4096]"
        )
    return sorted(tiles)


def _table(path: Path, t: dict, defaults: dict, scale: str, kind: str) -> Table:
    title = t.get("title", "")
    where = f"{path}: table {title!r}" if title else f"{path}: [[table]]"
    _check_keys(where, t, TABLE_KEYS[kind])
    for sc in SCALES:
        _check_keys(f"{where} {sc}", t.get(sc, {}), SCALE_KEYS)
    over = {**defaults, **t.get(scale, {})}
    games = int(over.get("games", 20))
    if kind == "round_robin":
        consts = {**t.get("vars", {}), **over.get("vars", {})}
        agents = [fill(x, consts) for x in t["agents"]]
        cells = []
        for i, a in enumerate(agents):
            for b in agents[i + 1 :]:
                cells.append(Cell(a, b, t["game"], a, b, None, {}))
        return Table(
            title, "agent", agents, cells, games, None, False, 1, agents, openings=t.get("openings")
        )
    if t.get("per_n") and t.get("openings"):
        raise ExperimentError(f"{where}: per_n counts every move as a decision: no openings")
    row_name = t.get("row", "row")
    rows = t.get("rows", [{}])
    keep = over.get("rows")
    col_name = t.get("col")
    cols = t.get("cols", [None]) if col_name else [None]
    keep_cols = over.get("cols")
    sources = t.get("source")
    cells = []
    for ri, r in enumerate(rows):
        rv = dict(r) if isinstance(r, dict) else {row_name: r}
        label = str(rv.pop("label", _label(rv.get(row_name, ri))))
        if keep is not None and rv.get(row_name, label) not in keep and label not in keep:
            continue
        row_source = rv.pop("source", None)
        if kind == "score" and "b" in rv:
            raise ExperimentError(
                f"{where} row {label!r}: a score table plays one agent per row (a); "
                "b is for match tables"
            )
        a_t, b_t, g_t = (
            rv.pop("a", t.get("a")),
            rv.pop("b", t.get("b", "")),
            rv.pop("game", t.get("game")),
        )
        if a_t is None or g_t is None:
            raise ExperimentError(f"{path}: table {title!r} row {label!r} needs a game and agent a")
        for ci, c in enumerate(cols):
            if keep_cols is not None and c not in keep_cols:
                continue
            variables = {**t.get("vars", {}), **over.get("vars", {}), **rv}
            if col_name:
                variables[col_name] = c
            src = row_source
            if src is None and sources is not None and ri < len(sources):
                src = sources[ri][ci] if col_name else sources[ri]
            game = _games(g_t, t.get("draw"), variables)
            cells.append(
                Cell(
                    label,
                    None if not col_name else f"{col_name} = {_label(c)}",
                    game,
                    fill(a_t, variables),
                    fill(b_t, variables) if b_t else "",
                    None if src is None else str(src),
                    variables,
                )
            )
    col_labels = sorted(
        {c.col_label for c in cells if c.col_label},
        key=lambda s: [c.col_label for c in cells].index(s),
    )
    return Table(
        title,
        row_name,
        col_labels,
        cells,
        games,
        t.get("source_games"),
        bool(t.get("per_n", False)),
        int(over.get("searches", 1)),
        tiles=_tiles(path, title, t) if kind == "score" else [],
        openings=t.get("openings"),
    )


def _games(template, draw: dict | None, variables: dict) -> str | list[str]:
    """The game spec of a cell, or the list a match draws each pair's game from: ``draw =
    {n = [20, 50]}`` fills the template with every integer from 20 to 50."""
    if draw is None:
        return fill(template, variables)
    if len(draw) != 1:
        raise ExperimentError(f"draw must name one variable, got {draw}")
    ((name, (lo, hi)),) = draw.items()
    return [fill(template, {**variables, name: v}) for v in range(int(lo), int(hi) + 1)]


def missing(exp: Experiment) -> list[str]:
    """What this experiment needs that is not available: one line per distinct failing spec."""
    import mctslab
    from mctslab.agents.warmup import make_announced

    problems: dict[str, str] = {}
    for table in exp.tables:
        for cell in table.cells:
            games = cell.game if isinstance(cell.game, list) else [cell.game]
            loaded = None
            for g in games:
                try:
                    loaded = mctslab.load_game(g)
                except MctslabError as exc:
                    problems.setdefault(f"game {g}", str(exc))
            if loaded is None:
                continue
            if exp.kind == "score":
                _check_single_player(exp, table, loaded)
            for spec in (cell.a, cell.b):
                if not spec:
                    continue
                try:
                    make_announced(spec, loaded, seed=0)
                except MctslabError as exc:
                    problems.setdefault(_generic(spec), f"agent {spec}: {exc}")
    return list(problems.values())


def _check_single_player(exp: Experiment, table: Table, game) -> None:
    """A score table needs a one-player game; tiles given explicitly need 2048."""
    spec = game.spec.spec_string
    if game.num_players() != 1:
        raise ExperimentError(
            f'{exp.path}: table {table.title!r}: kind = "score" plays single-player games, '
            f'and {spec} has {game.num_players()} players (two agents play kind = "match")'
        )
    if table.tiles and game.spec.name != "2048":
        raise ExperimentError(
            f"{exp.path}: table {table.title!r}: tiles are 2048's; {spec} has none"
        )


def _generic(spec: str) -> str:
    """A spec with its numbers blanked, so that one missing feature is named once."""
    return re.sub(r"=[0-9.]+", "=#", spec)
