"""How often would resigning have lost a game the resigning side went on to win?

Replays the win values every stored decision kept (``search_stats``: the mover, its simulations
and its chosen move's win value) of the committed Go games in ``results/`` and, for each rule,
counts per file the games in which a side's decisions became hopeless (``mctslab.agents.resign``:
at least 500 simulations, the chosen move's win value below the threshold; the stats do not
say whether the move was a pass, so passes count too, which can only add resignations), the
*false* ones (that side won the game as played), and the share of all decisions after the
resignation (what a match would have saved). Games that ended by a resignation or a fault
are left out: they were not played to the end, so whether a resignation was false is not
known. Only searching agents' decisions have win values
(a GTP engine's are 0 simulations and never count). Run from the repository:
``python docs/scripts/resign_replay.py`` (a few seconds). Discussed in docs/strength.md,
"Resigning".
"""

import gzip
import json
from pathlib import Path

from mctslab.agents.resign import MIN_VISITS

RULES = [(0.05, 1), (0.05, 3), (0.03, 1), (0.1, 1), (0.1, 3)]  # (threshold, moves in a row)


def go_games(path: Path) -> list[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return [
        r
        for r in rows
        if str(r.get("game", "")).startswith("go(") and "forfeit" not in r["search_stats"]
    ]


def replay(games: list[dict], threshold: float, in_a_row: int) -> tuple[int, int, int, int]:
    """(resignations, false ones, decisions saved, decisions) over ``games``."""
    resigned = false = saved = total = 0
    for g in games:
        st = g["search_stats"]
        decisions = list(zip(st["player"], st["simulations"], st["win_ratio"], strict=True))
        total += len(decisions)
        for seat in (0, 1):
            run = 0
            for i, (player, sims, value) in enumerate(decisions):
                if player != seat:
                    continue
                run = run + 1 if sims >= MIN_VISITS and value < threshold else 0
                if run >= in_a_row:
                    resigned += 1
                    false += g["returns"][seat] > g["returns"][1 - seat]
                    saved += len(decisions) - i
                    break
    return resigned, false, saved, total


def main() -> None:
    files = {p.name: go_games(p) for p in sorted(Path("results").glob("*.jsonl*"))}
    files = {name: games for name, games in files.items() if games}
    for threshold, in_a_row in RULES:
        print(f"resign below {threshold} on {in_a_row} move(s) in a row:")
        sums = [0, 0, 0, 0]
        for name, games in files.items():
            r, f, s, t = replay(games, threshold, in_a_row)
            sums = [a + b for a, b in zip(sums, (r, f, s, t), strict=True)]
            print(
                f"  {name}: {len(games)} games, {r} resignations, {f} false, "
                f"{s / t:.0%} of the decisions saved"
            )
        print(f"  all: {sums[0]} resignations, {sums[1]} false, {sums[2] / sums[3]:.0%} saved")


if __name__ == "__main__":
    main()
