"""Every match of one web room: started within the room's caps and quotas, kept in memory
while live and for a grace period after, then evicted.

A match is *live* while it waits for its people or runs. :meth:`MatchBook.start` refuses
a match beyond ``max_live`` live matches (503: the room is full) or beyond the owner's
quota — live matches per logged-in account and per address (429). Finished matches stay
``finished_grace`` seconds, at most ``keep_finished`` of them (beyond that the owner who
keeps the most loses its oldest first, so one owner's flood cannot push out everyone
else's results), then are evicted: with a results database (:class:`Archive`) every
finished match was stored there as it ended, and :meth:`MatchBook.find` names the stored
game; without one, an evicted match is answered by a message saying it finished and was
evicted. A match still waiting for its people after ``join_within`` seconds is cancelled.

Match ids are ``{number}-{game}``; the book keeps one byte per match number (its game) so
that it can tell an evicted match from one that never was.

With a journal (``web.match_journal``: ``gameroom web --db``) every live match is kept
there, written before the match's id is answered, and :meth:`MatchBook.resume` builds the
journaled matches again when the room starts.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from gameroom.core.game import GameDescriptor
from gameroom.core.record import Event
from gameroom.games import registry
from gameroom.server.lobby_checks import UsersChecks
from gameroom.web.limits import RoomLimits
from gameroom.web.match_journal import Feed, MatchJournal, seconds
from gameroom.web.matches import HUMAN, MatchRequest, Owner, WebMatch
from gameroom.web.memory import return_freed_memory
from gameroom.web.turns import Turnstile

if TYPE_CHECKING:
    from gameroom.web.policies import WebPolicies

__all__ = ["Archive", "Gone", "MatchBook", "Refused"]

logger = logging.getLogger(__name__)


class Refused(Exception):
    """A match the room will not start now: the HTTP status (503: the room is full, 429:
    the owner's quota) and the message saying why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Gone:
    """A match that finished and left memory: why, and its game in the results database."""

    message: str
    stored: int | None = None


class Archive(Protocol):
    """Where finished matches are stored (``web.archive.MatchArchive`` over a results database)."""

    def first_number(self) -> int:
        """The first match number this run may use (past every stored one)."""

    def observers(self, match_number: int, request: MatchRequest, names: Sequence[str],
                  owner: Owner) -> list[Callable[[Event], Any]]:
        """The observers that store the match when it ends."""

    def stored(self, match_number: int, game: str) -> int | None:
        """The stored game of that match, if any."""


class MatchBook:
    """The room's matches by id, within ``limits``; ``archive`` keeps finished ones."""

    def __init__(self, limits: RoomLimits = RoomLimits(), archive: Archive | None = None,
                 turns: Turnstile | None = None, clock: Callable[[], float] = time.monotonic,
                 journal: MatchJournal | None = None) -> None:
        self.limits = limits
        self.archive = archive
        self.journal = journal
        self.turns = turns if turns is not None else Turnstile()
        self.clock = clock
        self.matches: dict[str, WebMatch] = {}
        self.checks = UsersChecks()   # each account's bounds on checks, across its matches
        self.first = archive.first_number() if archive is not None else 1
        self._names = registry.names()
        self._games = bytearray()   # the game of every match number from `first` (index + 1)
        self.evicted = 0
        self._trimmed = 0   # `evicted` when the freed memory was last handed back
        self.lock = threading.Lock()

    # -- starting -------------------------------------------------------------------------

    def start(self, request: MatchRequest, owner: Owner = Owner(),
              observers: Sequence[Callable[[Event], Any]] = ()) -> WebMatch:
        """A new match for ``owner``, started at once when it has no person's seat; raises
        :class:`Refused` when the room or the owner's quota is full."""
        limits = self.limits
        with self.lock:
            self._sweep(self.clock())
            live = [m for m in self.matches.values() if m.live]
            if len(live) >= limits.max_live:
                raise Refused(503, f"the room is full: {len(live)} matches are waiting or running, the most it "
                                   f"holds ({limits.key('max_live')}); try again when one has ended")
            if owner.user is not None and sum(m.owner.user == owner.user for m in live) >= limits.matches_per_user:
                raise Refused(429, f"you have {limits.matches_per_user} matches waiting or running, the most one "
                                   f"account may ({limits.key('matches_per_user')}); start another when one has "
                                   "ended")
            if owner.address is not None and \
                    sum(m.owner.address == owner.address for m in live) >= limits.matches_per_address:
                raise Refused(429, f"{limits.matches_per_address} matches started from your address are waiting "
                                   f"or running, the most one address may ({limits.key('matches_per_address')}); "
                                   "start another when one has ended")
            number = self.first + len(self._games)
            self._games.append(self._names.index(request.game.name) + 1)
            match_id = f"{number}-{request.game.name}"
            names = [f"P{i + 1}" for i in range(len(request.seats))]
            stored = self.archive.observers(number, request, names, owner) if self.archive is not None else []
            match = WebMatch(match_id, request, [*observers, *stored], owner=owner, turns=self.turns,
                             clock=self.clock, checks=self.checks, journal=self.journal)
            self.matches[match_id] = match
        if self.journal is not None:   # journaled before its id and tokens are answered
            self.journal.keep(match)
        if not match.humans:
            match.start()
        return match

    def restore(self, number: int, request: MatchRequest, owner: Owner, row: dict[str, Any], feed: Feed | None,
                age: float) -> WebMatch:
        """A journaled match (``row``, made ``age`` seconds ago) built again under its number;
        running, it runs again through ``feed``. New matches are numbered after it."""
        match_id = f"{number}-{request.game.name}"
        names = [f"P{i + 1}" for i in range(len(request.seats))]
        stored = self.archive.observers(number, request, names, owner) if self.archive is not None else []
        match = WebMatch(match_id, request, stored, owner=owner, turns=self.turns, clock=self.clock,
                         checks=self.checks, journal=self.journal)
        with self.lock:
            assert not self._games, "matches are restored before any starts"
            self.first = max(self.first, number + 1)
            self.matches[match_id] = match
        match.restore(row, feed, age)
        return match

    def resume(self, games: dict[str, GameDescriptor[Any, Any]], policies: "WebPolicies | None") -> int:
        """Every match of the journal built again (before the room listens), the running
        ones started; one warning line for each that cannot be, which leaves the journal.
        How many were resumed."""
        journal = self.journal
        assert journal is not None
        loaded, down_at = journal.journal.read()
        resumed = 0
        for number, row in sorted(loaded.rooms.items()):
            try:
                game = games.get(row["game"])
                if game is None:
                    raise ValueError(f"this gameroom has no game {row['game']!r}")
                seats = tuple(str(seat) for seat in row["seats"])
                offered = set(policies.names(game.name)) if policies is not None else set()
                for seat in seats:
                    if seat != HUMAN and seat not in game.strategies and seat not in offered:
                        raise ValueError(f"{seat!r} is no longer a {game.name} player of this room")
                request = MatchRequest(game, seats, int(row["seed"]), seconds(row["time_limit"]), float(row["pace"]),
                                       policies if any(seat in offered for seat in seats) else None,
                                       seconds(row["person_limit"]))
                if self.archive is not None and self.archive.stored(number, game.name) is not None:
                    journal.journal.drop(number)   # it ended, and was stored, as the room was stopped
                    continue
                address, user, name = row["owner"]
                feed = Feed(loaded.entries.get(number, []), down_at) if row["status"] == "running" else None
                self.restore(number, request, Owner(address, user, name), row, feed,
                             time.time() - float(row["created"]))
                resumed += 1
            except (KeyError, TypeError, ValueError) as exc:
                logger.warning("the journal's match %s cannot be resumed: %s: %s", number, type(exc).__name__, exc)
                logger.debug("match %s not resumed", number, exc_info=True)
                journal.journal.drop(number)
        for number in loaded.entries.keys() - loaded.rooms.keys():   # steps of a match whose row was damaged
            journal.journal.drop(number)
        with journal.lock:
            journal.journal.flush()
        return resumed

    # -- finding --------------------------------------------------------------------------

    def get(self, match_id: str) -> WebMatch | None:
        """The match in memory (live, or finished and not yet evicted)."""
        return self.matches.get(match_id)

    def all(self) -> list[WebMatch]:
        with self.lock:
            return list(self.matches.values())

    def find(self, match_id: str) -> WebMatch | Gone | None:
        """The match in memory, or why it is gone (and where it is stored), or None when
        there never was such a match. May ask the results database: call it off the loop."""
        match = self.matches.get(match_id)
        if match is not None:
            return match
        number_text, dash, game = match_id.partition("-")
        if not dash or not number_text.isdigit() or len(number_text) > 18 or game not in self._names:
            return None
        number = int(number_text)
        slot = number - self.first
        ours = 0 <= slot < len(self._games) and self._games[slot] == self._names.index(game) + 1
        if self.archive is not None and (ours or number < self.first):
            stored = self.archive.stored(number, game)
            if stored is not None:
                return Gone(f"match {match_id} is over; it is kept in the results database as game {stored}",
                            stored)
        if not ours:
            return None
        if self.archive is not None:
            return Gone(f"match {match_id} finished and was evicted from memory; it ended without a result, "
                        "so the results database does not hold it")
        return Gone(f"match {match_id} finished and was evicted from memory (a room started with --db URL "
                    "keeps finished matches in its results database)")

    # -- eviction -------------------------------------------------------------------------

    def sweep(self) -> int:
        """Cancel matches whose people did not come, evict finished matches past their
        grace or over the cap (and hand the memory of every match evicted since the last
        sweep back to the system); how many were evicted now."""
        with self.lock:
            evicted = self._sweep(self.clock())
            freed, self._trimmed = self.evicted > self._trimmed, self.evicted
        if freed:
            return_freed_memory()
        return evicted

    def _sweep(self, now: float) -> int:
        limits = self.limits
        for match in list(self.matches.values()):
            if match.status == "waiting" and now - match.created >= limits.join_within:
                match.abandon(f"cancelled: not every person sat down within {limits.join_within:g} s")
        finished = sorted((m for m in self.matches.values() if m.finished is not None),
                          key=lambda m: m.finished or 0.0)
        leaving = [m for m in finished if now - (m.finished or now) >= limits.finished_grace]
        kept = [m for m in finished if m not in leaving]
        if len(kept) > limits.keep_finished:
            kept_by = Counter(m.owner.key for m in kept)
            while len(kept) > limits.keep_finished:
                richest = max(kept_by, key=lambda key: kept_by[key])   # first counted wins a tie: oldest
                oldest = next(m for m in kept if m.owner.key == richest)
                kept.remove(oldest)
                kept_by[richest] -= 1
                leaving.append(oldest)
        for match in leaving:
            del self.matches[match.id]
            match.evict()
        self.evicted += len(leaving)
        return len(leaving)

    def close(self) -> None:
        for match in self.all():
            match.cancel.set()
