"""Connect Four positions solved by a perfect solver: the benchmark of value-keeping moves.

A move *keeps the value* of a position when the position's game-theoretic value for the mover
(win, draw or loss, under perfect play) is also the value after that move. The benchmark set holds
positions in which some legal move would lose value, so a random move does not trivially keep it;
an agent's score is the share of positions where its move keeps the value (issue 18's target:
``az`` at 200 simulations keeps it in >= 95% of 1,000 such positions).

The solver is ``bitbully`` (PyPI, pinned in ``pyproject.toml``): ``score_all_moves`` gives each
legal move a score whose sign is the value for the mover (positive a win, 0 a draw, negative a
loss). The set is drawn from games of mixed strength: in each game each player has its own
error rate ``eps``, drawn uniformly from [0, 1], and plays a uniformly random legal move with
probability ``eps``, else a uniformly chosen value-keeping move; one position per game is kept,
drawn uniformly among the game's positions in which some move loses value and that the set does
not hold yet (a position reached by other move orders counts once). The shipped set
(``benchmark_sets/connect_four.txt``) was made by :func:`generate` with its defaults
(``python -m mctslab.harness.connect_four_positions``); a line is the moves from the empty board
as columns 1..7 (``-`` for none), the value for the mover (1, 0 or -1), and the value-keeping
columns.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

#: the shipped benchmark set (package data)
SHIPPED = "connect_four.txt"


@dataclass(frozen=True)
class SolvedPosition:
    """A position as its moves from the empty board (columns 0..6), its value for the mover
    (1 win, 0 draw, -1 loss) and the columns that keep it."""

    moves: tuple[int, ...]
    value: int
    keeping: frozenset[int]

    def line(self) -> str:
        """The position as a line of the set's file (module docstring)."""
        moves = "".join(str(c + 1) for c in self.moves) or "-"
        return f"{moves} {self.value} {''.join(str(c + 1) for c in sorted(self.keeping))}"

    @classmethod
    def parse(cls, line: str) -> SolvedPosition:
        moves, value, keeping = line.split()
        return cls(
            tuple(int(c) - 1 for c in moves.strip("-")),
            int(value),
            frozenset(int(c) - 1 for c in keeping),
        )


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def solve(solver, board) -> dict[int, int]:
    """Column (0..6) -> the value for the mover (1, 0, -1) of playing it, for each legal move."""
    return {int(c): _sign(int(s)) for c, s in solver.score_all_moves(board).items()}


def generate(count: int = 1000, seed: int = 0, exclude: Iterable[int] = ()) -> list[SolvedPosition]:
    """``count`` positions in which some move loses value, one per game of mixed strength
    (module docstring), seeded, none on a board whose solver id (``bitbully.Board.uid``) is in
    ``exclude`` (a second set apart from the first: :func:`board_id`)."""
    import bitbully

    rnd = random.Random(seed)
    solver = bitbully.BitBully()
    out: list[SolvedPosition] = []
    seen = set(exclude)
    while len(out) < count:
        eps = (rnd.random(), rnd.random())
        board, moves, found = bitbully.Board(), [], []
        while not board.is_game_over():
            values = solve(solver, board)
            best = max(values.values())
            keeping = frozenset(c for c, v in values.items() if v == best)
            if len(keeping) < len(values) and board.uid() not in seen:
                found.append((board.uid(), SolvedPosition(tuple(moves), best, keeping)))
            legal = sorted(values)
            if rnd.random() < eps[len(moves) % 2]:
                move = rnd.choice(legal)
            else:
                move = rnd.choice(sorted(keeping))
            board.play(move)
            moves.append(move)
        if found:
            uid, position = rnd.choice(found)
            seen.add(uid)
            out.append(position)
    return out


def board_id(position: SolvedPosition) -> int:
    """The solver's id of the board the position's moves reach (one id for every move order)."""
    import bitbully

    return bitbully.Board.from_moves(list(position.moves)).uid()


def load(path: str | Path | None = None) -> list[SolvedPosition]:
    """The positions of a set's file (``path`` None: the shipped set)."""
    if path is None:
        text = resources.files("mctslab.harness").joinpath("benchmark_sets", SHIPPED).read_text()
    else:
        text = Path(path).read_text()
    return [SolvedPosition.parse(s) for s in text.splitlines() if s.strip() and s[0] != "#"]


def played_moves(agent, positions: list[SolvedPosition]) -> Iterator[int]:
    """The column ``agent`` (an :class:`~mctslab.agents.base.Agent` of ``connect_four``) plays in
    each position, one after the other, each from a fresh search (``reset`` first)."""
    game = agent.game
    for p in positions:
        state = game.new_initial_state()
        for move in p.moves:
            state.apply_action(move)
        agent.reset()
        yield agent.step(state)


def keep_rate(agent, positions: list[SolvedPosition], report=None) -> dict:
    """How often ``agent`` (an :class:`~mctslab.agents.base.Agent` of ``connect_four``) plays a
    value-keeping move: the count, the share and its Wilson 95% interval."""
    from mctslab.harness.stats import wilson_interval

    kept = 0
    for i, (p, move) in enumerate(zip(positions, played_moves(agent, positions), strict=True)):
        kept += move in p.keeping
        if report is not None:
            report(i + 1, kept)
    n = len(positions)
    low, high = wilson_interval(kept, n)
    return {"positions": n, "kept": kept, "rate": kept / n, "wilson_low": low, "wilson_high": high}


def main() -> None:
    """Write the shipped set (``python -m mctslab.harness.connect_four_positions [COUNT]``)."""
    import sys

    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    target = Path(__file__).parent / "benchmark_sets" / SHIPPED
    lines = [p.line() for p in generate(count)]
    header = f"# {count} Connect Four positions: moves (columns 1..7), value for the mover, keeping"
    target.write_text("\n".join([header, *lines]) + "\n")
    print(f"{target}: {count} positions")


if __name__ == "__main__":
    main()
