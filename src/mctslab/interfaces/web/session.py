"""One game in the web app: the position, who plays each side, and the agents' live searches.

An agent moves by its own search (``agent.search(state, budget)``, the same search as in a match:
every key of its spec, ``workers`` included, is honoured), run in a worker thread. The session's
stop and cancel are the ``stop`` event of the search's :class:`~mctslab.search.budget.Budget`,
which the search looks at between chunks of a few milliseconds.

An agent that keeps its tree between searches (``mcts``, whose ``reuse`` is on by default) is
given its budget in slices of about :data:`LIVE_CHUNK` seconds on the same position: each slice
goes on growing the agent's own tree (:func:`mctslab.interfaces.treeviz.search_tree`; for
root-parallel search the first worker's), so that after every slice the page can be sent the visit
counts, win rates, principal variation, speed and tree size so far, and the tree can be drawn.
Other agents (``flat``, ``random``, ``mdp``, or ``mcts(reuse=false)``, whose tree a second search
would start afresh) search in one call and are shown when they finish.

An agent with a ``resign`` key (``mcts``, ``az``) resigns here as in a match
(:mod:`mctslab.agents.resign`): its resigner sees each finished decision, and when it gives up the
game is over, lost by that agent (``undo`` takes the resignation back with the moves).

Every public method takes the session lock; user errors raise :class:`MctslabError` subclasses
whose message names the problem (the app turns them into JSON errors).
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, replace

from mctslab.agents import Agent
from mctslab.agents.warmup import make_announced
from mctslab.errors import IllegalMoveError, MctslabError, SpecError
from mctslab.games.base import State
from mctslab.games.registry import load_game
from mctslab.harness.game import forfeit_returns
from mctslab.interfaces.render import Overlay, move_strings, off_board_actions, state_svg
from mctslab.interfaces.treeviz import search_tree, to_dot, tree_top
from mctslab.search import SearchResult, Tree
from mctslab.search.budget import Budget

#: seconds of search between two live updates
LIVE_CHUNK = 0.1
#: root moves listed in the live table
TOP_MOVES = 12
HUMAN = "human"


class ConflictError(MctslabError):
    """The request does not fit the session's current state (e.g. a move while the agent
    thinks); HTTP 409."""


@dataclass
class Seat:
    """Who plays one side: ``agent`` None for a human."""

    spec: str
    agent: Agent | None = None
    #: the agent's own search tree (None if it keeps none)
    tree: Tree | None = None
    #: whether the agent's searches go on growing one tree, so that it can search in slices
    live: bool = False


class Session:
    """A game between humans and/or agents (``players[i]`` is ``"human"`` or an agent spec)."""

    def __init__(self, sid: str, game_spec: str, players: list[str], seed: int):
        self.id = sid
        self.game = load_game(game_spec)
        n = self.game.num_players()
        if len(players) != n:
            raise SpecError(
                f"{self.game.spec.spec_string} has {n} player(s): give {n} players "
                f"('human' or an agent spec), got {len(players)}"
            )
        self.seats: list[Seat] = []
        for i, p in enumerate(players):
            if not isinstance(p, str) or not p.strip():
                raise SpecError(f"player {i + 1}: expected 'human' or an agent spec like 'mcts'")
            if p.strip().lower() == HUMAN:
                self.seats.append(Seat(HUMAN))
                continue
            agent = make_announced(p, self.game, seed + i)
            self.seats.append(Seat(agent.spec_string, agent, search_tree(agent), agent.live))
        self.rng = random.Random(seed)
        self.lock = threading.RLock()
        #: held while a search slice runs, so that the tree can be read between slices
        self.tree_lock = threading.Lock()
        self.version = 0
        self.message = ""
        self.paused = False
        #: the player who resigned (the game is then over), else None
        self.resigned: int | None = None
        self.state = self.game.new_initial_state()
        self.moves: list[str] = []
        self._settle()
        self.positions: list[State] = [self.state.clone()]
        self.search: dict | None = None
        self._overlay: Overlay | None = None
        self._searched: State | None = None  # the position of the latest search
        self._tree: Tree | None = None  # the tree of the latest search, if it has one
        self._worker: threading.Thread | None = None
        #: the stop event of every search's budget: set by stop and by cancel
        self._stop = threading.Event()
        self._cancel = threading.Event()
        self.touched = time.monotonic()

    # -- helpers (call with the lock held) ------------------------------------------------------
    def _bump(self) -> None:
        self.version += 1

    def _settle(self) -> None:
        """Play chance events with their probabilities until a player is to move."""
        while self.state.is_chance_node():
            outcomes = self.state.chance_outcomes()
            (o,) = self.rng.choices([o for o, _ in outcomes], weights=[p for _, p in outcomes])
            self.moves.append(f"({self.state.action_to_string(o)})")
            self.state.apply_action(o)

    def _apply(self, action: int) -> None:
        self.moves.append(self.state.action_to_string(action))
        self.state.apply_action(action)
        self._settle()
        self.positions.append(self.state.clone())
        self._bump()

    @property
    def over(self) -> bool:
        """Whether the game has ended, by the rules or by a resignation."""
        return self.resigned is not None or self.state.is_terminal()

    def _seat_to_move(self, state: State | None = None) -> Seat | None:
        p = (state or self.state).current_player()
        return self.seats[p] if p >= 0 else None

    def _human_to_move(self, state: State) -> bool:
        seat = self._seat_to_move(state)
        return seat is not None and seat.agent is None

    @property
    def thinking(self) -> bool:
        return self._worker is not None

    # -- actions --------------------------------------------------------------------------------
    def play(self, action: int | None = None, move: str | None = None) -> None:
        """A human's move, by action number or move string."""
        with self.lock:
            self.touched = time.monotonic()
            if self.thinking:
                raise ConflictError("an agent is thinking: wait for its move or press Stop")
            if self.over:
                raise ConflictError("the game is over: start a new game or undo")
            seat = self._seat_to_move()
            if seat is None or seat.agent is not None:
                raise ConflictError(
                    f"it is the agent's turn ({seat.spec if seat else 'nobody'}), not a human's: "
                    "press Play on to let it move"
                )
            if move is not None:
                action = self.state.string_to_action(move)
            n = self.game.num_distinct_actions()
            if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < n:
                raise IllegalMoveError(f"an action must be an integer 0..{n - 1}, got {action!r}")
            legal = self.state.legal_actions()
            if action not in legal:
                raise IllegalMoveError(
                    f"illegal move {self.state.action_to_string(action)}: "
                    f"not one of the {len(legal)} legal moves here"
                )
            self.message = ""
            self._apply(action)
            self._start()

    def begin(self) -> None:
        """Start the agent's search if an agent is to move in the first position."""
        with self.lock:
            self._start()
            self._bump()

    def resume(self) -> None:
        """Let the agents play on (after a pause, or to start a game between two agents)."""
        with self.lock:
            self.touched = time.monotonic()
            if self.over:
                raise ConflictError("the game is over: start a new game or undo")
            seat = self._seat_to_move()
            if seat is None or seat.agent is None:
                raise ConflictError("it is a human's turn: click a move")
            self.paused = False
            self._start()
            self._bump()

    def stop(self) -> None:
        """End the running search now; the agent plays the best move found so far. In a game
        without humans the agents then pause (``resume`` plays on)."""
        with self.lock:
            if not self.thinking:
                raise ConflictError("no search is running")
            if all(s.agent is not None for s in self.seats):
                self.paused = True
            self._stop.set()
            self._bump()

    def undo(self) -> None:
        """Take back moves: to the previous position where a human was to move, or (with no
        human) one move, pausing the agents. A running search is abandoned."""
        self._halt()
        with self.lock:
            self.touched = time.monotonic()
            if len(self.positions) < 2:
                raise ConflictError("nothing to undo")
            if any(s.agent is None for s in self.seats):
                i = len(self.positions) - 2
                while i >= 0 and not self._human_to_move(self.positions[i]):
                    i -= 1
                if i < 0:
                    raise ConflictError("nothing to undo: no earlier position with a human to move")
            else:
                i = len(self.positions) - 2
                self.paused = True
            keep = len(self.positions[i].history)
            del self.positions[i + 1 :]
            self.state = self.positions[i].clone()
            self.moves = self.moves[:keep]  # one string per action or chance event
            self.message = ""
            self.resigned = None
            for s in self.seats:
                if s.agent is not None:
                    s.agent.resigner.reset()
            self._bump()

    def close(self) -> None:
        """Abandon any search (the session is being dropped)."""
        self._halt()

    def _halt(self) -> None:
        """Cancel the running search without playing its move, and wait for the worker."""
        with self.lock:
            worker = self._worker
            self._cancel.set()
            self._stop.set()
        if worker is not None:
            worker.join()
        with self.lock:
            self._cancel.clear()

    # -- the worker -----------------------------------------------------------------------------
    def _start(self) -> None:
        seat = self._seat_to_move()
        if self.thinking or self.paused or self.over or seat is None or seat.agent is None:
            return
        self._stop.clear()
        self._worker = threading.Thread(target=self._run, name=f"search-{self.id}", daemon=True)
        self._worker.start()

    def _run(self) -> None:
        try:
            while True:
                with self.lock:
                    seat = self._seat_to_move()
                    if self._cancel.is_set() or seat is None or seat.agent is None:
                        return
                    state = self.state.clone()
                try:
                    result = self._think(seat, state)
                except MctslabError as exc:
                    with self.lock:
                        self.message = f"{seat.spec}: {exc}"
                        self.paused = True
                    return
                with self.lock:
                    if result is None or self._cancel.is_set():
                        return
                    pass_action = getattr(self.game, "pass_action", None)
                    if seat.agent.resigner.gives_up(result, pass_action):
                        self.resigned = state.current_player()
                        self.message = f"{seat.spec} {seat.agent.resigner.reason()}"
                        self._bump()
                        return
                    self._apply(result.action)
                    # Stop ends the search it finds, even one not yet begun, with a move; in a
                    # game between agents it also pauses them, from here
                    if self.paused:
                        return
                    self._stop.clear()
        except Exception as exc:  # never let a worker die silently
            with self.lock:
                self.message = f"internal error in the search: {type(exc).__name__}: {exc}"
                self.paused = True
        finally:
            with self.lock:
                self._worker = None
                if self.search is not None:
                    self.search["running"] = False
                self._bump()

    def _think(self, seat: Seat, state: State) -> SearchResult | None:
        """Search ``state`` with ``seat``'s agent; publish after every slice. The last slice's
        result (its root holds the whole search), or None if cancelled."""
        agent = seat.agent
        budget = agent.budget
        start = time.perf_counter()
        if not seat.live or budget is None:
            # one search; its tree (if any) is not to be read until it has finished
            with self.tree_lock, self.lock:
                self._tree = None
            result = agent.search(
                state, None if budget is None else replace(budget, stop=self._stop)
            )
            self._publish(seat, state, result, result.simulations, result.elapsed, seat.tree)
            return None if self._cancel.is_set() else result
        sims, seconds = budget.sims, budget.seconds
        done = 0
        while True:
            elapsed = time.perf_counter() - start
            chunk = LIVE_CHUNK if seconds is None else max(1e-3, min(LIVE_CHUNK, seconds - elapsed))
            # the tree, and which position it is of, change together under the tree lock
            with self.tree_lock:
                result = agent.search(
                    state,
                    Budget(
                        sims=None if sims is None else sims - done, seconds=chunk, stop=self._stop
                    ),
                )
                done += result.simulations
                elapsed = time.perf_counter() - start
                finished = (
                    (sims is not None and done >= sims)
                    or (seconds is not None and elapsed >= seconds)
                    or result.proven != 0
                    or result.simulations == 0
                )
                stopped = self._stop.is_set() or self._cancel.is_set()
                running = not (finished or stopped)
                self._publish(seat, state, result, done, elapsed, seat.tree, running)
            if self._cancel.is_set():
                return None
            if finished or stopped:
                return result

    def _publish(self, seat, state, result, sims, elapsed, tree, running=False) -> None:
        priors = list(getattr(result, "priors", None) or [])
        ranked = sorted(
            zip(
                result.actions,
                result.visits,
                result.values,
                priors or [None] * len(result.actions),
                strict=False,
            ),
            key=lambda t: -t[1],
        )
        info = {
            "player": state.current_player(),
            "agent": seat.spec,
            "running": running,
            "simulations": int(sims),
            "elapsed": round(elapsed, 3),
            "sims_per_second": round(sims / elapsed) if elapsed > 0 else 0,
            "nodes": int(result.nodes),
            "depth_max": int(result.depth_max),
            "move": state.action_to_string(result.action),
            "win_ratio": round(float(result.win_ratio), 4),
            "proven": int(result.proven),
            "solved_value": result.solved_value,
            "pv": move_strings(state, result.pv),
            # the network's value (in [-1, 1] for the mover) as a win rate, like the moves'
            "network_value": (
                None
                if getattr(result, "network_value", None) is None
                else round((1.0 + float(result.network_value)) / 2.0, 4)
            ),
            "moves": [
                {
                    "action": int(a),
                    "move": state.action_to_string(a),
                    "visits": int(n),
                    "value": round(float(q), 4),
                    **({} if p is None else {"prior": round(float(p), 4)}),
                }
                for a, n, q, p in ranked[:TOP_MOVES]
            ],
            "has_tree": tree is not None,
        }
        with self.lock:
            self.search = info
            self._overlay = Overlay.from_result(result)
            self._searched = state
            self._tree = tree
            self._bump()

    # -- views ----------------------------------------------------------------------------------
    def view(self) -> dict:
        """Everything the page shows, as JSON-ready data."""
        with self.lock:
            state = self.state
            overlay = None
            searched = self._searched
            if searched is not None and self._overlay is not None:
                # the search of the position shown, or of the one before the last move
                before = self.positions[-2].history if len(self.positions) > 1 else None
                if searched.history in (state.history, before):
                    overlay = self._overlay
            seat = self._seat_to_move()
            human = seat is not None and seat.agent is None
            return {
                "id": self.id,
                "version": self.version,
                "game": self.game.spec.spec_string,
                "game_name": self.game.NAME,
                "players": [s.spec for s in self.seats],
                "to_move": state.current_player(),
                "terminal": self.over,
                "returns": (
                    forfeit_returns(self.game, self.resigned)
                    if self.resigned is not None
                    else state.returns()
                    if state.is_terminal()
                    else None
                ),
                "resigned": self.resigned,
                "status": (
                    f"player {self.resigned + 1} ({self.seats[self.resigned].spec}) resigned"
                    if self.resigned is not None
                    else str(state).splitlines()[-1]
                ),
                "text": str(state),
                "moves": list(self.moves),
                "board_svg": state_svg(state, overlay),
                "buttons": [
                    {"action": a, "move": state.action_to_string(a)}
                    for a in (off_board_actions(state) if human else [])
                ],
                "human_to_move": human,
                "thinking": self.thinking,
                "paused": self.paused,
                "can_undo": len(self.positions) > 1,
                "message": self.message,
                "search": self.search,
                "search_shown_on_board": overlay is not None,
            }

    def tree_dot(self, depth: int, width: int) -> str:
        """DOT source of the top of the latest search tree."""
        with self.tree_lock:
            with self.lock:
                tree, state, info = self._tree, self._searched, self.search
            if tree is None or state is None or info is None:
                raise ConflictError(
                    "no search tree yet: an mcts agent draws its tree once it has searched"
                )
            top = tree_top(tree, state, depth, width)
        title = (
            f"{self.game.spec.spec_string}\n{info['agent']}\n"
            f"{info['simulations']:,} simulations, move {info['move']}"
        )
        return to_dot(top, title)
