"""How the commands host Evolution, as data (the descriptor's :data:`HOSTING`; spec 6, 7,
8.2, 9.2, 9.3): a local game for ``play`` (deck, baddies and fat requests as options), the
server's sign-up rules and game from a configuration, and the clients to launch.

* :func:`server_plan` -- sign-up of 7.1: a JSON string answered by ``"ok"`` (5 s to the
  first byte, 5 s more to complete it), wait for 3 players however long, then up to 10 s
  for each further connection (a failed late sign-up uses up a place, switchable), at most
  8, the last to sign up first in turn order; then one game with the referee's deck and
  1 s per call. The result is the result lines of 3.9.
* :func:`client_specs` -- the clients of ``xclients``: silly clients signing up as
  ``"good guy"``, then one misbehaving client per name (9.3), the i-th created with k = i
  and signing up as ``"<prefix> <i>"``; the sign-up baddies ``ill``, ``huge``, ``deep`` and
  ``infsu`` break sign-up on purpose.

Pure: the game-agnostic ``gameroom.server`` does the networking, the command line the
reading and printing.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Sequence

from gameroom.core.context import MatchContext
from gameroom.core.limits import Limits
from gameroom.core.hosting import (ClientHosting, ClientPlan, ClientSpec, Hosting, LocalMatch, PlayHosting, RoomHosting,
                                   QuorumPolicy, ServerHosting, ServerPlan, SignupRules)
from gameroom.core.match import Seat, guarded_seat, trusted_seat
from gameroom.core.options import ConfigurationError, Option, OptionError, Options, seed_option
from gameroom.core.record import STATE, Event
from gameroom.core.wire import PlainText
from gameroom.games.evolution.config import Config, decode_config
from gameroom.games.evolution.harness import result_lines
from gameroom.games.evolution.narrator import EvolutionNarrator
from gameroom.games.evolution.pieces import MAX_PLAYERS, MIN_PLAYERS, shuffled_deck, sorted_deck
from gameroom.games.evolution.protocol import PROTOCOL
from gameroom.games.evolution.referee import run_game
from gameroom.games.evolution.players import BADDIES, FAT_REQUESTS, SIGNUP_BADDIES, BaddiePlayer, SillyPlayer

__all__ = ["signup_rules", "server_plan", "client_specs", "CLIENT_BADDIES", "REFERENCE_PAD", "HOSTING"]

logger = logging.getLogger(__name__)

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
                       name_complete=server.signup_complete_s, valid_name=lambda name: isinstance(name, str), name_rule="a JSON string (evolution.md 7.1)",
                       backlog=server.backlog,
                       policy=QuorumPolicy(server.extra_player_wait_s, server.count_failed_late_signups),
                       newest_first=True)


def server_plan(config: Config) -> ServerPlan:
    """How to sign players up and run one game; the result is the result lines."""
    referee = config.referee

    def play(seats: Sequence[Seat]) -> Any:
        observers = [_LogObserver()] if config.observer.enabled else []
        context = MatchContext(limits=Limits(call=referee.call_timeout_s), observers=observers)
        result = run_game(seats, referee.cards(), context, extinction_cards=referee.extinction_cards)
        return PlainText("\n".join(result_lines(result.results)))

    nothing = PlainText("\n".join(result_lines([])))
    return ServerPlan(protocol=PROTOCOL, rules=signup_rules(config), play=play, no_game_result=nothing,
                      error_result=nothing, keep_alive=config.server.keep_alive, single_thread=True)


class _LogObserver:
    """The observer of spec 8.3 when enabled: the dealer's state (Configuration JSON) at
    the start of every turn (not at the steps within), on the server's log; it never
    pauses the game (the lines are this module's logger's)."""

    def __call__(self, event: Event) -> None:
        if event.kind == STATE and event.subject is not None and event.get("event") == "turn":
            # the log's words stay "turn N" (the caption now also names the turn order)
            logger.info(f"observer: turn {event.get('turn')}: {json.dumps(event.data['state'])}")


def client_spec(kind: str, index: int, *, name: str = "good guy", fat_request: str = "min",
                reference_framing: bool = False, connect_retries: int = 3, retry_wait: float = 2.0) -> ClientSpec:
    """One client: ``silly`` (signs up as `name`) or the `index`-th misbehaving client."""
    pad, trickle = (REFERENCE_PAD, True) if reference_framing else (0, False)
    retry: dict[str, Any] = {"connect_retries": connect_retries, "retry_wait": retry_wait}
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
    options: dict[str, Any] = {"fat_request": fat_request, "reference_framing": reference_framing,
               "connect_retries": connect_retries, "retry_wait": retry_wait}
    specs = [client_spec("silly", i, name=name, **options) for i in range(count)]
    return specs + [client_spec(kind, i, **options) for i, kind in enumerate(baddies)]


# -- the commands (the descriptor's HOSTING) ----------------------------------------------------

DECKS = ("sorted", "shuffled")

PLAY_OPTIONS = (
    Option("players", int, 3, f"silly players; with the baddies {MIN_PLAYERS}..{MAX_PLAYERS} in all (default 3)"),
    seed_option("seed of the shuffled deck"),
    Option("deck", str, "sorted", "the reference's sorted deck (default) or a deck shuffled by --seed",
           choices=list(DECKS)),
    Option("baddie", str, None, "add a misbehaving player, in-process (repeatable): " + ", ".join(BADDIES),
           choices=list(BADDIES), repeat=True, metavar="NAME"),
    Option("fat-request", str, "min", "how much fat food silly players ask for (default min)", choices=FAT_REQUESTS),
)


def local_match(options: Options) -> LocalMatch:
    """Silly players ``0``, ``1``, ... on trusted seats, then the baddies in-process on
    guarded seats; the reference's sorted deck or one shuffled by ``--seed``."""
    total = options["players"] + len(options["baddie"])
    if not MIN_PLAYERS <= total <= MAX_PLAYERS:
        raise OptionError(f"a game needs {MIN_PLAYERS}..{MAX_PLAYERS} players in all, got {total}")
    fat = options["fat_request"]
    seats = [trusted_seat(str(i), SillyPlayer(fat)) for i in range(options["players"])]
    seats += [guarded_seat(name, BaddiePlayer(name, i, fat)) for i, name in enumerate(options["baddie"])]
    shuffled = options["deck"] == "shuffled"
    deck = shuffled_deck(options["seed"]) if shuffled else sorted_deck()
    opening = (f"Evolution: {total} players ({', '.join(f'{s.name}#{i + 1}' for i, s in enumerate(seats))}), "
               f"{options['deck']} deck" + (f" (seed {options['seed']})" if shuffled else ""))
    return LocalMatch(run=lambda observers: run_game(seats, deck, context=MatchContext(observers=observers)),
                      narrator=EvolutionNarrator([opening]), summary=False)


