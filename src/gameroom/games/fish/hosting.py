"""How the commands host Fish, as data (the descriptor's :data:`HOSTING`; spec 7, 8.2,
9.6, 10.7): a local game for ``play`` and a local knock-out tournament (board, fish,
strategies and look-ahead as options), the server's sign-up rules and tournament from a
server configuration, and the clients to launch.

* :func:`server_plan` -- sign-up of 7.1 (5..10 players, two 30 s periods, names of 1..12
  ASCII letters read within 10 s + 10 s), then a knock-out tournament on 5 x 5 boards with
  2 fish and no holes, 10 s per call (30 s in the first playing round); the result is
  ``[W, F]``, the numbers of winners and of failed or cheating players.
* :func:`client_specs` -- the clients of a line-up: well-behaved players of a strategy and
  the misbehaving clients of 9.6 (in-process baddies, and the wire-level ``no-name``,
  ``invalid-json-setup`` and ``ill-formed-setup``), the reference launcher's 15 s pause before
  the sixth client, names ``P`` + index digits spelled as letters.

Pure: the game-agnostic ``gameroom.server`` does the networking, the command line the
reading and printing.
"""

from __future__ import annotations

import json
import logging
import random
from typing import Any, Callable, Sequence

from gameroom.core.context import MatchContext
from gameroom.core.hosting import (ClientHosting, ClientPlan, ClientSpec, Hosting, LocalMatch, PlayHosting, RoomHosting,
                                   ServerHosting, ServerPlan, SignupRules, TournamentHosting, TournamentPlan, name_rule)
from gameroom.core.limits import Limits
from gameroom.core.match import Seat, guarded_seat, trusted_seat
from gameroom.core.misbehaviour import hang
from gameroom.core.options import (ConfigurationError, Option, OptionError, Options, players_option,
                                   strategies_option)
from gameroom.games.fish.actors import BADDIES, SCENARIO_KINDS, Misbehaviour, ill_formed_setup, invalid_json_setup
from gameroom.games.fish.config import ServerConfig, decode_server_config
from gameroom.games.fish.narrator import narrator as fish_narrator
from gameroom.games.fish.players import BaddiePlayer, QueryingPlayer, StrategyPlayer
from gameroom.games.fish.protocol import CLIENT_HICCUP, MANAGER_BOARD, PROTOCOL
from gameroom.games.fish.queries import WireQueries
from gameroom.games.fish.referee import run_game
from gameroom.games.fish.state import GameState, penguins_per_player
from gameroom.games.fish.strategies import STRATEGY_NAMES, make_strategy
from gameroom.games.fish.tournament import run_fish_tournament

__all__ = ["NO_TOURNAMENT", "signup_rules", "server_plan", "client_name", "client_kinds", "client_specs",
           "CLIENT_KINDS", "canonical_kind", "client_spec", "house_seats", "HOSTING"]

logger = logging.getLogger(__name__)

NO_TOURNAMENT = [0, 0]
"""``[W, F]`` when too few players signed up (or the tournament could not be run)."""

_DIGITS = ("z", "o", "tw", "th", "fo", "fi", "si", "se", "e", "nine")

# Each kind once (scenario kinds repeat some baddies' names), in a stable order.
CLIENT_KINDS: tuple[str, ...] = tuple(dict.fromkeys((*STRATEGY_NAMES, "querying", *BADDIES, *SCENARIO_KINDS)))
"""Every kind of client a line-up may name: strategies, the query-using player, baddies
(and their names in ``scenarios.json``)."""


def signup_rules(config: ServerConfig) -> SignupRules:
    """The sign-up rules of 7.1 with the configuration's numbers."""
    return SignupRules(min_players=config.min_players, max_players=config.max_players,
                       periods=config.server_tries, period_seconds=config.server_wait,
                       name_first_byte=config.name_timeout, name_complete=config.name_timeout,
                       valid_name=name_rule(r"[A-Za-z]+", 12), name_rule="1 to 12 ASCII letters (fish.md 7.1)")


def house_seats(config: ServerConfig) -> list[Seat]:
    """The configured house players (greedy), who sign up before everyone else."""
    names = [client_name(i, "House") for i in range(config.house_players)]
    return [trusted_seat(name, StrategyPlayer(make_strategy("greedy"), name)) for name in names]


