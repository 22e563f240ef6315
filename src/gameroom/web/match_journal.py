"""The web room's own matches in the journal (``gameroom web --db URL``): a match waiting
for its people or running survives a kill of the room and goes on where it stood
(docs/ARCHITECTURE.md, "The lobby's journal", which the web room's matches share).

The journal is the lobby's (``server.journal``), in the results database, under its own
scope (``web``): one row per live match — its request (game, seats, seed, limits, pace),
its owner, the digest of each person's seat token (``server.lobby_identity.secret_digest``:
never the token), the accounts its seats belong to, whether it started, when it was made
— and the steps of its game that a seed does not give again:

* ``answer``: the outcome of each decision asked of a person's or a trained policy's seat
  (its answer as the protocol encodes it, or its failure: a time-out, an invalid reply),
  keyed by the seat and the number of the call to it (a seat's calls come in one order,
  whatever the other seats do);
* ``answer`` with a failure, for a built-in strategy: its time-out or exception (its
  answers are its own: it is made again with the match's seed and asked again);
* ``call``: a person's decision asked, with its time limit, so that the one in flight when
  the room stopped is asked again with the time it had left (never more).

Write-ahead: each is committed before the referee goes on with it (so before any frame
that tells of it); the row before the API answers with the match's id and tokens. A match
that ends leaves the journal (the results database has it, stored as it ended).

On start the room builds every journaled match again before it listens: a running one
runs from its seed, its recorded seats answered from the journal (a person's list of
moves is asked again, so what it remembers goes on), its strategies asked again without
a limit, its frames made again for whoever connects — then it is live. A person's page
reconnects by itself, and the seat goes back to its account with its token.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from gameroom.core.calls import Caller, CallFailed
from gameroom.core.protocol import VOID
from gameroom.core.record import FailureKind
from gameroom.server.journal import Journal, Replay
from gameroom.server.journal_store import JournalError, StoredEntry

if TYPE_CHECKING:
    from gameroom.web.people import HumanPlayer

# A match is ``web.matches.WebMatch``, which builds its seats' callers here: typed ``Any``
# (no module imports another that imports it).
WebMatch = Any

__all__ = ["MatchJournal", "Feed", "JournaledCaller", "request_row", "number_of", "seconds"]

def number_of(match_id: str) -> int:
    """The number of a match id (``{number}-{game}``): its key in the journal."""
    return int(match_id.partition("-")[0])


class MatchJournal:
    """The web room's journal: every write is committed at once, under a lock (the
    matches run on threads of their own)."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self.lock = threading.Lock()

    @property
    def where(self) -> str:
        return self.journal.store.where

    def keep(self, match: WebMatch) -> None:
        """``match``'s row written as it stands now."""
        with self.lock:
            self.journal.touch(number_of(match.id), match.journal_row)
            self.journal.flush()

    def step(self, match: WebMatch, kind: str, body: dict[str, Any]) -> None:
        with self.lock:
            self.journal.add(number_of(match.id), kind, body)
            self.journal.flush()

    def leave(self, match: WebMatch) -> None:
        """The match is over (or cannot be resumed): its row and steps leave."""
        with self.lock:
            self.journal.drop(number_of(match.id))
            self.journal.flush()

    def alive(self) -> None:
        with self.lock:
            self.journal.alive()

    def close(self, clean: bool) -> None:
        """Commit and journal nothing more (the room is stopping: what its stop does to
        the matches is not journaled, so the next start resumes them as they stood)."""
        with self.lock:
            self.journal.close(clean)


