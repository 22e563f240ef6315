"""What a game is, in one place: the :class:`GameDescriptor` every game package exports.

The command line, the benchmarks, the server, the web room, the league and the results
database ask a descriptor — never a game's modules — which games exist, how many players
they take, which built-in and misbehaving players they have, how to start a game from a
seed and seats, which protocol the players speak, how states and actions travel as JSON,
what each seat may see, how a state looks as a picture, which test harnesses exist, how
each command hosts the game and what the benchmark measures.

A game's distribution registers its descriptor under the entry-point group
``gameroom.games`` (``NAME = "package.module:GAME"``); :mod:`gameroom.games.registry`
finds it there. Game-agnostic: imports only ``core``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Generic, Mapping, Sequence, TypeVar

from gameroom.core.context import MatchContext
from gameroom.core.hosting import Hosting, LocalMatch, PlayHosting
from gameroom.core.limits import Limits
from gameroom.core.match import Seat, trusted_seat
from gameroom.core.narration import Narrator, Story
from gameroom.core.options import Option, Options, players_option, seed_option, strategies_option
from gameroom.core.protocol import Codec, WireProtocol
from gameroom.core.workload import Lineup, Workload

__all__ = ["GameDescriptor", "State", "Action", "SeatViews", "PlayerFactory", "Harness", "Deal", "PlayGame",
           "generic_play", "Moves", "Check", "MatchNarrator", "PERSON_LIMIT"]

State = TypeVar("State")
"""A game's referee state type (Q's ``GameState``, ...)."""
Action = TypeVar("Action")
"""A game's action type: what its ``action_codec`` reads and writes."""

PlayerFactory = Callable[[str, int], Any]
"""``(name, seed) -> player``: a built-in (or misbehaving) player for a seat."""

Harness = Callable[..., list[Any]]
"""A test harness: the JSON values read on standard input -> the JSON values to print;
game-running harnesses also take ``observers=``."""

Deal = Callable[[int, Sequence[str]], Any]
"""``deal(seed, names) -> state``: the referee state a game starts from, for players of
these names in turn order; the same seed deals the same game."""

PlayGame = Callable[..., Any]
"""``play(seed, seats, context=NO_CONTEXT, **options) -> MatchResult``: deal a game from
``seed`` for ``seats`` (in turn order) and run it to the end through ``core.match``; the
``core.context.MatchContext`` brings the limits (None: the game's own), the observers that
receive its events and the cancel event (a ``threading.Event``:
setting it stops the game at its next call with ``core.match.MatchCancelled``). The
game's own options (Eriantys's ``expert=``) are keyword arguments."""

MatchNarrator = Callable[[int, Sequence[str]], Narrator]
"""``narrator(seed, names) -> Narrator``: the narrator of one match that ``play`` deals
from ``seed`` for seats named ``names`` (in turn order)."""

PERSON_LIMIT = 60.0
"""Seconds a person has for one decision when a game declares nothing else: time to look
at the board and click, where a bot's per-call limit (Fish: 0.6 s) would eject them."""


Moves = Callable[[str, tuple[Any, ...]], "list[tuple[str, Any]] | None"]
"""``moves(method, args)``: the legal answers offered to a person for one call, as
``(label, answer as JSON)`` pairs, or None for a call that asks no decision."""

Check = Callable[[str, tuple[Any, ...], Any], "str | None"]
"""``check(method, args, answer)``: why ``answer`` (already decoded by the method's result
codec) is not a legal answer to the call ``method`` with ``args``, or None when it is."""