class RoundLog:
    """The tournament observer of ``"observe": true``: each round's games, their winners
    and the end, as lines for the server's log (this module's logger)."""

    def __init__(self) -> None:
        self.round = 0

    def show_next_round(self, games: list[list[str]]) -> None:
        self.round += 1
        logger.info(f"round {self.round}: " + "  |  ".join(", ".join(game) for game in games))

    def show_winners(self, winners: list[list[str]]) -> None:
        logger.info(f"round {self.round} winners: " + "  |  ".join(", ".join(w) or "none" for w in winners))

    def show_end(self, winners: list[str], failures: list[str]) -> None:
        logger.info(f"tournament over: winners {', '.join(winners) or 'none'}; failed {', '.join(failures) or 'none'}")


def server_plan(config: ServerConfig) -> ServerPlan:
    """How to sign players up and run the tournament; the result is ``[W, F]``."""

    def play(seats: Sequence[Seat]) -> Any:
        observers = [RoundLog()] if config.observe else []
        result = run_fish_tournament(seats, rows=config.rows, columns=config.cols, fish=config.fish,
                                     time_limit=config.time_per_turn, ready_time=config.ready_time,
                                     start_limit=config.start_timeout, observers=observers)
        return result.counts()

    return ServerPlan(protocol=PROTOCOL, rules=signup_rules(config), play=play, no_game_result=NO_TOURNAMENT,
                      error_result=NO_TOURNAMENT, house_seats=lambda: house_seats(config))


def client_name(index: int, prefix: str = "P") -> str:
    """A client's name: `prefix` + the digits of `index` spelled as letters (0 z, 1 o, 2 tw,
    ...), as the reference launcher names its clients (letters only, so always valid)."""
    return prefix + "".join(_DIGITS[int(d)] for d in str(index))


def canonical_kind(kind: str) -> str:
    """A client kind with ``scenarios.json``'s short baddie names (``bad-as``, ...) resolved."""
    return SCENARIO_KINDS.get(kind) or kind if kind in SCENARIO_KINDS else kind


def client_kinds(count: int, strategy: str = "greedy", baddies: Sequence[str] = (),
                 baddies_first: bool = False) -> list[str]:
    """The line-up: `count` players of `strategy` and the named baddies (after them, or
    before them with `baddies_first`), in sign-up order."""
    ordinary = [strategy] * count
    bad = [canonical_kind(b) for b in baddies]
    unknown = [b for b in bad if b not in CLIENT_KINDS]
    if unknown:
        raise ValueError(f"unknown client kind {unknown[0]!r}; choose from {', '.join(CLIENT_KINDS)}")
    return bad + ordinary if baddies_first else ordinary + bad


def _deviation(misbehaviour: Misbehaviour) -> Callable[[Any], bytes | None]:
    """The raw reply of a wire-level baddie in place of its correct ``setup`` reply."""
    def deviate(reply: Any) -> bytes | None:
        position = (reply[0], reply[1])
        if misbehaviour is Misbehaviour.INVALID_JSON_SETUP:
            return (json.dumps(invalid_json_setup(position)) + "\n").encode()
        return ill_formed_setup(position).encode()
    return deviate


def client_spec(kind: str, name: str, *, depth: int = 1, seed: int = 0, delay: float = 0.0,
                reference_framing: bool = False) -> ClientSpec:
    """One client of a kind: a strategy name, ``querying``, or a baddie."""
    pad, trickle = (2040, True) if reference_framing else (0, False)
    kind = canonical_kind(kind)
    if kind in STRATEGY_NAMES:
        player = StrategyPlayer(make_strategy(kind, depth=depth, rng=random.Random(seed)), name)
        return ClientSpec(name, player, PROTOCOL, delay=delay, pad=pad, trickle=trickle)
    if kind == "querying":
        querying = QueryingPlayer(name)
        return ClientSpec(name, querying, PROTOCOL, delay=delay, pad=pad, trickle=trickle,
                          side_channel=lambda ask: querying.use_queries(WireQueries(ask)))
    baddie = BADDIES[kind]
    if baddie.misbehaviour is Misbehaviour.NO_NAME:
        return ClientSpec(name, behaviour="silent", delay=delay)
    if baddie.remote:
        player = StrategyPlayer(make_strategy("greedy"), name)
        return ClientSpec(name, player, PROTOCOL, deviations={"setup": _deviation(baddie.misbehaviour)},
                          delay=delay, pad=pad, trickle=trickle)
    return ClientSpec(name, BaddiePlayer(baddie, name, hang=hang), PROTOCOL, delay=delay, pad=pad, trickle=trickle,
                      expects_result=False)


def client_specs(kinds: Sequence[str], *, depth: int = 1, seed: int = 0, hiccup: float = CLIENT_HICCUP,
                 reference_framing: bool = False) -> list[ClientSpec]:
    """The clients of a line-up in sign-up order, pausing `hiccup` seconds before the sixth
    (the reference launcher's pause, half a sign-up period)."""
    return [client_spec(kind, client_name(i), depth=depth, seed=seed + i, delay=hiccup if i == 5 else 0.0,
                        reference_framing=reference_framing)
            for i, kind in enumerate(kinds)]


