"""What a game tells the command line, the server and the clients runner, as plain data.

A game describes its sign-up rules and how to run a game (or tournament) with the seats
the server signed up (:class:`ServerPlan`), and which clients to launch
(:class:`ClientSpec`). The server and clients in ``gameroom.server`` are written once and
know nothing of any game. Keeping these as data lets games build them without importing
the networking layers.

The descriptor's :class:`Hosting` says how each command hosts the game: its options (as
``core.options.Option`` data), a local game for ``play`` (:class:`LocalMatch`, with a
``core.narration.Narrator`` for the lines it prints), the server plan and client plan
(:class:`ServerHosting`, :class:`ClientHosting`, built from the configuration read on
standard input and typed options) and a tournament (:class:`TournamentHosting`). Every
builder is a pure function of its inputs: the command line does the reading, printing,
clocks and files.

*When* sign-up ends is a pluggable :class:`SignupPolicy` of the rules: :class:`PeriodPolicy`
(waiting periods; Q, Bazaar, Fish) or :class:`QuorumPolicy` (wait for the minimum however
long, then one wait per further connection; Evolution). A policy drives the server's
sign-up through the few steps of :class:`SignupSteps`, so a game with other rules writes a
policy, not a server.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, AsyncContextManager, Callable, Mapping, Protocol as Interface, Sequence

from gameroom.core.match import Seat
from gameroom.core.narration import Narrator
from gameroom.core.options import Option, Options
from gameroom.core.protocol import WireProtocol

__all__ = ["SignupRules", "ServerPlan", "ClientSpec", "name_rule", "SignupSteps", "SignupPolicy",
           "PeriodPolicy", "QuorumPolicy", "LocalMatch", "PlayHosting", "ServerHosting", "ClientPlan",
           "ClientHosting", "TournamentPlan", "TournamentHosting", "RoomHosting", "Hosting", "NO_REPLY"]



def name_rule(pattern: str, max_length: int) -> Callable[[Any], bool]:
    """A predicate for sign-up names: a JSON string of 1..max_length matching ``pattern``."""
    compiled = re.compile(pattern)

    def valid(name: Any) -> bool:
        return isinstance(name, str) and 1 <= len(name) <= max_length and compiled.fullmatch(name) is not None

    return valid


class SignupSteps(Interface):
    """What a sign-up policy may do with the server's sign-up of one game."""

    @property
    def count(self) -> int:
        """Players signed up so far."""

    def sign_up_in_background(self) -> None:
        """Sign connections up one at a time, in arrival order, until stopped or full."""

    async def wait_full(self, seconds: float | None) -> bool:
        """Wait until the maximum is reached (True) or ``seconds`` have passed (False)."""

    def between_sign_ups(self) -> AsyncContextManager[None]:
        """Hold off the background sign-up: no sign-up is in progress inside."""

    async def next_connection(self, seconds: float | None) -> Any:
        """The next pending connection in acceptance order (its sign-up is read already,
        beside the others), waiting up to ``seconds`` (None: no limit); None when none
        arrived."""

    async def sign_up(self, connection: Any) -> bool:
        """Read and check one connection's sign-up; True when it became a player."""


class SignupPolicy:
    """Decides when sign-up ends, through :class:`SignupSteps`; returns to start the game."""

    async def run(self, steps: SignupSteps, rules: "SignupRules") -> None:
        raise NotImplementedError


@dataclass(frozen=True)
class PeriodPolicy(SignupPolicy):
    """Waiting periods (Q, Bazaar, Fish): sign-up runs in the background; at the end of a
    period with at least the minimum signed up it stops - only between two sign-ups - and
    reaching the maximum stops it at once."""

    periods: int
    period_seconds: float

    async def run(self, steps: SignupSteps, rules: "SignupRules") -> None:
        steps.sign_up_in_background()
        for _period in range(self.periods):
            if await steps.wait_full(self.period_seconds):
                return
            async with steps.between_sign_ups():   # answer only between sign-ups
                if steps.count >= rules.min_players:
                    return


@dataclass(frozen=True)
class QuorumPolicy(SignupPolicy):
    """Wait for the minimum however long, then up to ``extra_wait`` seconds for each further
    connection (Evolution, 7.1). With ``count_failed`` a failed late sign-up uses up one of
    the optional places, as the reference does."""

    extra_wait: float
    count_failed: bool = True

    async def run(self, steps: SignupSteps, rules: "SignupRules") -> None:
        while steps.count < rules.min_players:
            await steps.sign_up(await steps.next_connection(None))
        tried = steps.count
        while tried < rules.max_players and steps.count < rules.max_players:
            connection = await steps.next_connection(self.extra_wait)
            if connection is None:
                return
            signed = await steps.sign_up(connection)
            tried += 1 if (signed or self.count_failed) else 0


