"""The matches of the web room: each runs on its own thread through the game's descriptor
(``play`` with seats of built-in players and people), and turns the match's events into
*frames* — small JSON objects — for each audience: spectators see the public view and the
picture of the concealed state, a person at a seat sees its own view and picture, its
prompts and its refusals, never another seat's secrets.

A frame is encoded once, when it happens, and every listener of its audience gets the
same text. When the match is over only its replay is kept, packed (zlib: a Q match's
1.2 MB of state frames, mostly pictures, become 77 KB), until the book evicts the match. A person's
seat (:mod:`gameroom.web.people`) is taken with the seat's token by a logged-in account,
and from then on belongs to that account alone. A match computes only while it holds a
turn of the room's :class:`~gameroom.web.turns.Turnstile`, given back at every event.

Limits are per seat: a bot's seat has the bots' limit of one call (``time_limit``, the
game's own by default), a person's seat the time of one decision for a person
(``person_limit``: the request's, else the room's configured one, else the game's): a
request cannot give a person less than :data:`MIN_PERSON_LIMIT` seconds, so never a
bot's fraction of a second. A person whose seat is ejected (its time ran out) is told so
in a message of its own, the others by one event line, and goes on watching as a
spectator: nothing of the game asks an ejected seat's view again.

The match is told as ``gameroom play`` tells it (``core.narration.Story`` with the game's
narrator): each state frame carries its picture's caption (who did what) and the
``narration`` lines of its event, other events with lines become ``event`` frames with
their ``narration``, and after the game a last state frame shows the winners.
"""

from __future__ import annotations

import functools
import logging
import random
import secrets
import threading
import time
import zlib
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Annotated, Any, Callable, ClassVar, Iterable, Sequence

from msgspec import UNSET, Meta, UnsetType

from gameroom.core.calls import Caller
from gameroom.core.context import MatchContext
from gameroom.core.game import PERSON_LIMIT, GameDescriptor
from gameroom.core.match import MatchCancelled, Seat, guarded_seat
from gameroom.core.narration import Story
from gameroom.core.protocol import VOID
from gameroom.core.record import EJECT, END, Event
from gameroom.remote.jsonstream import encode
from gameroom.server.journal_store import JournalError
from gameroom.server.lobby_checks import UsersChecks
from gameroom.server.lobby_identity import same_secret, secret_digest
from gameroom.web.bodies import Body, to_body
from gameroom.web.guard import BadBody
from gameroom.web.match_journal import JournaledCaller, request_row
from gameroom.web.people import Frame, HumanPlayer, announcing
from gameroom.web.turns import Turnstile

if TYPE_CHECKING:
    from gameroom.web.match_journal import Feed, MatchJournal
    from gameroom.web.policies import WebPolicies

__all__ = ["HUMAN", "MatchRequest", "WebMatch", "Owner", "BadRequest", "Frame", "state_frame", "Listener",
           "MIN_PERSON_LIMIT", "MatchBody"]

logger = logging.getLogger(__name__)

HUMAN = "human"
"""The seat name in a request that a person takes."""

MAX_PACE = 5.0
MAX_LIMIT = 3600.0
MIN_PERSON_LIMIT = 10.0
"""The least time a request may give a person for one decision: a person reads the board
and clicks; a bot's per-call limit (Fish: 0.6 s) ejected them at setup. The operator's
configured limit (``gameroom web --person-limit``) is not held to it."""
Audience = str | None   # None: the spectators; a seat name: the person at that seat
Listener = Callable[[str, str], None]
"""Receives each frame of its audience as it happens: its JSON text and its type."""

STATE_PREFIX = '{"type":"state"'
"""How every state frame's text begins (compact JSON, ``type`` first)."""