# -- the commands (the descriptor's HOSTING) ----------------------------------------------------

NAMES = ("Astrid", "Billybob", "Claus", "Doris")   # the reference's observed game
LOCAL_BADDIES = tuple(b for b, v in BADDIES.items() if not v.remote)


def _game_options(players: Option) -> tuple[Option, ...]:
    """What a local game and a tournament share: players, seed, strategies, board."""
    return (players,
            Option("seed", int, 1, "seed of the random fish and players (default 1)"),
            strategies_option(STRATEGY_NAMES, ["greedy"]),
            Option("depth", int, 2, "look-ahead of maximin players, 1..4 (default 2)", low=1, high=4),
            Option("rows", int, MANAGER_BOARD[0], "board rows (default 5)"),
            Option("columns", int, MANAGER_BOARD[1], "board columns (default 5)"),
            Option("fish", int, None, "fish on every tile, 1..5 (default: random 1..5)", low=1, high=5))


def _check_board(options: Options) -> None:
    rows, columns = options["rows"], options["columns"]
    if not (2 <= rows <= 25 and 2 <= columns <= 25):
        raise OptionError(f"the board must have 2..25 rows and columns, got {rows} x {columns}")


def _player(strategy: str, name: str, depth: int, seed: int) -> StrategyPlayer:
    return StrategyPlayer(make_strategy(strategy, depth=depth, rng=random.Random(seed)), name)


def _label(strategy: str, depth: int) -> str:
    return f"maximin depth {depth}" if strategy == "maximin" else strategy


def local_match(options: Options) -> LocalMatch:
    """Astrid, Billybob, ... with the strategies in turn on the board given, no time
    limits; a player that breaks a rule is "removed" (fish.md's word)."""
    _check_board(options)
    strategies, seed, depth = options["strategies"], options["seed"], options["depth"]
    names = NAMES[: options["players"]]
    seats = [trusted_seat(name, _player(strategies[i % len(strategies)], name, depth, seed + i))
             for i, name in enumerate(names)]
    state = GameState.create(options["rows"], options["columns"], len(seats), fish=options["fish"],
                             rng=random.Random(seed))
    board = "random fish" if options["fish"] is None else f"{options['fish']} fish per tile"
    opening = (f"Fish on a {options['rows']} x {options['columns']} board ({board}), seed {seed}: "
               + ", ".join(f"{s.name} ({p.color.value}, {_label(strategies[i % len(strategies)], depth)})"
                           for i, (p, s) in enumerate(zip(state.players, seats))))
    narrator = fish_narrator(state, [s.name for s in seats], opening)
    return LocalMatch(run=lambda observers: run_game(seats, state,
                                                     context=MatchContext(limits=Limits(), observers=observers)),
                      narrator=narrator, dropped="removed")


TOURNAMENT_OPTIONS = (*_game_options(Option("players", int, None, "number of players, 1..100", low=1, high=100,
                                            required=True)),
                      Option("baddie", str, None, "add a misbehaving player (repeatable): " + ", ".join(LOCAL_BADDIES),
                             choices=LOCAL_BADDIES, repeat=True, metavar="NAME"))


def local_tournament(options: Options) -> TournamentPlan:
    """Players ``P0``, ``P1``, ... of the strategies in turn, then the misbehaving ``Bad0``,
    ... (guarded seats); 1 s per call."""
    _check_board(options)
    strategies, seed, depth = options["strategies"], options["seed"], options["depth"]
    seats: list[Seat] = [trusted_seat(f"P{i}", _player(strategies[i % len(strategies)], f"P{i}", depth, seed + i))
                         for i in range(options["players"])]
    bots = {s.name: {"name": s.name, "builtin": strategies[i % len(strategies)]} for i, s in enumerate(seats)}
    for i, baddie in enumerate(options["baddie"]):
        seat = guarded_seat(f"Bad{i}", BaddiePlayer(baddie, f"Bad{i}", hang=hang))
        seats.append(seat)
        bots[seat.name] = {"name": seat.name, "builtin": baddie}
    rows, columns, fish = options["rows"], options["columns"], options["fish"]
    opening = (f"Fish tournament: {len(seats)} players ({', '.join(strategies)}"
               f"{', ' + ', '.join(options['baddie']) if options['baddie'] else ''}), {rows} x {columns} boards, "
               f"seed {seed}")

    def run(observers: Sequence[Any], game_observers: Callable[[list[Seat]], Any]) -> Any:
        return run_fish_tournament(seats, rows=rows, columns=columns, fish=fish, seed=seed, time_limit=1.0,
                                   ready_time=1.0, start_limit=1.0, observers=observers,
                                   game_observers=game_observers)

    return TournamentPlan(seats, run, [opening], bots, {"rows": rows, "columns": columns, "fish": fish})