@dataclass(frozen=True)
class SignupRules:
    """How a server signs players up (the games' specs fix each number).

    ``policy`` decides when sign-up ends; without one, ``periods`` waiting periods of
    ``period_seconds`` (:class:`PeriodPolicy`). ``newest_first`` seats the last player to
    sign up first (Evolution). ``name_rule`` says what ``valid_name`` takes (e.g. "1 to 12
    ASCII letters"), for the line that refuses a name."""

    min_players: int
    max_players: int
    periods: int                      # number of waiting periods
    period_seconds: float             # length of one waiting period
    name_first_byte: float            # seconds for the name's first byte to arrive
    name_complete: float              # then seconds for the rest of it
    valid_name: Callable[[Any], bool]
    backlog: int = 30
    policy: SignupPolicy | None = None
    newest_first: bool = False
    name_rule: str = ""

    @property
    def signup_policy(self) -> SignupPolicy:
        return self.policy if self.policy is not None else PeriodPolicy(self.periods, self.period_seconds)


@dataclass(frozen=True)
class ServerPlan:
    """Everything the game-agnostic server needs to host one game or tournament."""

    protocol: WireProtocol
    rules: SignupRules
    play: Callable[[Sequence[Seat]], Any]   # runs with remote seats; returns the JSON result
    no_game_result: Any                      # printed when too few players signed up
    error_result: Any                        # printed when the game cannot be run
    house_seats: Callable[[], list[Seat]] = field(default=lambda: [])
    keep_alive: bool = False                 # sign up and play again after every game, forever
    # ``play`` makes no thread and waits on nothing but its seats' calls (and its house
    # seats are trusted): it may run as a greenlet on the server's hub (``remote.hub``),
    # one thread for every game, instead of a thread of its own.
    single_thread: bool = False


@dataclass
class ClientSpec:
    """One client connection to launch.

    ``name`` is the JSON value sent at sign-up (not validated here: bonus clients send bad
    names on purpose). ``behaviour`` is ``"play"`` (serve calls), ``"silent"`` (connect and
    never send anything) or ``"name-only"`` (send the name, then never read or answer).
    ``signup_bytes``, when given, are sent raw in place of the sign-up message (clients that
    break sign-up on purpose: unfinished or non-JSON text), after which the client only
    waits for the server to hang up.
    """

    name: Any
    player: Any = None
    protocol: WireProtocol | None = None
    behaviour: str = "play"
    deviations: dict[str, Callable[[Any], bytes | None]] = field(default_factory=dict)
    delay: float = 0.0        # seconds to wait after the previous client was launched
    pad: int = 0              # leading spaces before each message (the reference sends 5000)
    trickle: bool = False     # send messages in small chunks, like the reference client
    # Optional: receives ``ask(message) -> answer`` for side messages (queries) the player
    # may send while answering a call (see ``gameroom.remote.proxy_referee``).
    side_channel: Callable[[Callable[[Any], Any]], None] | None = None
    signup_bytes: bytes | None = None
    connect_retries: int = 10   # retries after a refused connection, ...
    retry_wait: float = 1.0     # ... this many seconds apart
    # A built-in strategy that answers at once: called on the client's loop, not on a thread.
    trusted: bool = False
    # Whether this client must see the game to its end (None: unless it breaks the protocol
    # on purpose: silent, name-only, broken sign-up or deviating clients). A game sets False
    # for players that misbehave by design (they are ejected, so no result reaches them).
    expects_result: bool | None = None

    @property
    def wants_result(self) -> bool:
        """Does the clients command fail when this client got no result?"""
        if self.expects_result is not None:
            return self.expects_result
        return self.behaviour == "play" and self.signup_bytes is None and not self.deviations


# -- how each command hosts a game (the descriptor's ``hosting``) ---------------------------

@dataclass
class LocalMatch:
    """One local game as ``gameroom play`` runs it, made by :attr:`PlayHosting.match`.

    ``run(observers)`` plays the game to the end with ``observers`` (the command
    line's: the narrator's printer, then the picture writer) and returns its outcome, a
    ``core.record.MatchResult`` (whose ``to_json()`` is the last line printed).
    ``narrator`` supplies every line printed before, during and after the game, and the
    pictures' captions. ``summary`` prints the generic ending (final scores, winners and
    the players who dropped out, called ``dropped``) after the narrator's closing lines;
    a game whose closing lines already say it all (Evolution's result lines) turns it off.
    """

    run: Callable[[Sequence[Any]], Any]
    narrator: Narrator
    summary: bool = True
    dropped: str = "ejected"


@dataclass(frozen=True)
class PlayHosting:
    """``gameroom play GAME``: its options and ``match(options) -> LocalMatch``, which
    raises ``core.options.OptionError`` for a combination of values the options' own
    checks cannot see. ``roster`` names the option that lists the built-in strategies in
    turn (``play --replay`` records a game between them; None: the first strategy)."""

    options: Sequence[Option]
    match: Callable[[Options], LocalMatch]
    roster: str | None = "strategies"


NO_REPLY = object()
"""``ServerHosting.bad_configuration_reply`` when a bad configuration prints nothing on
standard output (the error line on standard error says it)."""


