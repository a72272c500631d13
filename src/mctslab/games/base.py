"""The thin Python wrapper over a game's compiled kernels (the OpenSpiel-like user API).

Only this layer allocates; every method is one call into a compiled kernel. Hot loops (search,
playouts, benchmarks) call the kernels directly on flat arrays instead.
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pydantic

from mctslab import specstr
from mctslab.errors import IllegalMoveError
from mctslab.games.contract import CHANCE_PLAYER, TERMINAL_PLAYER, GameSpec, default_hook

if TYPE_CHECKING:
    from mctslab.games.picture import Picture


class Game:
    """A loaded game: its frozen :class:`GameSpec`, its constants and its kernels module.

    Subclasses set ``NAME``, ``VERSION``, ``Params`` (a strict pydantic model), ``kernels`` and
    implement :meth:`_build`, :meth:`action_to_string`, :meth:`string_to_action` and :meth:`render`.
    The optional hooks a game may provide on top (a board picture, extra agents, rollout
    policies, a learned leaf value...) are declared in :mod:`mctslab.games.contract`.
    """

    NAME: ClassVar[str]
    VERSION: ClassVar[int] = 1
    DESCRIPTION: ClassVar[str] = ""
    Params: ClassVar[type[pydantic.BaseModel]]
    kernels: ClassVar[ModuleType]
    #: optional hook: rollout policy name -> id of the ``policy_playout`` kernel (contract)
    ROLLOUT_POLICIES: ClassVar[dict[str, int]] = {}
    #: optional hook: the agents this game offers beyond the generic ones, ``"module:Class"``
    AGENTS: ClassVar[tuple[str, ...]] = ()
    #: optional hook: the spec, without a budget, of the strongest agent measured for this game
    #: where no shipped AlphaZero network plays it (what ``best(time=T)`` makes, with T added)
    BEST_AGENT: ClassVar[str] = "mcts(preset=strong)"

    def __init__(self, params: pydantic.BaseModel):
        self.params = params
        self.consts, self.spec = self._build(params)
        self.consts = np.ascontiguousarray(self.consts, dtype=np.int32)

    # -- per-game ---------------------------------------------------------------------------
    def _build(self, params: Any) -> tuple[np.ndarray, GameSpec]:
        """Return the int32 constants array and the spec for these parameters."""
        raise NotImplementedError

    def action_to_string(self, player: int, action: int) -> str:
        raise NotImplementedError

    def string_to_action(self, player: int, text: str) -> int:
        """Parse a move; raise :class:`IllegalMoveError` naming the expected format."""
        raise NotImplementedError

    def render(self, state: np.ndarray) -> str:
        """The ASCII board of a raw state array."""
        raise NotImplementedError

    def chance_outcome_to_string(self, outcome: int) -> str:
        return f"chance:{outcome}"

    @default_hook
    def picture(self, state: State) -> Picture | None:
        """Optional hook: the SVG board picture of a state (:mod:`mctslab.games.picture`), or
        None (the default) to be drawn generically."""
        return None

    # -- generic ----------------------------------------------------------------------------
    def legal_mask(self, state: np.ndarray) -> np.ndarray:
        """The legal-action mask of a raw state array: bool ``[num_distinct_actions]``, all
        False at chance and terminal nodes (what a policy network's output is masked by)."""
        mask = np.zeros(self.spec.num_distinct_actions, dtype=bool)
        if self.kernels.current_player(self.consts, state) >= 0:
            out = np.empty(self.spec.num_distinct_actions, dtype=np.int32)
            mask[out[: self.kernels.legal_actions(self.consts, state, out)]] = True
        return mask

    def _spec(self, **fields: Any) -> GameSpec:
        """Helper for :meth:`_build`: fill name, version and the canonical spec string."""
        return GameSpec(
            name=self.NAME,
            version=self.VERSION,
            spec_string=specstr.format_spec(self.NAME, self.params.model_dump()),
            **fields,
        )

    def new_initial_state(self) -> State:
        a = np.zeros(self.spec.state_size, dtype=self.kernels.STATE_DTYPE)
        self.kernels.init_state(self.consts, a)
        return State(self, a)

    def state_from_array(self, array: np.ndarray) -> State:
        """Wrap a copy of a raw state array (e.g. one a search produced)."""
        return State(self, np.array(array, dtype=self.kernels.STATE_DTYPE, copy=True))

    def num_players(self) -> int:
        return self.spec.num_players

    def num_distinct_actions(self) -> int:
        return self.spec.num_distinct_actions

    def __str__(self) -> str:
        return self.spec.spec_string

    def __repr__(self) -> str:
        return f"load_game({self.spec.spec_string!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and other.spec == self.spec

    def __hash__(self) -> int:
        return hash(self.spec)


class State:
    """A game state: a flat array plus its game. ``clone()`` is one array copy."""

    __slots__ = ("_a", "game", "history")

    def __init__(self, game: Game, array: np.ndarray, history: list[int] | None = None):
        self.game = game
        self._a = array
        self.history: list[int] = history if history is not None else []

    @property
    def array(self) -> np.ndarray:
        """The raw state array (shared, not a copy)."""
        return self._a

    def current_player(self) -> int:
        return int(self.game.kernels.current_player(self.game.consts, self._a))

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL_PLAYER

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE_PLAYER

    def legal_actions(self) -> list[int]:
        """Legal decision actions, ascending; empty at chance and terminal nodes."""
        if self.current_player() < 0:
            return []
        out = np.empty(max(1, self.game.spec.num_distinct_actions), dtype=np.int32)
        n = self.game.kernels.legal_actions(self.game.consts, self._a, out)
        return [int(a) for a in out[:n]]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(outcome, probability)`` pairs at a chance node; empty elsewhere."""
        if not self.is_chance_node():
            return []
        k = max(1, self.game.spec.num_chance_outcomes)
        outcomes = np.empty(k, dtype=np.int32)
        probs = np.empty(k, dtype=np.float64)
        n = self.game.kernels.chance_outcomes(self.game.consts, self._a, outcomes, probs)
        return [(int(outcomes[i]), float(probs[i])) for i in range(n)]

    def apply_action(self, action: int) -> None:
        """Play a decision action, or apply a chance outcome at a chance node.

        Raises :class:`IllegalMoveError` (naming the legal choices) for anything else.
        """
        player = self.current_player()
        if player == TERMINAL_PLAYER:
            raise IllegalMoveError("the game is over: no move can be played")
        if player == CHANCE_PLAYER:
            allowed = [o for o, _ in self.chance_outcomes()]
            if action not in allowed:
                raise IllegalMoveError(f"chance outcome {action} is not one of {allowed}")
            self.game.kernels.apply_chance(self.game.consts, self._a, int(action))
        else:
            legal = self.legal_actions()
            if not isinstance(action, int | np.integer) or int(action) not in legal:
                shown = ", ".join(self.game.action_to_string(player, a) for a in legal[:20])
                more = " ..." if len(legal) > 20 else ""
                name = repr(action)
                n = self.game.spec.num_distinct_actions
                if isinstance(action, int | np.integer) and 0 <= action < n:  # by its name
                    name = f"{self.game.action_to_string(player, int(action))} ({action})"
                raise IllegalMoveError(f"illegal move {name}; legal moves: {shown}{more}")
            self.game.kernels.apply_action(self.game.consts, self._a, int(action))
        self.history.append(int(action))

    def apply_move(self, text: str) -> int:
        """Parse a move string for the player to move, play it, and return its action."""
        action = self.string_to_action(text)
        self.apply_action(action)
        return action

    def returns(self) -> list[float]:
        out = np.zeros(self.game.spec.num_players, dtype=np.float64)
        self.game.kernels.returns(self.game.consts, self._a, out)
        return [float(x) for x in out]

    def clone(self) -> State:
        return State(self.game, self._a.copy(), list(self.history))

    def action_to_string(self, action: int, player: int | None = None) -> str:
        if player is None:
            player = self.current_player()
        if player == CHANCE_PLAYER:
            return self.game.chance_outcome_to_string(action)
        return self.game.action_to_string(max(player, 0), action)

    def string_to_action(self, text: str) -> int:
        player = self.current_player()
        if player < 0:
            raise IllegalMoveError("no player is to move in this state")
        return self.game.string_to_action(player, text)

    def __str__(self) -> str:
        return self.game.render(self._a)

    def __repr__(self) -> str:
        return f"<State of {self.game.spec.spec_string} after {len(self.history)} moves>"

    def _repr_svg_(self) -> str:
        """The board as SVG, for Jupyter (:func:`mctslab.games.picture.state_svg`)."""
        from mctslab.games.picture import state_svg  # imported only when drawn

        return state_svg(self)