class Feed:
    """The journaled steps of one match, handed to its seats while it runs again."""

    def __init__(self, entries: list[StoredEntry], down_at: float) -> None:
        self.outcomes: dict[tuple[int, int], dict[str, Any]] = {}
        self.asked: dict[tuple[int, int], tuple[float, float]] = {}   # a person's call -> its start, limit
        for entry in entries:
            key = (int(entry.body["s"]), int(entry.body["n"]))
            if entry.kind == "answer":
                self.outcomes[key] = entry.body
            elif entry.kind == "call":
                self.asked[key] = (entry.at, float(entry.body["limit"]))
            else:
                raise ValueError(f"the journal's step {entry.seq} is of an unknown kind {entry.kind!r}")
        self.clock = Replay([], down_at)

    @property
    def replaying(self) -> bool:
        """Whether journaled outcomes are still to be fed (the match is not live yet)."""
        return bool(self.outcomes)

    def take(self, key: tuple[int, int]) -> dict[str, Any] | None:
        return self.outcomes.pop(key, None)

    def left(self, key: tuple[int, int], limit: float | None) -> float | None:
        """The time the call ``key`` has: all of ``limit``, or — the call in flight when
        the room stopped — what it had left then (never more)."""
        asked = self.asked.pop(key, None)
        if asked is None or limit is None:
            return limit
        return min(limit, self.clock.left(*asked))


class JournaledCaller:
    """A seat's caller whose outcomes the journal keeps (see the module's docstring):
    ``recorded`` for a person's or a policy's seat (every decision's outcome), else a
    built-in strategy's (its failures only); ``human`` the person's player, whose list of
    moves is asked again for the decisions answered from the journal."""

    def __init__(self, match: WebMatch, index: int, caller: Caller, recorded: bool,
                 human: "HumanPlayer | None" = None) -> None:
        self.match, self.index, self.caller, self.recorded, self.human = match, index, caller, recorded, human
        self.calls = 0

    def __call__(self, method: str, args: tuple[Any, ...], limit: float | None) -> Any:
        key = (self.index, self.calls)
        self.calls += 1
        match = self.match
        spec = match.game.protocol.by_name[method]
        decision = spec.result is not VOID
        feed = match.feed
        if feed is not None and feed.replaying:
            journaled = feed.take(key)
            if journaled is not None and journaled.get("m") != method:   # another version of the game
                raise JournalError(f"the journal answers call {key[1]} of seat {key[0]} as one of "
                                   f"{journaled.get('m')!r}, the game asks {method!r}: the match cannot be resumed")
            if journaled is not None:
                if "f" in journaled:
                    reason, kind = journaled["f"]
                    raise CallFailed(reason, FailureKind(kind))
                if "v" in journaled:
                    raise ValueError(journaled["v"])
                if self.recorded:
                    if self.human is not None:
                        self.human.remember(method, args)   # what its list of moves remembers goes on
                    try:
                        return None if journaled.get("none") else spec.result.decode(journaled["r"])
                    except ValueError as exc:   # not an invalid reply of the seat: a journal it cannot be
                        raise JournalError(f"the journal's answer to call {key[1]} of seat {key[0]} does not "
                                           f"decode: {exc}") from None
            if not self.recorded:
                limit = None   # a strategy that answered then answers now: no load may make it fail
        journal = match.journal
        if journal is None:
            return self.caller(method, args, limit)
        if self.recorded and decision:
            if feed is not None:
                left = feed.left(key, limit)
                if left != limit and self.human is not None:
                    self.human.limit_once(left)
                limit = left
            if limit is not None:
                journal.step(match, "call", {"s": key[0], "n": key[1], "limit": limit})
        said = {"s": key[0], "n": key[1], "m": method}
        try:
            result = self.caller(method, args, limit)
        except CallFailed as exc:
            journal.step(match, "answer", {**said, "f": [exc.reason, exc.kind.value]})
            raise
        except ValueError as exc:
            journal.step(match, "answer", {**said, "v": str(exc)})
            raise
        if self.recorded and decision:
            journal.step(match, "answer", {**said, **({"none": True} if result is None
                                                      else {"r": spec.result.encode(result)})})
        return result


def request_row(match: WebMatch) -> dict[str, Any]:
    """The part of a match's journal row that says what was asked for."""
    request = match.request
    return {"game": request.game.name, "seats": list(request.seats), "seed": request.seed,
            "time_limit": request.time_limit, "pace": request.pace, "person_limit": request.person_limit}


def seconds(value: Any) -> float | None:
    """A journaled limit: seconds, or None."""
    return None if value is None else float(value)