@dataclass(frozen=True)
class SeatViews:
    """What a seat and what a spectator may see of a referee state, as JSON.

    ``seat(state, name)`` is everything the player called ``name`` may know (its own
    secrets, the public part of the others'); ``spectator(state)`` the public part only.
    ``seat`` of a name that is not (or no longer) a player of ``state`` — a seat the
    referee ejected and removed — must not fail and shows no seat's secret (what a
    spectator sees): a person who timed out goes on watching the game.
    ``vary_secret(state, name, rng)`` is a state that differs from ``state`` only in what
    is secret to ``name`` (Q: the tiles of its hand; Bazaar: its wallet): no other seat's
    view, no spectator's view and no message to another seat may change with it — what
    the secrecy property test checks. None for games without hidden information.
    ``conceal(state, name)`` is a state the game's picture code can draw showing only what
    ``name`` may see (``name`` None: a spectator), the other secrets emptied; a game with
    secrets and no ``conceal`` is shown without pictures (the web room).
    """

    seat: Callable[[Any, str], Any]
    spectator: Callable[[Any], Any]
    vary_secret: Callable[[Any, str, random.Random], Any] | None = None
    conceal: Callable[[Any, str | None], Any] | None = None

    def picture_state(self, state: Any, name: str | None) -> Any:
        """The state to draw for ``name`` (None: a spectator); None when the game has
        secrets but no way to conceal them."""
        if self.vary_secret is None:
            return state
        return None if self.conceal is None else self.conceal(state, name)


