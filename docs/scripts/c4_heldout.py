"""Connect Four networks on positions none of them was chosen on.

A network shipped as the best of several snapshots on the benchmark set (1,000 solved positions,
``mctslab bench connect-four``) has a figure that is optimistic by that choice. This script draws
a second set the same way (``connect_four_positions.generate``, another seed), leaves out every
position the shipped set holds (compared as boards, so other move orders count too), and plays
``az(net=NET,sims=200)`` (seed 0, as the benchmark does) on it for each network given: the count
kept and its Wilson 95% interval. Run from the repository: ``python docs/scripts/c4_heldout.py
NET.pt [NET.pt ...]`` (``--seed S``, default 1; ``--count N``, default 1,000; the set takes about
80 s to draw, each network about 40 s on one quiet core). Discussed in docs/alphazero.md.
"""

import argparse

import mctslab
from mctslab.agents import make_agent
from mctslab.harness import connect_four_positions as c4


def held_out(count: int, seed: int) -> list[c4.SolvedPosition]:
    """``count`` positions drawn with ``seed``, none of them on a board of the shipped set."""
    return c4.generate(count, seed, exclude={c4.board_id(p) for p in c4.load()})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("nets", nargs="+", metavar="NET.pt")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=1000)
    args = parser.parse_args()
    positions = held_out(args.count, args.seed)
    print(f"{len(positions)} positions (seed {args.seed}), none on a board of the shipped set")
    game = mctslab.load_game("connect_four")
    for net in args.nets:
        r = c4.keep_rate(make_agent(f"az(net={net},sims=200)", game, seed=0), positions)
        low, high = 100 * r["wilson_low"], 100 * r["wilson_high"]
        print(f"{net}: kept {r['kept']} of {r['positions']} (Wilson 95% [{low:.1f}, {high:.1f}])")


if __name__ == "__main__":
    main()
