"""``docs/reproduction.md``: every source table beside ours, with a verdict per cell.

:func:`page` reads each experiment's games at a scale (from ``results/NAME.sqlite`` when it
exists, else from the committed export ``experiments/games/NAME.jsonl.gz``,
:mod:`.archive`), plays nothing, and sets out per cell: the games, our rate ± 2σ (the NoGo
paper's 2·sqrt(p(1−p)/n)) with the Wilson 95% interval, the source's figure and a verdict
(:func:`verdict`). The hand-written part (the findings, each *differs*'s tested explanation,
the plan of the runs) is ``experiments/reproduction-notes.md``, set at the top of the page.
"""

from __future__ import annotations

import re
import statistics
from pathlib import Path

from mctslab.harness import stats
from mctslab.harness.experiments import archive
from mctslab.harness.experiments.report import (
    plots,
    round_robin_table,
    score_table,
    source_value,
)
from mctslab.harness.experiments.runner import CellResult, TableResult, collect, timed
from mctslab.harness.experiments.spec import Experiment, load
from mctslab.harness.store import ResultsStore

#: the verdicts, as the page prints them
AGREES, SAME, DIFFERS = "agrees", "same direction", "differs"


def source_interval(text: str | None, value: str, source_games: int | None):
    """The source's 95% interval for its figure: its printed ``± 2σ`` (``56 % ± 5%``,
    ``52.9 ± .015``: a ``%`` or a number above 1 is in points), the Wilson interval of its
    counts (``w/(w+l)=r``; wins of ``source_games``), or None when it prints neither."""
    if not text:
        return None
    t = text.replace(",", "")
    m = re.search(r"([0-9]+)/\(([0-9]+)\+([0-9]+)\)", t)
    if m:
        w, n = int(m.group(1)), int(m.group(2)) + int(m.group(3))
        return stats.wilson_interval(w, n)
    x = source_value(text, value, source_games)
    if x is None:
        return None
    if value == "wins" and source_games:
        return stats.wilson_interval(x * source_games, source_games)
    m = re.search(r"±\s*([0-9]*\.?[0-9]+)\s*(%?)", t)
    if not m:
        return None
    half = float(m.group(1))
    if m.group(2) or half > 1.0:
        half /= 100.0
    return (max(0.0, x - half), min(1.0, x + half))


def verdict(cr: CellResult, value: str, source_games: int | None) -> str | None:
    """*agrees* when the source's figure is inside our Wilson 95% interval and ours inside the
    source's interval (:func:`source_interval`; our interval alone when it prints none);
    *same direction* when the source's figure and our whole Wilson interval are on the same
    side of 50% (a point estimate on the source's side whose interval still holds 50% decides
    nothing); else *differs*. None without a source figure or a game."""
    x = source_value(cr.cell.source, value, source_games)
    if x is None or cr.match is None or cr.match.summary.games == 0:
        return None
    s = cr.match.summary
    lo, hi = s.ci95
    theirs = source_interval(cr.cell.source, value, source_games)
    inside = lo <= x <= hi and (theirs is None or theirs[0] <= s.win_rate_a <= theirs[1])
    if inside:
        return AGREES
    if (lo - 0.5) * (x - 0.5) > 0 and (hi - 0.5) * (x - 0.5) > 0:
        return SAME
    return DIFFERS


def sims_per_move(cr: CellResult) -> tuple[float, float]:
    """Mean simulations per decision of A and of B over the cell's games."""
    per = {True: [], False: []}
    for row in cr.match.rows:
        st = row["search_stats"]
        for p, n in zip(st.get("player", []), st.get("simulations", []), strict=False):
            per[p == row["seat_a"]].append(n)
    return tuple(statistics.fmean(per[k]) if per[k] else 0.0 for k in (True, False))


def _load_text(cr: CellResult) -> str:
    if not cr.load:
        return "—"
    ones = [x[0] for x in cr.load]
    return f"{statistics.fmean(ones):.1f} (max {max(ones):.1f}) on {cr.load[0][3]} cores"


def _ours(cr: CellResult) -> tuple[str, str]:
    s = cr.match.summary
    if s.games == 0:
        return "not run", ""
    lo, hi = s.ci95
    return (
        f"{100 * s.win_rate_a:.1f}% ± {100 * s.two_sigma:.1f}",
        f"[{100 * lo:.1f}, {100 * hi:.1f}]",
    )


