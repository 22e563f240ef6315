"""The Eriantys harness of eriantys.md 10.2: ``xgame`` — an in-process match from a
referee configuration (8.3); the output is the JSON array of winners, preceded with
``--log`` by every broadcast of the game, one per line. (``xscenario`` replays protocol
scenarios against the lobby server of a later issue.)"""

from __future__ import annotations

from typing import Any, Callable

from gameroom.core.match import Seat, guarded_seat, trusted_seat
from gameroom.core.context import MatchContext
from gameroom.core.limits import Limits
from gameroom.core.wire import WireError
from gameroom.games.eriantys.config import RefereeConfig, decode_referee_config
from gameroom.games.eriantys.players import EriantysPlayer
from gameroom.games.eriantys.referee import run_game
from gameroom.games.eriantys.strategies import STRATEGIES

__all__ = ["HARNESSES", "xgame", "seats_for", "BroadcastLog"]


class BroadcastLog:
    """An observer that keeps every broadcast, in order."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def __call__(self, event: Any) -> None:
        if event.kind == "message":
            self.messages.append(event.data["message"])


def seats_for(config: RefereeConfig) -> list[Seat]:
    """Built-in strategies sit at trusted seats; misbehaving players at guarded (timed) ones."""
    seats = []
    for i, (name, kind) in enumerate(config.players):
        player = EriantysPlayer(name, kind, _rng(config.seed, i))
        seats.append(trusted_seat(name, player) if kind in STRATEGIES else guarded_seat(name, player))
    return seats


def _rng(seed: int, seat: int) -> Any:
    import random

    return random.Random(seed * 131 + seat)


def xgame(inputs: list[Any], log: bool = False, observers: list[Any] | None = None) -> list[Any]:
    if len(inputs) != 1:
        raise WireError(f"expected one referee configuration, got {len(inputs)} JSON values", "$")
    config = decode_referee_config(inputs[0])
    record = BroadcastLog()
    context = MatchContext(limits=Limits(call=config.decision_timeout), observers=[record, *(observers or [])])
    outcome = run_game(seats_for(config), config.seed, context, expert=config.expert, hooks=config.hooks)
    return [*(record.messages if log else []), outcome.winners]


HARNESSES: dict[str, Callable[..., list[Any]]] = {"xgame": xgame}
