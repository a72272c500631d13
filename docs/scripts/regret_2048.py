"""How far from its own best move does flat greedy-rollout MCTS play in 2048's middle game?

Positions: the decision points with a score of 24,000-60,000 (and more than one legal move) of
four games (seeds 0-3) by ``mdp(d=1,c=1000,rollout_depth=0,rollout=greedy,sims=300)``; 60 of
them drawn at random (numpy seed 0). Gold values: 20,000 greedy rollouts per legal move (uniform
allocation, ``c=1e9``), i.e. each move's expected score to come under greedy rollouts, within a
few points. An agent's regret in a position is ``Q_gold(best) - Q_gold(its move)``, three agent
seeds per position. Run from the repository: ``python docs/scripts/regret_2048.py`` (about a minute
on one core; 42 s measured). Discussed in docs/chance-and-mdp.md.
"""

import numpy as np

import mctslab
from mctslab.agents import make_agent
from mctslab.harness.arena import play_game

AGENT = "mdp(d=1,rollout_depth=0,rollout=greedy,{})"
AGENTS = ["c=1000,sims=2000", "c=1000,sims=4000", "c=1000,sims=8000", "c=1e9,sims=4000"]


def middle_game_positions(game, n: int) -> list:
    """``n`` decision states drawn from the middle games of four short-budget games."""
    found = []
    for seed in range(4):
        agent = make_agent(AGENT.format("c=1000,sims=300"), game, seed=seed)
        record = play_game(game, [agent], rng_seed=seed)
        state = game.new_initial_state()
        for move in record.moves:
            live = not state.is_chance_node() and len(state.legal_actions()) > 1
            if live and 24000 <= state.returns()[0] <= 60000:
                found.append(state.clone())
            state.apply_action(move)
    picks = np.random.default_rng(0).choice(len(found), n, replace=False)
    return [found[i] for i in picks]


def main() -> None:
    game = mctslab.load_game("2048")
    positions = middle_game_positions(game, 60)
    regret = {a: [] for a in AGENTS}
    gaps = []
    for state in positions:
        sims = 20000 * len(state.legal_actions())
        gold = make_agent(AGENT.format(f"c=1e9,sims={sims}"), game, seed=99).search(state)
        q = dict(zip(gold.actions, gold.values, strict=True))
        best = max(q.values())
        gaps.append(best - sorted(q.values())[-2])
        for a in AGENTS:
            for seed in range(3):
                move = make_agent(AGENT.format(a), game, seed=seed).search(state).action
                regret[a].append(best - q[move])
    print(f"{len(positions)} positions; median gold gap best - second {np.median(gaps):.1f}")
    for a, r in regret.items():
        r = np.array(r)
        share = np.mean(r > 0)
        print(f"{a:18s} mean regret {r.mean():6.2f}, max {r.max():7.1f}, not best {share:.2f}")


if __name__ == "__main__":
    main()