def _match_table(exp: Experiment, tr: TableResult, full) -> list[str]:
    """A match table; ``full`` is the same table at the paper scale, whose cells the scale
    leaves out are listed as cut (the source's figure, no games)."""
    t = tr.table
    is_timed = any(timed(cr.cell) for cr in tr.cells)
    head = f"| {t.row_name} |" + (" column |" if t.col_labels else "")
    head += " games | ours ± 2σ | Wilson 95% | source | verdict |"
    if is_timed:
        head += " sims/move A · B | load (1 min) |"
    lines = [head, "|" + " --- |" * (head.count("|") - 1)]
    for cr in tr.cells:
        ours, wil = _ours(cr)
        games = cr.match.summary.games
        shown = f"{games}/{t.games}" if games < t.games else str(games)
        v = verdict(cr, exp.value, t.source_games)
        if v and games < t.games:
            v += " (so far)"
        src = cr.cell.source or "—"
        if exp.value == "wins" and cr.cell.source and t.source_games:
            x = source_value(cr.cell.source, exp.value, t.source_games)
            src = f"{cr.cell.source}/{t.source_games} = {100 * x:.1f}%"
        row = f"| {cr.cell.row_label} |" + (f" {cr.cell.col_label} |" if t.col_labels else "")
        row += f" {shown} | {ours} | {wil} | {src} | {v or '—'} |"
        if is_timed:
            a, b = sims_per_move(cr) if games else (0.0, 0.0)
            row += f" {a:,.0f} · {b:,.0f} | {_load_text(cr)} |"
        lines.append(row)
    kept = {(cr.cell.row_label, cr.cell.col_label) for cr in tr.cells}
    for c in full.cells if full is not None else []:
        if (c.row_label, c.col_label) not in kept:
            row = f"| {c.row_label} |" + (f" {c.col_label} |" if t.col_labels else "")
            row += f" cut | not played at this scale | | {c.source or '—'} | — |"
            lines.append(row + (" | |" if is_timed else ""))
    first = tr.cells[0].cell
    lines += ["", f"A = `{first.a}`, B = `{first.b}` (first cell)."]
    return lines


