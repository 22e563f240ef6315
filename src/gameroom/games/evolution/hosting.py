"""Evolution over the network, as data (spec 6, 7, 8.2, 9.2, 9.3): the server's sign-up
rules and game from a configuration, and the clients to launch.

* :func:`server_plan` -- sign-up of 7.1: a JSON string answered by ``"ok"`` (5 s to the
  first byte, 5 s more to complete it), wait for 3 players however long, then up to 10 s
  for each further connection (a failed late sign-up uses up a place, switchable), at most
  8, the last to sign up first in turn order; then one game with the referee's deck and
  1 s per call. The result is the result lines of 3.9.
* :func:`client_specs` -- the clients of ``xclients``: silly clients signing up as
  ``"good guy"``, then one misbehaving client per name (9.3), the i-th created with k = i
  and signing up as ``"<prefix> <i>"``; the sign-up baddies ``ill``, ``huge``, ``deep`` and
  ``infsu`` break sign-up on purpose.

Pure: the game-agnostic ``gameroom.server`` does the networking.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Sequence

from gameroom.core.limits import Limits
from gameroom.core.hosting import ClientSpec, QuorumPolicy, ServerPlan, SignupRules
from gameroom.core.match import Seat
from gameroom.core.record import STATE, Event
from gameroom.core.wire import PlainText
from gameroom.games.evolution.config import Config
from gameroom.games.evolution.harness import result_lines
from gameroom.games.evolution.protocol import PROTOCOL
from gameroom.games.evolution.referee import run_game
from gameroom.games.evolution.players import BADDIES, SIGNUP_BADDIES, BaddiePlayer, SillyPlayer

__all__ = ["signup_rules", "server_plan", "client_specs", "CLIENT_BADDIES", "REFERENCE_PAD"]

CLIENT_BADDIES: tuple[str, ...] = (*BADDIES, *SIGNUP_BADDIES)
"""Every misbehaving client of spec 9.3, in the order of ``xdist-bad``."""
REFERENCE_PAD = 5000
"""Spaces the reference client writes before each message."""

_SIGNUP_BYTES = {"ill": b"[[[[[[[[[", "huge": b"a" * 100}


def signup_rules(config: Config) -> SignupRules:
    """The sign-up rules of 7.1 with the configuration's numbers."""
    server = config.server
    return SignupRules(min_players=server.min_players, max_players=server.max_players, periods=0,
                       period_seconds=0.0, name_first_byte=server.signup_first_byte_s,
                       name_complete=server.signup_complete_s, valid_name=lambda name: isinstance(name, str),
                       backlog=server.backlog,
                       policy=QuorumPolicy(server.extra_player_wait_s, server.count_failed_late_signups),
                       newest_first=True)


def server_plan(config: Config, log: Callable[[str], None] | None = None) -> ServerPlan:
    """How to sign players up and run one game; the result is the result lines."""
    referee = config.referee

    def play(seats: Sequence[Seat]) -> Any:
        observers = [_LogObserver(log)] if config.observer.enabled and log is not None else []
        result = run_game(seats, referee.cards(), limits=Limits(call=referee.call_timeout_s), log=log,
                          extinction_cards=referee.extinction_cards, observers=observers)
        return PlainText("\n".join(result_lines(result.results)))

    nothing = PlainText("\n".join(result_lines([])))
    return ServerPlan(protocol=PROTOCOL, rules=signup_rules(config), play=play, no_game_result=nothing,
                      error_result=nothing, keep_alive=config.server.keep_alive)


class _LogObserver:
    """The observer of spec 8.3 when enabled: the dealer's state (Configuration JSON) at
    the start of every turn, on the server's log; it never pauses the game."""

    def __init__(self, log: Callable[[str], None]) -> None:
        self.log = log

    def __call__(self, event: Event) -> None:
        if event.kind == STATE and event.subject is not None and event.get("event") != "removed":
            self.log(f"observer: {event.get('caption')}: {json.dumps(event.data['state'])}")


def client_spec(kind: str, index: int, *, name: str = "good guy", fat_request: str = "min",
                reference_framing: bool = False, connect_retries: int = 3, retry_wait: float = 2.0) -> ClientSpec:
    """One client: ``silly`` (signs up as `name`) or the `index`-th misbehaving client."""
    pad, trickle = (REFERENCE_PAD, True) if reference_framing else (0, False)
    retry = {"connect_retries": connect_retries, "retry_wait": retry_wait}
    if kind == "silly":
        return ClientSpec(name, SillyPlayer(fat_request), PROTOCOL, pad=pad, trickle=trickle, **retry)
    if kind in BADDIES:
        _method, _misbehave, prefix = BADDIES[kind]
        return ClientSpec(f"{prefix} {index}", BaddiePlayer(kind, index, fat_request), PROTOCOL,
                          pad=pad, trickle=trickle, expects_result=False, **retry)
    if kind == "infsu":
        return ClientSpec(f"infsu {index}", behaviour="silent", **retry)
    if kind == "deep":   # valid JSON, but not a string
        deep: Any = []
        for _ in range(199):
            deep = [deep]
        return ClientSpec(deep, protocol=PROTOCOL, behaviour="name-only", **retry)
    if kind in _SIGNUP_BYTES:
        return ClientSpec(kind, signup_bytes=_SIGNUP_BYTES[kind], **retry)
    raise ValueError(f"unknown client kind {kind!r}; choose from silly, {', '.join(CLIENT_BADDIES)}")


def client_specs(count: int, baddies: Sequence[str] = (), *, name: str = "good guy", fat_request: str = "min",
                 reference_framing: bool = False, connect_retries: int = 3,
                 retry_wait: float = 2.0) -> list[ClientSpec]:
    """`count` silly clients, then one client per misbehaving name (the i-th with k = i);
    each connects with the reference's retries (3 more attempts, 2 s apart) by default."""
    options = {"fat_request": fat_request, "reference_framing": reference_framing,
               "connect_retries": connect_retries, "retry_wait": retry_wait}
    specs = [client_spec("silly", i, name=name, **options) for i in range(count)]
    return specs + [client_spec(kind, i, **options) for i, kind in enumerate(baddies)]