def configure_server(values: Sequence[Any], _options: Options) -> ServerConfig:
    if len(values) > 1:
        raise ConfigurationError(f"expected at most one server configuration on standard input, "
                                 f"got {len(values)} JSON values")
    return decode_server_config(values[0])


CLIENT_OPTIONS = (
    Option("count", int, 5, "number of well-behaved clients, 0..100 (default 5)", low=0, high=100),
    Option("strategy", str, "greedy", "their strategy (default greedy; querying asks the server for legal moves)",
           choices=[*STRATEGY_NAMES, "querying"]),
    Option("depth", int, 1, "look-ahead of maximin clients, 1..4 (default 1)", low=1, high=4),
    Option("seed", int, 0, "seed of random clients (default 0)"),
    Option("baddie", str, None, "misbehaving clients after the others: " + ", ".join(BADDIES), many=True,
           metavar="NAME"),
    Option("baddies-first", flag=True, help="the misbehaving clients sign up first"),
    Option("hiccup", float, CLIENT_HICCUP, f"seconds to pause before the sixth client (default {CLIENT_HICCUP:g})",
           check=lambda value: _not_negative("--hiccup", value)),
    Option("reference-framing", flag=True,
           help="pad every message with 2040 spaces and trickle it, as the reference client does"),
    Option("verbose", flag=True, help="log each client's session on standard error"),
)


def _not_negative(option: str, value: float) -> None:
    if value < 0:
        raise OptionError(f"{option} must not be negative, got {value:g}")


def plan_clients(values: Sequence[Any], options: Options) -> ClientPlan:
    """The line-up of the options (Fish's clients read nothing on standard input)."""
    if values:
        raise ConfigurationError("fish clients take their options on the command line, not on standard input")
    try:
        kinds = client_kinds(options["count"], options["strategy"], options["baddie"], options["baddies_first"])
    except ValueError as exc:
        raise OptionError(str(exc)) from None
    if not kinds:
        raise OptionError("no clients: give --count or --baddie")
    specs = client_specs(kinds, depth=options["depth"], seed=options["seed"], hiccup=options["hiccup"],
                         reference_framing=options["reference_framing"])
    return ClientPlan(specs, "127.0.0.1", quiet=not options["verbose"])


ROOM_OPTIONS = (
    Option("rows", int, MANAGER_BOARD[0], f"board rows, 2..8 (default {MANAGER_BOARD[0]})", low=2, high=8),
    Option("columns", int, MANAGER_BOARD[1], f"board columns, 2..8 (default {MANAGER_BOARD[1]})", low=2, high=8),
    Option("fish", int, None, "fish on every tile, 1..5 (default: random 1..5)", low=1, high=5),
)
"""A lobby room's board (the tournament manager's 5 x 5 with random fish by default)."""


def _check_room(options: Options, players: int) -> None:
    tiles, penguins = options["rows"] * options["columns"], players * penguins_per_player(players)
    if tiles < penguins:
        raise OptionError(f"a {options['rows']} x {options['columns']} board has {tiles} tiles, too few for the "
                          f"{penguins} penguins of {players} players")


def play_room(seed: int, seats: Sequence[Seat], options: Options, context: MatchContext) -> Any:
    """A lobby room's game on the room's board, fish drawn from ``seed``."""
    state = GameState.create(options["rows"], options["columns"], len(seats), fish=options["fish"],
                             rng=random.Random(seed))
    return run_game(seats, state, context)


HOSTING = Hosting(
    rooms=RoomHosting(ROOM_OPTIONS, play_room, check=_check_room),
    play=PlayHosting((*_game_options(players_option(2, 4, 4)),), local_match),
    server=ServerHosting(lambda config, _options: server_plan(config if config is not None else ServerConfig()),
                         configure_server,
                         lambda _options: "the spec's defaults (5..10 players, 2 periods of 30 s, 10 s per turn, "
                                          "5 x 5 boards with 2 fish)"),
    clients=ClientHosting(plan_clients, CLIENT_OPTIONS),
    tournament=TournamentHosting(TOURNAMENT_OPTIONS, local_tournament),
    configs="gameroom.games.fish",
    examples=("server.json",),
)