def _memory_table(tr: TableResult) -> list[str]:
    """Bytes and nodes per z; the verdict compares the shape, each row relative to the first
    (the paper's whole-heap bytes are not ours): *agrees* within 10%, *same direction* when
    both fall below the first row, else *differs*."""
    lines = [
        f"| {tr.table.row_name} | ours | ours / first row | source | source / first row "
        "| verdict |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    base_ours = tr.cells[0].bytes
    base_src = source_value(tr.cells[0].cell.source, "bytes", None)
    for cr in tr.cells:
        src = source_value(cr.cell.source, "bytes", None)
        if not cr.bytes or not base_ours or src is None or not base_src:
            rel, rel_src, v = "—", "—", "—"
        else:
            r, rs = cr.bytes / base_ours, src / base_src
            rel, rel_src = f"{r:.3f}", f"{rs:.3f}"
            v = AGREES if abs(r - rs) <= 0.1 * rs else SAME if (r < 1) == (rs < 1) else DIFFERS
        ours = f"{cr.bytes:,.0f} bytes ({cr.nodes:,.0f} nodes)" if cr.bytes else "not run"
        lines.append(
            f"| {cr.cell.row_label} | {ours} | {rel} | {cr.cell.source} | {rel_src} | {v} |"
        )
    return lines


def _other_table(exp: Experiment, tr: TableResult) -> list[str]:
    """Round robins and score tables: no source figures, so our games only, as the
    experiment's own report sets them out, and the games played of the scale's."""
    if exp.kind == "score":
        played = [len(cr.score.games) for cr in tr.cells]
        return [*score_table(tr), "", _played(played, tr.table.games)]
    played = [cr.match.summary.games for cr in tr.cells]
    return [*round_robin_table(tr), "", _played(played, tr.table.games)]


def _played(played: list[int], needed: int) -> str:
    done = sum(n >= needed for n in played)
    games = f"{sum(played)}/{needed * len(played)} games"
    return f"{done} of {len(played)} rows or pairs complete ({games})."


def _open(name: str, results: Path, exports: Path) -> tuple[ResultsStore, str]:
    """The experiment's games: its database, else its export, else none (an empty database in
    memory, so that the page still sets out the source's tables)."""
    db = results / f"{name}.sqlite"
    if db.is_file():
        return ResultsStore(db, readonly=True), f"`{db}`"
    path = archive.path_for(name, exports)
    if path.is_file():
        return archive.read(path), f"`{path}`"
    return ResultsStore(":memory:"), "no games yet"


def page(
    names: list[str],
    scale: str,
    results: Path,
    exports: Path,
    notes: Path | None,
    figures: Path | None = None,
) -> tuple[str, dict[str, int]]:
    """The Markdown page and the count of each verdict. With ``figures`` (a folder beside the
    page), each experiment with games gets its report's figures there (A's rate against the
    row variable with the Wilson band and the source's figures; bytes; tiles and scores),
    linked from the page as ``FOLDER/NAME-SCALE-tK.png``."""
    counts = {AGREES: 0, SAME: 0, DIFFERS: 0}
    body: list[str] = []
    summary = [
        "| experiment | what | games | hours searched | agrees | same direction | differs | data |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    explanations = [
        "| experiment (explains) | what | games | hours searched | agrees | same direction "
        "| differs | data |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for name in names:
        exp = load(name, scale)
        store, where = _open(exp.name, results, exports)
        with store:
            res = collect(exp, store)
        body += [f"## {exp.title} (`{name}`)", "", f"Source: {exp.source}", ""]
        if exp.notes:
            body += [exp.notes.strip(), ""]
        mine = {AGREES: 0, SAME: 0, DIFFERS: 0}
        played = needed = 0
        seconds = 0.0
        full = load(name, "paper").tables
        for tr, whole in zip(res, full, strict=True):
            if tr.table.title:
                body += [f"### {tr.table.title}", ""]
            if exp.kind == "memory":
                body += _memory_table(tr)
            elif exp.kind == "match":
                body += _match_table(exp, tr, whole)
                for cr in tr.cells:
                    v = verdict(cr, exp.value, tr.table.source_games)
                    if v:
                        mine[v] += 1
            else:
                body += _other_table(exp, tr)
            body.append("")
            for cr in tr.cells:
                needed += tr.table.games if exp.kind != "memory" else 0
                if cr.match is not None:
                    played += cr.match.summary.games
                    seconds += sum(sum(r["move_seconds"]) for r in cr.match.rows)
                elif cr.score is not None:
                    played += len(cr.score.games)
                    seconds += sum(g["seconds"] for g in cr.score.games)
        if figures is not None:  # plots() draws only the tables with games
            figures.mkdir(parents=True, exist_ok=True)
            for f in plots(exp, res, figures):
                body += [f"![{Path(f).stem}]({figures.name}/{Path(f).name})", ""]
        named = f"`{exp.name}` (`{exp.explains}`)" if exp.explains else f"`{exp.name}`"
        row = (
            f"| {named} | {exp.title} | {played}/{needed} | {seconds / 3600:.2f} "
            f"| {mine[AGREES]} | {mine[SAME]} | {mine[DIFFERS]} | {where} |"
        )
        if exp.explains:  # a tested explanation: its verdicts are not the source tables'
            explanations.append(row)
            continue
        for k in counts:
            counts[k] += mine[k]
        summary.append(row)
    head = [
        "# Reproducing the sources' tables",
        "",
        f"Generated by `mctslab experiment report --scale {scale}` from the games of each "
        "experiment (`results/NAME.sqlite`, else the committed `experiments/games/NAME.jsonl.gz`); "
        "do not edit by hand: the text before the tables is `experiments/reproduction-notes.md`.",
        "",
        "Ours: A's win rate ± 2σ (two standard deviations, as the NoGo paper prints it) and the "
        "Wilson 95% interval (draws count half). Verdict: *agrees* when the source's figure is "
        "inside our Wilson interval and ours inside the source's (its printed ± 2σ, or the "
        "Wilson interval of its counts); *same direction* when the source's figure and our whole "
        "Wilson interval are on the same side of 50%; "
        "*differs* otherwise. A cell with fewer games than the scale's shows `played/needed` and "
        "a provisional verdict (*so far*). Hours searched: the seconds every move of every game "
        "took, added up (with one game per core, the wall-clock is about half on 2 cores).",
        "",
    ]
    if notes is not None and notes.is_file():
        head += [notes.read_text().strip(), ""]
    head += ["## Summary", "", *summary, ""]
    if len(explanations) > 2:
        head += [
            "Explanations tested: each runs the agents of the experiment it explains with one "
            "change, against the same source figures; *agrees* there means the change accounts "
            "for the difference. Their verdicts are not counted above.",
            "",
            *explanations,
            "",
        ]
    return "\n".join(head + body), counts