@dataclass(frozen=True)
class GameDescriptor(Generic[State, Action]):
    """One game, as everything outside its package sees it.

    ``strategies`` and ``misbehaviours`` map names to player factories (the first strategy
    is the default). ``deal`` makes the state a game starts from, ``play`` deals and runs a
    game from a seed and seats. ``state_codec`` encodes the referee state the game reports
    to observers (and decodes it back); ``action_codec`` one player action. ``hosting``
    says how the commands host the game (``core.hosting.Hosting``: options, local play
    and its narrator, server and client plans, tournament, example configurations);
    ``workloads`` what the benchmark measures beyond the generic figures
    (``core.workload.Workload``), ``lineups`` the games it plays on every kind of seat. ``moves(method, args)`` offers a person at a seat (the
    web room) the legal answers to the call ``method`` (protocol name) with ``args``:
    ``(label, answer as JSON)`` pairs (the method's result codec decodes them), or None
    for a call that asks no decision. ``seat_moves()`` instead makes a fresh such function
    for one person's seat, for games whose legal answers depend on what earlier calls told
    the player (Evolution's ``choose`` needs the hand ``start`` dealt; Bazaar's trades the
    equations of ``setup``): it sees every call of its seat in order, notifications
    included. ``check`` judges an answer a person composed on the board that need not be
    among the offered ones (a Q turn of several tiles) with the game's own legality rules;
    a ``seat_moves()`` object may instead have a ``check`` method of the same signature
    (it knows what earlier calls told the seat). ``board`` is the game's board module for
    the web room (a JavaScript file beside the game's code, see ``docs/boards.md``); a
    game without one gets the generic board of its offered answers. ``narrator(seed,
    names)`` tells a match of ``play`` (the lines ``gameroom play`` prints, the pictures'
    captions; :meth:`story`); ``person_limit`` is the time a person has for one decision
    by default (the web room).
    """

    name: str
    summary: str
    min_players: int
    max_players: int
    protocol: WireProtocol
    strategies: Mapping[str, PlayerFactory]
    misbehaviours: Mapping[str, PlayerFactory]
    deal: Callable[[int, Sequence[str]], State]
    play: PlayGame
    limits: Limits
    state_codec: Codec[State]
    action_codec: Codec[Action]
    views: SeatViews
    render: Callable[[State, str], str]
    harnesses: Callable[[], Mapping[str, Harness]]
    hosting: Hosting = Hosting()
    workloads: Sequence[Workload] = ()
    lineups: Sequence[Lineup] = ()
    """The complete games the benchmark plays on trusted, guarded and isolated seats
    (``core.workload.Lineup``; the first is the default work); none: the first strategy
    for up to four players."""
    moves: Moves | None = None
    seat_moves: Callable[[], Moves] | None = None
    check: Check | None = None
    board: Path | None = None
    drawing: Path | None = None
    """The spectators' picture drawn in the browser: a JavaScript module beside the game's
    code exporting ``draw(view, caption, before)``, which returns the SVG text of the
    picture a spectator gets of a state (``picture(state, None, caption, story.draw)``)
    from its spectator view (``views.spectator``) and the view of the step before (None at
    the first). The viewer of stored games then sends views, not pictures (``web.viewer``;
    ``docs/boards.md``). None: the web room draws each step's picture itself."""
    lobby: Any = None
    """A ``core.lobbygame.LobbyGame`` when the game is served by the lobby (rooms that
    people and bots log in to and join, events sent when they like) rather than by the
    sign-up-and-referee server; ``gameroom serve/clients/connect`` then use the lobby."""
    player_interface: type[Any] | None = None
    """The game's player interface as a ``typing.Protocol`` class (``QPlayer``, ...): what a
    player object offers, typed; its methods are the protocol table's (``protocol.methods``,
    which the registry's contract test checks), plus a ``name`` where the game asks for one."""
    learning: Callable[[], Any] | None = None
    """Loads the game's ``core.learning.Learning`` (its encoding for agents, loaded on
    use like ``harnesses``); ``gameroom.rl`` makes PettingZoo and Gymnasium
    environments of every game that declares one."""
    narrator: MatchNarrator | None = None
    """The game's narrator of a match ``play`` deals (``(seed, names) -> Narrator``): one
    line per move and the pictures' captions, the same in ``gameroom play``, the web
    room and stored games. None: the generic :class:`core.narration.Narrator`."""
    person_limit: float | None = PERSON_LIMIT
    """Seconds a person has for one decision unless told otherwise (the web room's
    default for a person's seat, the lobby's for a person's seat in a room): suited to a
    person, never the bots' ``limits.call``. None: no limit."""
    text_view: Callable[[Any], str] | None = None
    """A seat's or a spectator's view (what ``views`` returns, as JSON) as lines of text
    for a person at a terminal (``gameroom connect``); None: the terminal shows the view's
    JSON."""
    decision_words: Mapping[str, str] = field(default_factory=dict)
    """What each decision asks a person, in the game's words (the protocol's method name
    -> words: Q's ``take_turn`` -> "place tiles, replace the hand or pass"), shown to people
    instead of the wire's names (``take-turn``); :meth:`decision` falls back on the method."""
    simultaneous: bool = False
    """The game is played in simultaneous rounds: its referee asks every decision of
    every live seat at once, sealed, with ``core.match.Match.decide_all`` (under one
    limit, the replies revealed together), never one seat's decision after another's.
    It makes the game a PettingZoo parallel environment (``gameroom.rl.parallel_env``)."""

    @property
    def tournament(self) -> bool:
        """Whether the game has a local tournament mode (``gameroom tournament``)."""
        return self.hosting.tournament is not None

    @property
    def local_play(self) -> PlayHosting:
        """How ``gameroom play`` runs the game: the game's own, or the generic local game
        between its built-in strategies (``--players``, ``--seed``, ``--strategies``)."""
        return self.hosting.play if self.hosting.play is not None else generic_play(self)

    @property
    def playable_by_people(self) -> bool:
        """Whether a person can take a seat (the web room): the game offers legal answers."""
        return self.moves is not None or self.seat_moves is not None

    def person_moves(self) -> Moves | None:
        """The legal answers for one person's seat: ``seat_moves()`` or ``moves``."""
        return self.seat_moves() if self.seat_moves is not None else self.moves

    def decision(self, method: str) -> str:
        """What the call ``method`` (the protocol's name, or its wire name) asks a person,
        in the game's words (``decision_words``), else the method's name as words."""
        words = self.decision_words.get(method)
        if words is not None:
            return words
        spec = self.protocol.by_name.get(method) or self.protocol.by_wire.get(method)
        if spec is not None and spec.name in self.decision_words:
            return self.decision_words[spec.name]
        return (spec.wire if spec is not None else method).replace("-", " ").replace("_", " ")

    def person_check(self, moves: Moves | None) -> Check | None:
        """How a person's composed answers are judged at the seat whose offers come from
        ``moves`` (what ``person_moves()`` gave it): its own ``check``, else the game's."""
        own = getattr(moves, "check", None)
        return own if callable(own) else self.check

    def picture(self, state: Any, viewer: str | None, caption: str,
                draw: Callable[[Any, str], str] | None = None) -> str | None:
        """The game's SVG picture of ``state`` as ``viewer`` (None: a spectator) may see
        it, drawn by ``draw`` (a story's: the narrator's own picture) or ``render``; None
        when the game has secrets it cannot conceal (the web room and the lobby's
        ``pictures`` show its views as text then)."""
        shown = self.views.picture_state(state, viewer)
        return None if shown is None else (draw or self.render)(shown, caption)

    def story(self, seed: int, names: Sequence[str]) -> Story:
        """One match of ``play`` from ``seed`` between seats named ``names``, told: the
        game's narrator (or the generic one) with the game's pictures."""
        if self.narrator is not None:
            narrator = self.narrator(seed, list(names))
        else:
            narrator = Narrator([f"{self.name}: {', '.join(names)}; seed {seed}"])
        return Story(narrator, self.render)

    @property
    def room_options(self) -> Sequence[Option]:
        """The game's own options (Eriantys: ``expert``; Fish: the board; Q: the bonuses):
        a lobby room's, an arena competition's, played by :meth:`play_options`."""
        if self.lobby is not None:
            return tuple(self.lobby.room_options)
        return tuple(self.hosting.rooms.options) if self.hosting.rooms is not None else ()

    @property
    def room_player_counts(self) -> tuple[int, ...]:
        """The numbers of players a lobby room of the game may have."""
        if self.lobby is not None:
            return tuple(self.lobby.player_counts)
        counts = self.hosting.rooms.player_counts if self.hosting.rooms is not None else None
        return tuple(counts) if counts is not None else tuple(range(self.min_players, self.max_players + 1))

    def check_room(self, options: Options, players: int) -> None:
        """Raise ``core.options.OptionError`` when a room of ``players`` with these
        (already typed) options cannot make a game."""
        rooms = self.hosting.rooms
        if rooms is not None and rooms.check is not None:
            rooms.check(options, players)

    def play_room(self, seed: int, seats: Sequence[Seat], options: Options, context: MatchContext) -> Any:
        """A lobby room's game: :meth:`play_options` with the room's options."""
        return self.play_options(seed, seats, options, context)

    def play_options(self, seed: int, seats: Sequence[Seat], options: Options, context: MatchContext) -> Any:
        """A game with the game's own options (:attr:`room_options`, typed: a lobby room's,
        an arena competition's), in ``context`` (limits, observers, cancel). No
        options: the descriptor's ``play``, exactly. Else the room hosting's ``play(seed,
        seats, options, context)`` when the game declares one, else the descriptor's
        ``play`` with the options as keyword arguments (Eriantys's ``expert=``)."""
        if not options:
            return self.play(seed, seats, context=context)
        rooms = self.hosting.rooms
        if rooms is not None and rooms.play is not None:
            return rooms.play(seed, seats, options, context)
        return self.play(seed, seats, context=context, **options)

    def seats(self, strategies: Sequence[str], seed: int = 0, names: Sequence[str] | None = None) -> list[Seat]:
        """Trusted seats for built-in players of the named strategies (in turn order)."""
        names = list(names) if names is not None else [f"P{i + 1}" for i in range(len(strategies))]
        return [trusted_seat(name, self.strategies[strategy](name, seed + i))
                for i, (name, strategy) in enumerate(zip(names, strategies))]


def generic_play(game: GameDescriptor[Any, Any]) -> PlayHosting:
    """The local game every descriptor gets: ``--players`` (default the minimum),
    ``--seed`` and ``--strategies`` (default the first), and the game's own options
    (:attr:`GameDescriptor.room_options`, as lobby rooms offer them); players ``P1``,
    ``P2``, ... on trusted seats, dealt and played by :meth:`GameDescriptor.play_options`."""
    generic = (players_option(game.min_players, game.max_players, game.min_players),
               seed_option("seed of the deal"),
               strategies_option(list(game.strategies), [next(iter(game.strategies))]))
    own = tuple(option for option in game.room_options if option.key not in {o.key for o in generic})

    def match(values: Options) -> LocalMatch:
        strategies, seed = values["strategies"], values["seed"]
        seats = game.seats([strategies[i % len(strategies)] for i in range(values["players"])], seed)
        chosen = {option.key: values[option.key] for option in own}
        return LocalMatch(run=lambda observers: game.play_options(seed, seats, chosen,
                                                                  MatchContext(observers=observers)),
                          narrator=game.story(seed, [seat.name for seat in seats]).narrator)

    return PlayHosting((*generic, *own), match)