def _shown(value: Any, limit: int = 80) -> str:
    """A bounded quotation of a value from a request, for an error message."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


class BadRequest(ValueError):
    """A request the room cannot start: the message says what is wrong."""


class MatchBody(Body, forbid_unknown_fields=True):
    """``POST /api/matches``'s body as sent: its shape and bounds (the game's own rules —
    its seats, its strategies, a person's least time — are checked by
    :meth:`MatchRequest.from_json`)."""

    SHAPE: ClassVar[str] = ('{"game": "q", "seats": ["human", "dag"], "seed"?: 0.., "time_limit"?: seconds or null '
                            '(the bots\' limit of one call), "person_limit"?: seconds, "pace"?: seconds}')
    game: Annotated[str, Meta(max_length=100)]
    seats: Annotated[list[Annotated[str, Meta(max_length=100)]], Meta(max_length=64)]
    seed: Annotated[int, Meta(ge=0, le=(1 << 63) - 1)] | UnsetType = UNSET
    time_limit: Annotated[float, Meta(gt=0, le=MAX_LIMIT)] | None | UnsetType = UNSET
    person_limit: float | None | UnsetType = UNSET   # bounded by the game: _person_limit
    pace: Annotated[float, Meta(ge=0, le=MAX_PACE)] = 0.0


@dataclass(frozen=True)
class MatchRequest:
    """A checked request for a match: the game, its seats (strategy names, the names of
    the operator's policies, or ``human``), the seed, the bots' time limit of one call
    (``time_limit``), a person's time for one decision (``person_limit``, None without
    people) and the pause after every state (to watch bots); ``policies`` makes the seats
    of the policies (``web.policies.WebPolicies``: only those the operator configured can
    be named)."""

    game: GameDescriptor[Any, Any]
    seats: tuple[str, ...]
    seed: int
    time_limit: float | None
    pace: float = 0.0
    policies: "WebPolicies | None" = field(default=None, compare=False)
    person_limit: float | None = None

    @classmethod
    def from_json(cls, body: Any, games: dict[str, GameDescriptor[Any, Any]],
                  policies: "WebPolicies | None" = None, person_limit: float | None = None) -> "MatchRequest":
        """The request of a JSON body; ``person_limit`` is the room's configured time of a
        person's decision (None: the game's)."""
        try:
            asked = to_body(body, MatchBody)
        except BadBody as exc:
            raise BadRequest(str(exc)) from None
        game = games.get(asked.game)
        if game is None:
            raise BadRequest(f"game: {_shown(asked.game)} is not a game; choose from {', '.join(games)}")
        seats = asked.seats
        if not game.min_players <= len(seats) <= game.max_players:
            raise BadRequest(f"seats: {game.name} takes {game.min_players} to {game.max_players} players, "
                             f"got {len(seats)}")
        offered = policies.names(game.name) if policies is not None else []
        for i, seat in enumerate(seats):
            if seat == HUMAN:
                if not game.playable_by_people:
                    raise BadRequest(f"seats[{i}]: {game.name} cannot be played by a person yet")
            elif seat not in game.strategies and seat not in offered:
                choices = [*game.strategies, *offered, *([HUMAN] if game.playable_by_people else [])]
                raise BadRequest(f"seats[{i}]: {_shown(seat)} is not a {game.name} player; "
                                 f"choose from {', '.join(choices)}")
        seed = random.randrange(1 << 31) if asked.seed is UNSET else asked.seed
        limit = game.limits.call if asked.time_limit is UNSET else asked.time_limit   # the bots' seats only
        person = _person_limit(game, None if asked.person_limit is UNSET else asked.person_limit, person_limit) \
            if HUMAN in seats else None
        pace = asked.pace
        return cls(game, tuple(seats), seed, None if limit is None else float(limit), float(pace),
                   policies if any(seat in offered for seat in seats) else None, person)

    def limit_of(self, index: int) -> float | None:
        """The time limit of the seat at ``index``: a person's decision, or a bot's call."""
        return self.person_limit if self.seats[index] == HUMAN else self.time_limit

    def policy_seats(self) -> list[int]:
        """The indices of the seats a policy plays."""
        offered = set(self.policies.names(self.game.name)) if self.policies is not None else set()
        return [i for i, kind in enumerate(self.seats) if kind in offered and kind not in self.game.strategies]


def _seconds(value: Any, low: float, high: float) -> bool:
    """Whether ``value`` is a JSON number of seconds in (``low``, ``high``]."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and low < value <= high