def configure(values: Sequence[Any], _options: Options) -> Config:
    """The optional configuration of spec 8.2 (its server, referee and client sections)."""
    if len(values) > 1:
        raise ConfigurationError(f"expected at most one configuration on standard input, got {len(values)} JSON values")
    return decode_config(values[0]) if values else Config()


CLIENT_OPTIONS = (
    Option("count", int, 3, "number of silly clients (default 3)"),
    Option("baddie", str, None, "misbehaving clients after the silly ones (the i-th with k = i): "
           + ", ".join(CLIENT_BADDIES), many=True, metavar="NAME"),
    Option("reference-framing", flag=True,
           help="pad every message with 5000 spaces and trickle it, as the reference client does"),
    Option("verbose", flag=True, help="log each client's session on standard error"),
)


def plan_clients(values: Sequence[Any], options: Options) -> ClientPlan:
    """``gameroom clients evolution``: 3 <= count + #baddies <= 8 (spec 7.2); an optional
    configuration on standard input gives the client section (host, sign-up name)."""
    config = configure(values, options)
    unknown = [b for b in options["baddie"] if b not in CLIENT_BADDIES]
    if unknown:
        raise OptionError(f"unknown baddie {unknown[0]!r}; choose from {', '.join(CLIENT_BADDIES)}")
    total = options["count"] + len(options["baddie"])
    if options["count"] < 0 or not MIN_PLAYERS <= total <= MAX_PLAYERS:
        raise OptionError(f"clients need {MIN_PLAYERS}..{MAX_PLAYERS} connections in all (--count plus --baddie), "
                          f"got {total}")
    specs = client_specs(options["count"], options["baddie"], name=config.client.name,
                         fat_request=config.referee.silly_fat_request, reference_framing=options["reference_framing"],
                         connect_retries=config.client.connect_retries, retry_wait=config.client.retry_wait_s)
    return ClientPlan(specs, config.client.host, quiet=not options["verbose"])


ROOM_OPTIONS = (Option("deck", str, "shuffled", "a deck shuffled by the room's seed (default) or the reference's "
                       "sorted deck", choices=list(DECKS)),)


def play_room(seed: int, seats: Sequence[Seat], options: Options, context: MatchContext) -> Any:
    """A lobby room's game with the room's deck (shuffled by ``seed``, or sorted)."""
    deck = shuffled_deck(seed) if options["deck"] == "shuffled" else sorted_deck()
    return run_game(seats, deck, context)


HOSTING = Hosting(
    rooms=RoomHosting(ROOM_OPTIONS, play_room),
    play=PlayHosting(PLAY_OPTIONS, local_match, roster=None),
    server=ServerHosting(lambda config, _options: server_plan(config if config is not None else Config()),
                         configure,
                         lambda _options: "the spec's defaults (3..8 players, 10 s per extra player, 1 s per call, "
                                          "the sorted deck)"),
    clients=ClientHosting(plan_clients, CLIENT_OPTIONS, done="(good bye)"),
    configs="gameroom.games.evolution",
    examples=("server.json", "clients.json"),
)
