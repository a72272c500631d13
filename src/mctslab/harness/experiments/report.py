"""An experiment's report: the Markdown tables (ours beside the source's figures), the plots, and
the run's description line. The cells come from :mod:`.runner`."""

from __future__ import annotations

import re
import statistics
import time
from pathlib import Path

from mctslab.harness import stats
from mctslab.harness.experiments.runner import CellResult, TableResult
from mctslab.harness.experiments.spec import (
    DEFAULT_TILES,
    Experiment,
)
from mctslab.harness.single_player import reached_counts


# -- the source's numbers ------------------------------------------------------------------------
def source_value(text: str | None, value: str, source_games: int | None) -> float | None:
    """The source's figure as a number comparable with ours: a rate in [0, 1] (``rate``,
    ``wins`` out of ``source_games``, ``ratio`` w/(w+l)=r) or bytes. None if not numeric."""
    if not text:
        return None
    t = text.replace(",", "")
    if value == "ratio" or "=" in t:
        m = re.search(r"=\s*([0-9]*\.?[0-9]+)", t)
        return float(m.group(1)) if m else None
    m = re.search(r"[0-9]*\.?[0-9]+", t)
    if not m:
        return None
    x = float(m.group(0))
    if value == "wins":
        return x / source_games if source_games else None
    if value == "rate":
        return x / 100.0 if x > 1.0 else x
    return x


# -- report --------------------------------------------------------------------------------------
def tiles_of(tr: TableResult) -> list[int]:
    """The tiles a score table reports: its own, or :data:`DEFAULT_TILES` for 2048."""
    if tr.table.tiles:
        return tr.table.tiles
    games = {cr.score.game for cr in tr.cells if cr.score is not None}
    return list(DEFAULT_TILES) if games == {"2048"} else []


def score_row(cr: CellResult, tiles: list[int]) -> dict:
    """One score row's figures: games; per tile the games reaching it, the share and its Wilson
    95% interval; median and mean score; milliseconds of search per move (total seconds the
    agent searched over its decisions, × 1000)."""
    games = cr.score.games
    n = len(games)
    counts = reached_counts(games, tiles)
    scores = [g["score"] for g in games]
    moves = sum(g["moves"] for g in games)
    return {
        "games": n,
        "reached": {
            t: (c, c / n if n else 0.0, stats.wilson_interval(c, n)) for t, c in counts.items()
        },
        "median": statistics.median(scores) if n else 0.0,
        "mean": statistics.fmean(scores) if n else 0.0,
        "scores": scores,
        "ms_per_move": 1000 * sum(g["seconds"] for g in games) / moves if moves else 0.0,
    }


def score_table(tr: TableResult) -> list[str]:
    """A score table: per row the games, the share reaching each tile with its Wilson 95%
    interval, the median and mean score and the milliseconds of search a move."""
    t = tr.table
    tiles = tiles_of(tr)
    out = [
        f"| {t.row_name} | agent | games | "
        + "".join(f"reached {x} | " for x in tiles)
        + "median score | mean score | ms a move | source |",
        "| --- | --- | ---: |" + " ---: |" * (len(tiles) + 3) + " --- |",
    ]
    for cr in tr.cells:
        r = score_row(cr, tiles)
        reached = "".join(
            f"{c}/{r['games']} = {100 * p:.0f}% [{100 * lo:.0f}, {100 * hi:.0f}] | "
            for c, p, (lo, hi) in r["reached"].values()
        )
        src = cr.cell.source if cr.cell.source is not None else "—"
        out.append(
            f"| {cr.cell.row_label} | `{cr.cell.a}` | {r['games']} | {reached}"
            f"{r['median']:,.0f} | {r['mean']:,.0f} | {r['ms_per_move']:.2f} | {src} |"
        )
    return out


def _ours(cr: CellResult, value: str) -> str:
    if cr.match is None:
        return f"{cr.bytes:,.0f} bytes ({cr.nodes:,.0f} nodes)"
    s = cr.match.summary
    lo, hi = s.ci95
    if value == "wins":
        return (
            f"{s.score_a:g}/{s.games} = {100 * s.win_rate_a:.0f}% [{100 * lo:.0f}, {100 * hi:.0f}]"
        )
    if value == "ratio":
        return f"{s.wins_a}/({s.wins_a}+{s.losses_a})={s.win_rate_a:.3f} [{lo:.3f}, {hi:.3f}]"
    return f"{100 * s.win_rate_a:.1f}% ± {100 * s.two_sigma:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]"