def least_person_limit(game: GameDescriptor[Any, Any]) -> float:
    """The least time a request may give a person of ``game`` for one decision."""
    return max(MIN_PERSON_LIMIT, game.limits.call or 0.0)


def _person_limit(game: GameDescriptor[Any, Any], asked: Any, configured: float | None) -> float:
    """A person's time for one decision: the request's (``asked``, never less than
    :func:`least_person_limit`), else the room's ``configured`` one, else the game's."""
    if asked is None:
        chosen = configured if configured is not None else game.person_limit
        return float(chosen if chosen is not None else PERSON_LIMIT)
    least = least_person_limit(game)
    if not _seconds(asked, 0, MAX_LIMIT) or asked < least:
        bots = f"; {game.limits.call:g} s is the bots' limit of one call" if game.limits.call else ""
        raise BadRequest(f"person_limit: a person's seat needs seconds in [{least:g}, {MAX_LIMIT:g}] for one "
                         f"decision{bots}; got {_shown(asked)}")
    return float(asked)


def state_frame(game: GameDescriptor[Any, Any], state: Any, viewer: str | None, step: int, caption: str,
                story: Story | None = None, narration: Sequence[str] = ()) -> Frame:
    """What ``viewer`` (None: a spectator) receives for one state: the view the game
    allows it, its picture with its caption, and the lines told of the event."""
    view = game.views.spectator(state) if viewer is None else game.views.seat(state, viewer)
    return {"type": "state", "step": step, "caption": caption, "narration": list(narration), "view": view,
            "svg": game.picture(state, viewer, caption, story.draw if story is not None else None)}


@dataclass(frozen=True)
class Owner:
    """Who started a match: the address its request came from and, when logged in, the
    account's key (and its name, shown on its seat). Quotas count both; turns are shared
    by the account, else the address."""

    address: str | None = None
    user: str | None = None
    name: str | None = field(default=None, compare=False)

    @property
    def key(self) -> str:
        return f"user {self.user}" if self.user is not None else f"address {self.address}"


def _text(frame: Frame) -> str:
    return encode(frame).decode("utf-8")


