"""What a game tells the server and the clients runner, as plain data.

A game describes its sign-up rules and how to run a game (or tournament) with the seats
the server signed up (:class:`ServerPlan`), and which clients to launch
(:class:`ClientSpec`). The server and clients in ``gameroom.server`` are written once and
know nothing of any game. Keeping these as data lets games build them without importing
the networking layers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from gameroom.core.match import Seat
from gameroom.core.protocol import Protocol

__all__ = ["SignupRules", "ServerPlan", "ClientSpec", "name_rule"]


def name_rule(pattern: str, max_length: int) -> Callable[[Any], bool]:
    """A predicate for sign-up names: a JSON string of 1..max_length matching ``pattern``."""
    compiled = re.compile(pattern)

    def valid(name: Any) -> bool:
        return isinstance(name, str) and 1 <= len(name) <= max_length and compiled.fullmatch(name) is not None

    return valid


@dataclass(frozen=True)
class SignupRules:
    """How a server signs players up (the games' specs fix each number)."""

    min_players: int
    max_players: int
    periods: int                      # number of waiting periods
    period_seconds: float             # length of one waiting period
    name_first_byte: float            # seconds for the name's first byte to arrive
    name_complete: float              # then seconds for the rest of it
    valid_name: Callable[[Any], bool]
    backlog: int = 30


@dataclass(frozen=True)
class ServerPlan:
    """Everything the game-agnostic server needs to host one game or tournament."""

    protocol: Protocol
    rules: SignupRules
    play: Callable[[Sequence[Seat]], Any]   # runs with remote seats; returns the JSON result
    no_game_result: Any                      # printed when too few players signed up
    error_result: Any                        # printed when the game cannot be run
    house_seats: Callable[[], list[Seat]] = field(default=lambda: [])


@dataclass
class ClientSpec:
    """One client connection to launch.

    ``name`` is the JSON value sent at sign-up (not validated here: bonus clients send bad
    names on purpose). ``behaviour`` is ``"play"`` (serve calls), ``"silent"`` (connect and
    never send anything) or ``"name-only"`` (send the name, then never read or answer).
    """

    name: Any
    player: Any = None
    protocol: Protocol | None = None
    behaviour: str = "play"
    deviations: dict[str, Callable[[Any], bytes | None]] = field(default_factory=dict)
    delay: float = 0.0        # seconds to wait after the previous client was launched
    pad: int = 0              # leading spaces before each message (the reference sends 5000)
    trickle: bool = False     # send messages in small chunks, like the reference client
    # Optional: receives ``ask(message) -> answer`` for side messages (queries) the player
    # may send while answering a call (see ``gameroom.remote.proxy_referee``).
    side_channel: Callable[[Callable[[Any], Any]], None] | None = None