def _outside(cr: CellResult, value: str, source_games: int | None) -> bool:
    """True when the source's rate lies outside our Wilson 95% interval."""
    if cr.match is None or cr.match.summary.games == 0:
        return False
    x = source_value(cr.cell.source, value, source_games)
    if x is None:
        return False
    lo, hi = cr.match.summary.ci95
    return not lo <= x <= hi


def markdown(exp: Experiment, results: list[TableResult], meta: dict) -> str:
    """The report: per table, our figure and the source's side by side, in the source's shape."""
    lines = [f"# {exp.title}", ""]
    if exp.source:
        lines += [f"Source: {exp.source}", ""]
    legend = {
        "memory": "Ours: bytes and nodes of the tree after one search from the initial position, "
        "mean over the searches.",
        "score": "Ours, per row: the games whose largest tile reached each tile (count/games = "
        "share, Wilson 95% CI in brackets), the median and mean final score, and the "
        "milliseconds the agent searched per move (on a busy machine this includes waiting for "
        "a core).",
    }.get(
        exp.kind,
        "Ours: A's win rate ± 2σ (two standard deviations, as the NoGo paper prints it), then "
        "the Wilson 95% CI in brackets (draws count half). † marks a source figure outside "
        "our 95% CI.",
    )
    lines += [f"Scale `{exp.scale}`; {meta.get('what', '')}", "", legend, ""]
    if exp.notes:
        lines += [exp.notes.strip(), ""]
    for tr in results:
        t = tr.table
        if t.title:
            lines += [f"## {t.title}", ""]
        if exp.kind == "round_robin":
            lines += round_robin_table(tr)
        elif exp.kind == "score":
            lines += score_table(tr)
        elif t.col_labels:
            lines += _grid(tr, exp.value)
        else:
            lines += _column(tr, exp)
        lines.append("")
        for cr in tr.cells:
            if cr.per_n:
                lines += _per_n(cr)
    for p in meta.get("plots", []):
        lines += [f"![{Path(p).stem}]({Path(p).name})", ""]
    return "\n".join(lines)


def _column(tr: TableResult, exp: Experiment) -> list[str]:
    t = tr.table
    memory = exp.kind == "memory"
    head = (
        f"| {t.row_name} | A | searches | ours | source |"
        if memory
        else (f"| {t.row_name} | A | B | games | ours | source |")
    )
    out = [
        head,
        "| --- | --- | ---: | --- | --- |" if memory else "| --- | --- | --- | ---: | --- | --- |",
    ]
    for cr in tr.cells:
        c = cr.cell
        mark = " †" if _outside(cr, exp.value, t.source_games) else ""
        src = c.source if c.source is not None else "—"
        if memory:
            out.append(
                f"| {c.row_label} | `{c.a}` | {t.searches} | {_ours(cr, exp.value)} | {src} |"
            )
            continue
        games = cr.match.summary.games
        out.append(
            f"| {c.row_label} | `{c.a}` | `{c.b}` | {games} | {_ours(cr, exp.value)} | "
            f"{src}{mark} |"
        )
    return out


def _grid(tr: TableResult, value: str) -> list[str]:
    t = tr.table
    out = [
        f"| {t.row_name} | " + " | ".join(t.col_labels) + " |",
        "| --- |" + " --- |" * len(t.col_labels),
    ]
    for row in t.row_labels:
        cells = []
        for col in t.col_labels:
            cr = next(
                (x for x in tr.cells if x.cell.row_label == row and x.cell.col_label == col), None
            )
            if cr is None:
                cells.append("")
                continue
            mark = " †" if _outside(cr, value, t.source_games) else ""
            src = ""
            if cr.cell.source is not None:
                x = source_value(cr.cell.source, value, t.source_games)
                shown = cr.cell.source
                if value == "wins" and x is not None:
                    shown = f"{cr.cell.source}/{t.source_games} = {100 * x:.0f}%"
                src = f"<br>source {shown}{mark}"
            cells.append(_ours(cr, value) + src)
        out.append(f"| {row} | " + " | ".join(cells) + " |")
    first = tr.cells[0].cell if tr.cells else None
    if first is not None:
        out += [
            "",
            f"A = `{first.a}`, B = `{first.b}` (first cell; the others vary "
            f"{t.row_name} and the column variable).",
        ]
    return out