class WebMatch:
    """One match of the web room: its seats, status, frames for every audience, result.
    The book starts it (at once for bots only, else when every person has sat down).
    With a ``journal`` (``web.match_journal``) it is kept there while live."""

    def __init__(self, match_id: str, request: MatchRequest, observers: Iterable[Callable[[Event], Any]] = (),
                 owner: Owner = Owner(), turns: Turnstile | None = None,
                 clock: Callable[[], float] = time.monotonic, checks: UsersChecks | None = None,
                 journal: "MatchJournal | None" = None) -> None:
        self.id = match_id
        self.journal = journal
        self.feed: "Feed | None" = None   # the journaled steps still to feed (a resumed match)
        self.checks = checks if checks is not None else UsersChecks()   # each account's bounds on checks
        self.request = request
        self.game = request.game
        self.owner = owner
        self.turns = turns if turns is not None else Turnstile()
        self.clock = clock
        self.created = clock()
        self.finished: float | None = None   # when it ended (the book evicts it some time after)
        self.names = [f"P{i + 1}" for i in range(len(request.seats))]
        self.status = "waiting"
        self.result: dict[str, Any] | None = None
        # each person's seat token: handed to the match's creator, kept only as its digest
        self.tokens = {name: secrets.token_urlsafe(12) for name, kind in zip(self.names, request.seats)
                       if kind == HUMAN}
        self.digests = {name: secret_digest(token) for name, token in self.tokens.items()}
        # the account (key) each person's seat belongs to: the creator's when it is the only
        # one, else whoever first opens it with its token while logged in
        self.holders: dict[str, str | None] = {name: None for name in self.tokens}
        self.accounts: dict[str, str] = {}   # seat -> the name of the account it belongs to, shown on it
        if owner.user is not None and len(self.tokens) == 1:
            only = next(iter(self.tokens))
            self.holders[only] = owner.user
            if owner.name is not None:
                self.accounts[only] = owner.name
        self.out: set[str] = set()   # people's seats the referee ejected: they watch as spectators
        self.joined: set[str] = set()
        self.lock = threading.RLock()
        self.history: dict[Audience, list[str]] = {None: [], **{name: [] for name in self.tokens}}
        self.packed: bytes | None = None   # the replay, once the match is over
        self.ending: str | None = None   # the end frame (the same for every audience)
        self.listeners: dict[Audience, list[Listener]] = {a: [] for a in self.history}
        self.steps = 0
        self.turn: str | None = None
        self.cancel = threading.Event()
        self.extra_observers = list(observers)
        self.story = self.game.story(request.seed, self.names)
        decisions = {m.name for m in self.game.protocol.methods if m.result is not VOID}
        self.wires = {m.name: m.wire for m in self.game.protocol.methods}
        self.humans: dict[str, HumanPlayer] = {}
        self.seats: list[Seat] = []
        # a person's or a policy's seat is made apart: a stand-in strategy fills its place here
        self.policy_seats = request.policy_seats()
        stand_in = next(iter(self.game.strategies))
        bots = self.game.seats([k if k in self.game.strategies else stand_in for k in request.seats],
                               request.seed, self.names)
        for index, (name, kind, bot) in enumerate(zip(self.names, request.seats, bots)):
            if kind == HUMAN:
                human = HumanPlayer(name, self.game, request.person_limit,
                                    functools.partial(self._publish, only=name))
                self.humans[name] = human
                seat = guarded_seat(name, human)
                seat.caller = self._off_turn(JournaledCaller(self, index, seat.caller, True, human),
                                             request.person_limit)
            else:
                seat = bot
                seat.caller = JournaledCaller(self, index, seat.caller, False)
            seat.caller = announcing(seat.caller, name, decisions, self._announce)
            self.seats.append(seat)
        for name, user in self.holders.items():
            if user is not None:
                self.humans[name].checks = self.checks.of(user)
        self._decisions = decisions

    @property
    def live(self) -> bool:
        """Waiting for its people or running (not over)."""
        return self.status != "over"

    # -- the summary the API shows --------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        """What the API and a socket's ``hello`` show of the match: each seat with its
        player (a strategy, a policy or ``human``), its limit, and the name of the account
        playing a person's seat (``account``, once known); ``turn`` the seat to play."""
        seats = [{"name": n, "player": k, "limit": self.request.limit_of(i),
                  **({"account": self.accounts[n]} if n in self.accounts else {})}
                 for i, (n, k) in enumerate(zip(self.names, self.request.seats))]
        return {"id": self.id, "game": self.game.name, "status": self.status, "seed": self.request.seed,
                "seats": seats, "time_limit": self.request.time_limit, "person_limit": self.request.person_limit,
                "steps": self.steps, "turn": self.turn, "result": self.result}

    # -- seats and audiences --------------------------------------------------------------

    def admit(self, seat: str, token: str | None, user: str | None, name: str | None = None) -> str | None:
        """Why the account ``user`` (its key; None: not logged in; ``name``: its name)
        may not take ``seat`` with ``token``; None when it may (the seat is then that
        account's for good, shown under its name)."""
        if seat not in self.names:
            return f"no seat {_shown(seat)} in match {self.id}; its seats are {', '.join(self.names)}"
        if seat not in self.digests:
            kind = self.request.seats[self.names.index(seat)]
            who = "built-in player" if kind in self.game.strategies else "trained policy"
            return (f"seat {seat} is played by the {who} {kind!r}; only a person's seat can be "
                    "taken (leave out seat= to watch)")
        if not token:
            return f"seat {seat}: the seat's token is missing (token=...)"
        if not same_secret(self.digests[seat], token):
            return f"seat {seat}: wrong token"
        if user is None:
            return f"seat {seat}: log in to take a person's seat (/login)"
        with self.lock:
            holder = self.holders[seat]
            if holder is None:
                self.holders[seat] = user
                self.humans[seat].checks = self.checks.of(user)   # the account's, across its seats
            elif holder != user:
                return f"seat {seat} belongs to another account: the person who took it plays there"
            changed = holder is None or name is not None and seat not in self.accounts
            if name is not None:
                self.accounts.setdefault(seat, name)
        if changed and self.journal is not None:   # the seat is the account's across a restart too
            self.journal.keep(self)
        return None

    def subscribe(self, audience: Audience, listener: Listener) -> tuple[list[str], bool]:
        """Register ``listener`` for ``audience``'s frames from now on; the frames so far
        and whether the match is over. Of a match that is over only its end frame is
        given (the page reads the replay over HTTP): a client that does not read then
        holds nothing of the match's frames."""
        with self.lock:
            if self.ending is not None:
                return [self.ending], True
            self.listeners[audience].append(listener)
            return list(self.history[audience]), False

    def unsubscribe(self, audience: Audience, listener: Listener) -> None:
        with self.lock:
            if listener in self.listeners[audience]:
                self.listeners[audience].remove(listener)

    def join(self, seat: str) -> None:
        """A person sat down; the match starts once every person's seat is taken."""
        with self.lock:
            self.joined.add(seat)
            ready = self.status == "waiting" and self.joined >= set(self.humans)
        if ready:
            self.start()

    def _publish(self, frame: Frame, only: Audience = None, per_seat: dict[str, Frame] | None = None) -> None:
        """Send ``frame`` to everyone (``only``: that seat alone; ``per_seat``: these seats
        get their own frame instead), each frame encoded once."""
        text, kind = _text(frame), frame["type"]
        own = {seat: _text(mine) for seat, mine in (per_seat or {}).items()}
        with self.lock:
            if self.ending is not None:
                return
            if kind == "end":
                self.ending = text
            for audience in [only] if only is not None else list(self.history):
                sent = own.get(audience, text) if audience is not None else text
                self.history[audience].append(sent)
                for listener in list(self.listeners[audience]):
                    listener(sent, kind)

    def replay_text(self) -> str:
        """The spectators' state frames, one JSON line per state change."""
        with self.lock:
            if self.packed is not None:
                return zlib.decompress(self.packed).decode("utf-8")
            return "".join(f for f in self.history[None] if f.startswith(STATE_PREFIX))

    # -- running --------------------------------------------------------------------------

    def start(self) -> None:
        with self.lock:
            if self.status != "waiting":
                return
            self.status = "running"
        if self.journal is not None and self.feed is None:
            self.journal.keep(self)
        self._publish({"type": "status", "status": "running"})
        threading.Thread(target=self._run, name=f"web-match-{self.id}", daemon=True).start()

    def abandon(self, reason: str) -> bool:
        """End a match still waiting for its people (no game was played); False if it
        was no longer waiting."""
        with self.lock:
            if self.status != "waiting":
                return False
            self.status = "over"
            self.result = {"winners": [], "scores": {}, "ejected": [], "error": reason}
        self._leave_journal()
        self._publish({"type": "end", "result": self.result, "status": "over"})
        self._pack()
        return True

    def evict(self) -> None:
        """Drop every frame (the book forgot this match; a socket still open keeps only this)."""
        with self.lock:
            self.packed = zlib.compress(b"")
            self.history = {audience: [] for audience in self.history}

    def _run(self) -> None:
        request, owner = self.request, self.owner.key
        # one limit for every decision, the first round's included (None: the call's)
        limits = replace(self.game.limits, call=request.time_limit, ready=None)
        self.turns.enter(owner)
        self.turns.take(owner)
        started: list[Caller] = []
        try:
            try:
                self._seat_policies(started)
                context = MatchContext(limits=limits, observers=[self._observe, *self.extra_observers],
                                       cancel=self.cancel)
                result = self.game.play(request.seed, self.seats, context)
                outcome = {"winners": list(result.winners), "scores": dict(result.scores),
                           "ejected": [{"seat": e.name, "reason": e.reason} for e in result.ejections]}
                self._tell_ending(result)
            except MatchCancelled:
                outcome = {"winners": [], "scores": {}, "ejected": [], "error": "the match was cancelled"}
            except Exception as exc:   # a broken game (or a full disk under --db) must not take the room down
                logger.error("web match %s failed", self.id, exc_info=True)
                outcome = {"winners": [], "scores": {}, "ejected": [], "error": f"{type(exc).__name__}: {exc}"}
            self._leave_journal()   # over (stored in the results database, when it has a result)
            with self.lock:
                self.result, self.status, self.turn = outcome, "over", None
            self._publish({"type": "end", "result": outcome, "status": "over"})
            self._pack()
        finally:
            for caller in started:   # a policy's process ends with its match
                close = getattr(caller, "close", None)
                if close is not None:
                    close()
            self.turns.give(owner)
            self.turns.leave(owner)

    def _seat_policies(self, started: list[Caller]) -> None:
        """The seats of the operator's policies, each in a process of its own started now
        (on the match's thread, the turn given back meanwhile: a start takes a moment);
        their callers go into ``started``, to be ended with the match."""
        policies = self.request.policies
        if policies is None or not self.policy_seats:
            return
        owner = self.owner.key
        self.turns.give(owner)
        try:
            for index in self.policy_seats:
                name, kind = self.names[index], self.request.seats[index]
                seat = policies.seat(self.game, kind, name, len(self.names))
                started.append(seat.caller)
                seat.caller = announcing(JournaledCaller(self, index, seat.caller, True), name, self._decisions,
                                         self._announce)
                self.seats[index] = seat
        finally:
            self.turns.take(owner)

    def _pack(self) -> None:
        """The match is over: its replay packed, its other frames, players and their
        states let go."""
        with self.lock:
            replay = "".join(f for f in self.history[None] if f.startswith(STATE_PREFIX))
            self.packed = zlib.compress(replay.encode("utf-8"), 6)
            self.history = {audience: [] for audience in self.history}
            self.listeners = {audience: [] for audience in self.history}
            self.seats, self.extra_observers = [], []
            self.story.last = None
            self.finished = self.clock()

    def _off_turn(self, caller: Caller, person_limit: float | None) -> Caller:
        """A person's seat's caller: every call has the person's limit (whatever the
        referee gives the bots), and the match gives its turn back while the person thinks."""
        owner = self.owner.key

        def call(method: str, args: tuple[Any, ...], limit: float | None) -> Any:
            self.turns.give(owner)
            try:
                return caller(method, args, person_limit)
            finally:
                self.turns.take(owner)

        return call

    def who(self, seat: str) -> str:
        """A seat as people read it: the account playing it and the seat (``ann (P1)``),
        else the seat's name."""
        account = self.accounts.get(seat)
        return f"{account} ({seat})" if account is not None else seat

    def _announce(self, seat: str, method: str) -> None:
        self.turn = seat
        # a person's clock is shown to everyone; a bot's limit is too short to be worth a clock
        limit = self.request.person_limit if seat in self.humans else None
        self._publish({"type": "turn", "seat": seat, "who": self.who(seat), "method": self.wires.get(method, method),
                       "asks": self.game.decision(method), "limit": limit,
                       "deadline": None if limit is None else time.time() + limit})

    def _observe(self, event: Event) -> None:
        """The match's events as frames (in the referee's thread, in order); every event
        is also where another owner's match may take the turn."""
        self.turns.pause(self.owner.key)
        told = self.story.tell(event)
        if told.drawn:
            self._publish_state(told.state, told.caption or "", told.lines)
            if self.request.pace and not (self.feed is not None and self.feed.replaying):
                self.turns.give(self.owner.key)
                try:
                    self.cancel.wait(self.request.pace)
                finally:
                    self.turns.take(self.owner.key)
        elif event.kind == EJECT:
            self._tell_ejection(event.data, told.lines)
        elif event.kind == END:
            winners = event.data["result"]["winners"]
            self._publish({"type": "event", "text": f"game over: {', '.join(winners) or 'no winner'}",
                           "narration": told.lines})
        elif told.lines:
            self._publish({"type": "event", "text": "\n".join(told.lines), "narration": told.lines})

    # -- the journal (web.match_journal) --------------------------------------------------

    def journal_row(self) -> dict[str, Any] | None:
        """What the journal keeps of this match (None once it is over)."""
        with self.lock:
            if self.status == "over":
                return None
            return {**request_row(self), "owner": [self.owner.address, self.owner.user, self.owner.name],
                    "tokens": dict(self.digests), "holders": dict(self.holders), "accounts": dict(self.accounts),
                    "status": self.status, "created": time.time() - (self.clock() - self.created)}

    def restore(self, row: dict[str, Any], feed: "Feed | None", age: float) -> None:
        """This match as the journal's ``row`` says (made ``age`` seconds ago); running, it
        starts again through ``feed``, its journaled steps."""
        self.tokens = {}   # only their digests were kept
        self.digests = {name: str(row["tokens"][name]) for name in self.humans}
        self.holders = {name: row["holders"].get(name) for name in self.humans}
        self.accounts = {name: str(account) for name, account in row["accounts"].items() if name in self.humans}
        for name, user in self.holders.items():
            if user is not None:
                self.humans[name].checks = self.checks.of(user)
        self.created = self.clock() - max(0.0, age)
        if row["status"] == "running":
            self.feed = feed
            self.start()

    def _leave_journal(self) -> None:
        if self.journal is None:
            return
        try:
            self.journal.leave(self)
        except JournalError:   # the match is over all the same; a restart would run it again
            logger.warning("web match %s: it could not leave the journal", self.id, exc_info=True)

    def _tell_ejection(self, data: dict[str, Any], lines: Sequence[str]) -> None:
        """A seat is out: one event line to everyone (its ``text``; ``narration`` the
        narrator's own lines, as ``gameroom play`` prints them), and a person's seat its
        own message, in the game's words; from now on that person watches as a spectator."""
        seat, reason, wire = data["seat"], data["reason"], data["method"]
        asks = self.game.decision(wire)
        self._publish({"type": "event", "text": f"{self.who(seat)} is out of the game: {reason} ({asks})",
                       "ejected": seat, "reason": reason, "method": wire, "asks": asks, "narration": list(lines)})
        if seat in self.humans:
            self.out.add(seat)
            self._publish({"type": "prompt", "choices": [], "method": None, "out": True,
                           "message": f"You are out of the game: {reason} ({asks}). The game goes on without "
                                      "you; you can watch it to its end."}, only=seat)

    def _publish_state(self, state: Any, caption: str, lines: Sequence[str]) -> None:
        """One state to every audience: the spectators' frame and each person's own (a
        person whose seat is out gets the spectators')."""
        self.steps += 1
        frame = {**state_frame(self.game, state, None, self.steps, caption, self.story, lines), "turn": self.turn}
        mine = {name: {**state_frame(self.game, state, name, self.steps, caption, self.story, lines),
                       "turn": self.turn}
                for name in self.humans if name not in self.out}
        self._publish(frame, per_seat=mine)

    def _tell_ending(self, result: Any) -> None:
        """The narrator's closing lines, and the last picture naming the winners; a
        narrator's or a picture's failure costs them only, never the result."""
        try:
            ending = self.story.end(result)
            if ending.caption is not None:
                self._publish_state(ending.state, ending.caption, ending.lines)
            elif ending.lines:
                self._publish({"type": "event", "text": "\n".join(ending.lines), "narration": ending.lines})
        except Exception:   # noqa: BLE001 - the result stands; the ending's telling is lost, logged
            logger.warning("web match %s: telling its end failed", self.id, exc_info=True)
