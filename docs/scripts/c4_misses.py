"""Do Connect Four networks miss the same solved positions?

For each network given, the positions of the shipped set (1,000 positions in which some move loses
value, solved by bitbully) where ``az(net=NET,sims=200)`` (seed 0, as ``mctslab bench
connect-four`` plays it) does not keep the value; then how many networks miss each position,
the moves they play there, and the plies at which the positions missed by every network stand.
Run from the repository: ``python docs/scripts/c4_misses.py NET.pt NET.pt ...`` (30-40 s a
network on one quiet core: 84 s and 115 s for three, measured). Discussed in docs/alphazero.md
("Which positions the networks miss").
"""

import sys
from collections import Counter

import mctslab
from mctslab.agents import make_agent
from mctslab.harness import connect_four_positions as c4


def misses(net: str, positions: list[c4.SolvedPosition]) -> dict[int, int]:
    """Position index -> the column (0..6) ``az(net=NET,sims=200)`` plays where it loses value."""
    agent = make_agent(f"az(net={net},sims=200)", mctslab.load_game("connect_four"), seed=0)
    played = zip(positions, c4.played_moves(agent, positions), strict=True)
    return {i: move for i, (p, move) in enumerate(played) if move not in p.keeping}


def main(nets: list[str]) -> None:
    positions = c4.load()
    missed = {net: misses(net, positions) for net in nets}
    for net, m in missed.items():
        print(f"{net}: kept {len(positions) - len(m)} of {len(positions)}")
    by = Counter(i for m in missed.values() for i in m)
    for k in range(len(nets), 0, -1):
        print(f"missed by {k} of {len(nets)}: {sum(1 for c in by.values() if c == k)}")
    every = sorted(i for i, c in by.items() if c == len(nets))
    same = sum(1 for i in every if len({m[i] for m in missed.values()}) == 1)
    print(f"of those missed by all, the same move by all: {same}")
    print("plies of those missed by all:", [len(positions[i].moves) for i in every])
    print(
        "values (1 win, 0 draw) of those missed by all:",
        dict(Counter(positions[i].value for i in every)),
    )


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: python docs/scripts/c4_misses.py NET.pt [NET.pt ...]")
    main(sys.argv[1:])