def round_robin_table(tr: TableResult) -> list[str]:
    """A round robin's cross table: the row agent's score against each column (± 2σ) and its
    overall score."""
    agents = tr.table.agents
    score: dict[tuple[str, str], str] = {}
    totals = dict.fromkeys(agents, 0.0)
    counts = dict.fromkeys(agents, 0)
    for cr in tr.cells:
        s = cr.match.summary
        a, b = cr.cell.a, cr.cell.b
        if s.games == 0:
            score[a, b] = score[b, a] = "not run"
            continue
        score[a, b] = f"{100 * s.win_rate_a:.0f}% ± {100 * s.two_sigma:.0f}"
        score[b, a] = f"{100 * (1 - s.win_rate_a):.0f}% ± {100 * s.two_sigma:.0f}"
        totals[a] += s.score_a
        totals[b] += s.games - s.score_a
        counts[a] += s.games
        counts[b] += s.games
    out = [
        "| row's score against column | " + " | ".join(f"`{a}`" for a in agents) + " | overall |",
        "| --- |" + " ---: |" * (len(agents) + 1),
    ]
    for a in agents:
        overall = f"{100 * totals[a] / counts[a]:.0f}%" if counts[a] else "—"
        out.append(
            f"| `{a}` | " + " | ".join(score.get((a, b), "—") for b in agents) + f" | {overall} |"
        )
    return out