@dataclass(frozen=True)
class ServerHosting:
    """``gameroom serve GAME``.

    ``configure(values, options)`` reads the JSON values given on standard input (one or
    more) into the game's configuration, raising ``core.wire.WireError`` (or
    ``OptionError``) naming what is wrong; ``plan(configuration, options)`` builds
    the :class:`ServerPlan` from it, or from the game's defaults when ``configuration`` is
    None (nothing on standard input). ``defaults(options)`` describes those defaults in the
    line the server prints then. ``options`` are the game's own ``serve`` options; the
    typed options always hold the generic ``seed`` too (an int: the command line draws one
    from the clock when none is given; the game's lines name it where it deals with it). ``bad_configuration_reply`` is a
    JSON value printed on standard output for a bad configuration (the reference
    servers' answer, which drivers read), or :data:`NO_REPLY`."""

    plan: Callable[[Any, Options], ServerPlan]
    configure: Callable[[Sequence[Any], Options], Any]
    defaults: Callable[[Options], str] = lambda _options: "the spec's defaults"
    options: Sequence[Option] = ()
    bad_configuration_reply: Any = NO_REPLY


@dataclass
class ClientPlan:
    """The clients ``gameroom clients GAME`` launches, where (``host``, unless
    ``--host`` is given) and whether their sessions are logged (``quiet``)."""

    specs: list[ClientSpec]
    host: str = "127.0.0.1"
    quiet: bool = True


@dataclass(frozen=True)
class ClientHosting:
    """``gameroom clients GAME``: ``plan(values, options) -> ClientPlan`` from the JSON
    values on standard input (possibly none) and the typed options; ``done`` is the line
    printed once every client has finished."""

    plan: Callable[[Sequence[Any], Options], ClientPlan]
    options: Sequence[Option] = ()
    done: str = "all done"


@dataclass
class TournamentPlan:
    """One local tournament: the seats in sign-up order and ``run(observers,
    game_observers) -> core.tournament.TournamentResult`` (``observers`` are
    tournament observers, ``game_observers(seats)`` makes each game's observers).
    ``opening`` is printed first; ``bots`` says what each seat is (by name) and ``config``
    what the games were played with, both stored with every game in a results database."""

    seats: list[Seat]
    run: Callable[[Sequence[Any], Callable[[list[Seat]], Any]], Any]
    opening: Sequence[str] = ()
    bots: Mapping[str, Any] = field(default_factory=dict)
    config: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TournamentHosting:
    """``gameroom tournament GAME``: its options (all of them: a tournament has no generic
    ones but ``--db``, ``--replay`` and ``--tournament-name``) and ``plan(options)``."""

    options: Sequence[Option]
    plan: Callable[[Options], TournamentPlan]


@dataclass(frozen=True)
class RoomHosting:
    """A room of the lobby (``gameroom lobby``): the game's own referee with the room's
    seats, people and bots in the order they sat down.

    ``options`` are the room's options, chosen by whoever creates it (Fish: the board's
    size; Evolution: the deck): ``core.options.Option`` records as the command line's,
    whose values travel as JSON in the lobby's messages (``core.options.json_option_value``).
    ``player_counts``: the numbers of players a room may have (None: every number from the
    descriptor's ``min_players`` to its ``max_players``). ``check(options, players)``
    raises ``core.options.OptionError`` for room options that cannot make a game of
    ``players`` (a board too small for their penguins): the room is refused before anybody
    sits down. ``play(seed, seats, options, context)`` deals from ``seed`` and runs the
    game for the room's ``seats`` with the typed room ``options`` in the match's
    ``core.context.MatchContext`` (limits, observers, cancel). None: the
    descriptor's ``play`` (for a game whose rooms have no options).
    ``valid_name(name)`` says whether a player's name can travel on the game's wire (Q's
    calls carry names of letters and digits; None: any name can), ``name_rule`` says what
    such a name is, for the refusal a person reads.
    """

    options: Sequence[Option] = ()
    play: Callable[..., Any] | None = None
    player_counts: Sequence[int] | None = None
    check: Callable[[Options, int], None] | None = None
    valid_name: Callable[[str], bool] | None = None
    name_rule: str = ""


@dataclass(frozen=True)
class Hosting:
    """How the commands host a game; every part is optional.

    ``play`` (None: the generic local game of the descriptor's built-in strategies),
    ``server`` and ``clients`` (None: the game has no referee server, or is served by the
    lobby through the descriptor's ``lobby``), ``tournament``, ``rooms`` (the lobby's rooms
    of the game; None: rooms without options, played by the descriptor's ``play``).
    ``configs`` is the package whose ``configs/`` folder holds the example configuration
    files ``examples`` (package data: the first is the server's, named when the server
    runs on its defaults)."""

    play: PlayHosting | None = None
    server: ServerHosting | None = None
    clients: ClientHosting | None = None
    tournament: TournamentHosting | None = None
    rooms: RoomHosting | None = None
    configs: str | None = None
    examples: Sequence[str] = ()
