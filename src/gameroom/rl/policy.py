"""A trained agent as an ordinary player of a game's interface.

``gameroom.rl.policy_player(game, policy, **options)`` is an in-process player: every call the
referee makes goes to a seat coder of the game's encoding (the same the environments
use); a call that asks for a decision asks ``policy`` — a callable from an observation
dict (``observation``, ``action_mask``, as the environments give them) to an action
index — for sub-actions until the turn is complete, and returns the game's answer. So a
trained agent can sit wherever a player can: a league bots file (``policy =
"module:callable"``), a Gymnasium environment's opponent seat, a tournament.

A masked-out action is not corrected: it goes to the referee like the environments send
it, and the referee ejects the player. The options must be those the policy was trained
with (a Fish policy for 5 x 5 boards refuses a 4 x 4 board with a clear reason).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gameroom.core.learning import Answer, LearningTable, SeatCoder
from gameroom.games import registry
from gameroom.rl.spaces import Encoder

__all__ = ["PolicyPlayer"]

Policy = Callable[[dict[str, Any]], Any]


class PolicyPlayer:
    """A player driven by a policy through a table's encoding (see the module)."""

    def __init__(self, table: LearningTable, policy: Policy, name: str = "policy") -> None:
        self._table = table
        self._policy = policy
        self._name = name
        self._encoder = Encoder(table)
        self._methods = frozenset(m.name for m in registry.game(table.game).protocol.methods)
        self._coder: SeatCoder = table.coder()

    def name(self) -> str:
        return self._name

    def __getattr__(self, method: str) -> Callable[..., Any]:
        if method not in self._methods:
            raise AttributeError(method)
        return lambda *args: self._call(method, args)

    def _call(self, method: str, args: tuple[Any, ...]) -> Any:
        # One coder for every game this player sits in: each game's opening call (Fish's
        # playing-as, Q's and Bazaar's setup, Eriantys's setup, Evolution's start) tells
        # it what the last game's left behind.
        turn = self._coder.turn(method, args)
        if turn is None:
            return None
        if isinstance(turn, Answer):
            return turn.value
        encoder = self._encoder
        while True:
            legal = list(turn.legal())
            observation = {"observation": encoder.observation(turn.observation()), "action_mask": encoder.mask(legal)}
            action = int(self._policy(observation))
            if action not in legal:
                return turn.refuse(action)   # or ForbiddenAction: the call fails either way
            if turn.choose(action):
                return turn.answer()