def _per_n(cr: CellResult) -> list[str]:
    out = [
        f"Per-N statistics of A's decisions (`{cr.cell.a}`, {cr.cell.row_label}):",
        "",
        "| n | popularity | avg. convincity | avg. playouts | avg. path | med. path | max. path |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in cr.per_n:
        out.append(
            f"| {r['n']} | {r['popularity']} | {r['convincity']:.4f} | {r['playouts']:.1f} | "
            f"{r['path_mean']:.4f} | {r['path_median']:g} | {r['path_max']} |"
        )
    return [*out, ""]


# -- plots ---------------------------------------------------------------------------------------
def plots(exp: Experiment, results: list[TableResult], out_dir: Path) -> list[str]:
    """Matplotlib figures: A's rate against the (numeric) row variable with Wilson bands and the
    source's figures as markers; bytes against z for memory tables; the Nim per-N curves; tiles
    reached and scores per row for score tables."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    files = []
    for ti, tr in enumerate(results):
        t = tr.table
        played = [
            c
            for c in tr.cells
            if c.bytes or (c.match and c.match.summary.games) or (c.score and c.score.games)
        ]
        if exp.kind == "score":
            if not played:
                continue
            fig = _score_plot(exp, tr, plt)
            files.append(_save(fig, out_dir / f"{exp.name}-{exp.scale}-t{ti + 1}.png"))
            continue
        try:
            xs_all = [float(r) for r in t.row_labels]
        except ValueError:
            xs_all = None
        if xs_all and len(xs_all) > 1 and exp.kind != "round_robin" and played:
            fig, ax = plt.subplots(figsize=(6, 4))
            for col in t.col_labels or [None]:
                crs = [c for c in tr.cells if c.cell.col_label == col]
                ours = [c for c in crs if any(c is p for p in played)]
                xs = [float(c.cell.row_label) for c in ours]
                label = f"{col}: " if col else ""
                if exp.kind == "memory":
                    (line,) = ax.plot(xs, [c.bytes for c in ours], "o-", label=f"{label}ours")
                else:
                    ys = [c.match.summary.win_rate_a for c in ours]
                    ci = [c.match.summary.ci95 for c in ours]
                    (line,) = ax.plot(xs, ys, "o-", label=f"{label}ours")
                    lo, hi = [c[0] for c in ci], [c[1] for c in ci]
                    ax.fill_between(xs, lo, hi, alpha=0.2, color=line.get_color())
                src = [
                    (
                        float(c.cell.row_label),
                        source_value(c.cell.source, exp.value, t.source_games),
                    )
                    for c in crs
                ]
                src = [(x, y) for x, y in src if y is not None]
                if src:
                    ax.plot(
                        *zip(*src, strict=True),
                        "x--",
                        color=line.get_color(),
                        label=f"{label}source",
                    )
            if max(xs_all) / max(min(xs_all), 1e-9) >= 20:
                ax.set_xscale("log")
            ax.set_xlabel(t.row_name)
            ax.set_ylabel("bytes" if exp.kind == "memory" else "A's score rate (95% band)")
            if exp.kind != "memory":
                ax.axhline(0.5, color="grey", lw=0.5)
            ax.set_title(f"{exp.title}: {t.title}"[:80], fontsize=9)
            ax.legend(fontsize=7)
            files.append(_save(fig, out_dir / f"{exp.name}-{exp.scale}-t{ti + 1}.png"))
        for ci, cr in enumerate(tr.cells):
            if cr.per_n:
                fig, axes = plt.subplots(1, 3, figsize=(12, 3.5))
                ns = [r["n"] for r in cr.per_n]
                for ax, key, name in zip(
                    axes,
                    ("convincity", "playouts", "path_mean"),
                    ("avg. convincity", "avg. playouts", "avg. path"),
                    strict=True,
                ):
                    ax.plot(ns, [r[key] for r in cr.per_n], "o-", ms=3)
                    ax.set_xlabel("n (counters)")
                    ax.set_ylabel(name)
                fig.suptitle(f"{cr.cell.row_label}: {cr.cell.a}"[:90], fontsize=9)
                files.append(
                    _save(fig, out_dir / f"{exp.name}-{exp.scale}-t{ti + 1}-n{ci + 1}.png")
                )
    return files


def _score_plot(exp: Experiment, tr: TableResult, plt):
    """A score table's figure: per row, the share of games reaching each tile (bars, Wilson 95%
    error bars) and the final scores (box plot with every game as a dot)."""
    import textwrap

    tiles = tiles_of(tr)
    rows = [score_row(cr, tiles) for cr in tr.cells]
    labels = [textwrap.fill(cr.cell.row_label, 18) for cr in tr.cells]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    width = 0.8 / max(len(tiles), 1)
    for k, tile in enumerate(tiles):
        xs = [i + (k - (len(tiles) - 1) / 2) * width for i in range(len(rows))]
        shares = [r["reached"][tile][1] for r in rows]
        err = [
            [p - r["reached"][tile][2][0] for p, r in zip(shares, rows, strict=True)],
            [r["reached"][tile][2][1] - p for p, r in zip(shares, rows, strict=True)],
        ]
        left.bar(xs, shares, width, yerr=err, capsize=2, label=f"≥ {tile}")
    left.set_xticks(range(len(rows)), labels, fontsize=7)
    left.set_ylim(0, 1.05)
    left.set_ylabel("share of games reaching the tile (95% CI)")
    if tiles:
        left.legend(fontsize=7)
    right.boxplot([r["scores"] for r in rows], showfliers=False)
    for i, r in enumerate(rows):
        right.plot([i + 1] * len(r["scores"]), r["scores"], ".", color="black", alpha=0.5)
    right.set_xticks(range(1, len(rows) + 1), labels, fontsize=7)
    right.set_ylabel("final score")
    counts = sorted({r["games"] for r in rows})
    games = " to ".join(str(n) for n in counts[:: max(len(counts) - 1, 1)])
    fig.suptitle(f"{tr.table.title or exp.title} ({games} games a row)"[:110], fontsize=9)
    return fig


def _save(fig, path: Path) -> str:
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return str(path)


def write_report(exp: Experiment, results: list[TableResult], out_dir: Path, meta: dict) -> Path:
    """Write ``NAME-SCALE.md`` and its plots into ``out_dir``; returns the Markdown path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    meta = {**meta, "plots": plots(exp, results, out_dir)}
    path = out_dir / f"{exp.name}-{exp.scale}.md"
    path.write_text(markdown(exp, results, meta) + "\n")
    return path


def describe_run(exp: Experiment, db: str, seconds: float, command: str) -> str:
    from mctslab import __version__

    return (
        f"database `{db}`; {seconds:.0f} s; mctslab {__version__}; "
        f"{time.strftime('%Y-%m-%d')}; reproduce with `{command}`."
    )
