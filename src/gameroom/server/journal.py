"""The lobby's journal: every room and every step of every game, written before it is
announced, so a lobby killed at any moment starts again with every room where it stood
(docs/ARCHITECTURE.md, "The lobby's journal").

The games are deterministic given a seed and the players' answers, so a game is kept as
its room (the game, options, seats, privacy, its creator's address), its seed, and what
happened in order — each answer to its referee's calls (a room played by calls) or each
change the lobby applied to its state (a room played by events). On start the lobby builds
each room again and runs its game again from the seed, feeding it the journaled steps
without telling anyone, up to the last whole step; then it goes live. House bots are made
again with their own seeds and asked again during the replay (their answers are their own
and the same), so their randomness goes on as it would have.

Write-ahead: the lobby adds entries as it changes a game (:meth:`Journal.add`) and marks
the rooms whose seats changed (:meth:`Journal.touch`); nothing reaches a socket before
:meth:`Journal.flush` committed every entry added so far — a connection's writer flushes
before it writes (``server.lobby_members.Client.write_loop``) — so one transaction holds every
change of one turn of the loop, and the messages announcing them follow.

Time: every entry carries the wall-clock time it was made, and the lobby notes that it is
alive every :data:`TICK` seconds. A call in flight when the lobby stopped is asked again
with the time it had left at the latest moment the lobby may have died (never more);
the time the lobby was down is nobody's.

The journal holds waiting rooms, games in progress and finished games whose end a held
seat has not yet collected; a room leaves it (with its entries) when it ceases to exist.
Its store is ``server.journal_store``.

For the tests of a stop at the worst moment, ``GAMEROOM_JOURNAL_STOP_AFTER=start`` in the
environment kills the process (SIGKILL) right after the commit that first journals a
game's start, before ``START_GAME`` is written to anyone.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import time
from dataclasses import dataclass
from typing import Any, Callable

from gameroom.server.journal_store import JournalError, JournalStore, Loaded, StoredEntry

__all__ = ["Journal", "JournalError", "FORMAT", "TICK", "RoomRecord", "SeatRecord", "Replay", "ReplayDiverged", "open_journal"]

logger = logging.getLogger(__name__)

FORMAT = "1"
"""The format of the journal's rows and entries: a journal of another is refused."""
TICK = 1.0
"""Seconds between the lobby's notes that it is alive."""
STOP_VARIABLE = "GAMEROOM_JOURNAL_STOP_AFTER"
"""The environment variable of the tests' stop (see the module's docstring)."""


@dataclass(frozen=True)
class SeatRecord:
    """A seat of a journaled room: a house bot (its strategy and seed), or a connection's
    (its name, its seat's settings and what proves it is the connection that left: its
    reconnect secret as its digest, ``server.lobby_identity.secret_digest``, never the
    secret), or a seat that is out of the game (``gone``)."""

    name: str
    bot: str | None = None
    seed: int = 0
    settings: tuple[bool, bool, bool] = (False, False, False)   # person, views, pictures
    account: bool = False
    secret: str | None = None   # the digest of the reconnect secret
    address: str | None = None
    gone: bool = False

    def row(self) -> dict[str, Any]:
        if self.bot is not None:
            return {"name": self.name, "bot": self.bot, "seed": self.seed}
        if self.gone:
            return {"name": self.name, "gone": True}
        return {"name": self.name, "settings": list(self.settings), "account": self.account,
                "secret_sha256": self.secret, "address": self.address}

    @classmethod
    def of(cls, row: dict[str, Any]) -> "SeatRecord":
        if row.get("bot") is not None:
            return cls(row["name"], bot=row["bot"], seed=int(row["seed"]))
        if row.get("gone"):
            return cls(row["name"], gone=True)
        person, views, pictures = (bool(v) for v in row["settings"])
        return cls(row["name"], settings=(person, views, pictures), account=bool(row.get("account")),
                   secret=row.get("secret_sha256"), address=row.get("address"))


@dataclass(frozen=True)
class RoomRecord:
    """A journaled room: its game, size, options (as its listing shows them), privacy,
    creator's address, seats, and once its game started the seed and ``START_GAME``; once
    it is over, the messages that ended it for each held seat (by seat) not yet collected."""

    id: int
    game: str
    players: int
    options: dict[str, Any]
    private: bool
    address: str
    seats: list[SeatRecord]
    seed: int | None = None
    start: dict[str, Any] | None = None
    ended: dict[str, list[dict[str, Any]]] | None = None

    def row(self) -> dict[str, Any]:
        return {"game": self.game, "players": self.players, "options": self.options, "private": self.private,
                "address": self.address, "seats": [seat.row() for seat in self.seats], "seed": self.seed,
                "start": self.start, "ended": self.ended}

    @classmethod
    def of(cls, room_id: int, row: dict[str, Any]) -> "RoomRecord":
        return cls(room_id, row["game"], int(row["players"]), dict(row["options"]), bool(row["private"]),
                   str(row["address"]), [SeatRecord.of(seat) for seat in row["seats"]],
                   row.get("seed"), row.get("start"), row.get("ended"))


class Replay:
    """The journaled steps of one game, handed out in order while the game runs again."""

    def __init__(self, entries: list[StoredEntry], down_at: float) -> None:
        self.entries = entries
        self.next = 0
        self.down_at = down_at   # the latest moment the lobby may have died (wall clock)

    def take(self) -> StoredEntry | None:
        """The next step, or None once every journaled step was fed (the game is live)."""
        if self.next >= len(self.entries):
            return None
        entry = self.entries[self.next]
        self.next += 1
        return entry

    @property
    def done(self) -> bool:
        return self.next >= len(self.entries)

    def left(self, started: float, limit: float) -> float:
        """The seconds a call started at ``started`` (wall clock) with ``limit`` had left
        at the latest moment the lobby may have died: never more than it had."""
        return max(0.0, limit - max(0.0, self.down_at - started))

    def outcome(self, index: int, call: int | None, gone: Callable[[int, str], None],
                started: dict[int, tuple[float, float]]) -> StoredEntry | None:
        """The journaled outcome of the call ``call`` to seat ``index`` (None: a house
        bot's answer), the steps journaled before it applied on the way — a departure
        (``gone(seat, why)``), a call's start and limit (into ``started``); None once every
        step was fed (the game is live from here). :class:`ReplayDiverged` when the journal
        answers another call than the game asks."""
        while (entry := self.take()) is not None:
            body = entry.body
            if entry.kind == "gone":
                gone(body["s"], body["why"])
            elif entry.kind == "call":
                started[body["c"]] = (entry.at, body["limit"])
            elif body.get("s") != index or body.get("c") != call:
                raise ReplayDiverged(f"the journal's step {entry.seq} answers seat {body.get('s')}'s call "
                                     f"{body.get('c')}, the game asks seat {index}'s call {call}")
            else:
                return entry
        return None


class ReplayDiverged(Exception):
    """The game asked, running again, another call than the journal answers next (a
    journal of another version of the game): the room cannot be resumed."""


class Journal:
    """The write-ahead journal of one lobby (a store, and the batch not yet committed)."""

    def __init__(self, store: JournalStore) -> None:
        self.store = store
        self.entries: list[tuple[int, int, float, str, str]] = []
        self.touched: dict[int, Callable[[], dict[str, Any] | None]] = {}
        self.gone: set[int] = set()
        self.meta: dict[str, str] = {}
        self.cut: list[tuple[int, int]] = []
        self.seqs: dict[int, int] = {}
        self.open = True
        self.batches = 0
        self.stop_after = os.environ.get(STOP_VARIABLE)

    # -- writing --------------------------------------------------------------------------

    def add(self, room: int, kind: str, body: dict[str, Any]) -> None:
        """A step of room ``room``'s game, journaled with the next flush (before anything
        sent after it)."""
        if not self.open:
            return
        seq = self.seqs.get(room, 0)
        self.seqs[room] = seq + 1
        self.entries.append((room, seq, time.time(), kind, json.dumps(body, ensure_ascii=False,
                                                                    separators=(",", ":"))))

    def touch(self, room: int, describe: Callable[[], dict[str, Any] | None]) -> None:
        """Room ``room``'s row is written again at the next flush, as ``describe()`` says
        then (None: the room is gone)."""
        if self.open:
            self.touched[room] = describe

    def drop(self, room: int) -> None:
        """The room ceased to exist: its row and entries leave the journal."""
        if not self.open:
            return
        self.touched.pop(room, None)
        self.gone.add(room)
        self.seqs.pop(room, None)
        self.entries = [entry for entry in self.entries if entry[0] != room]

    def ended(self, room: int) -> None:
        """The room's game is over (its end is kept in its row): its steps leave."""
        if not self.open:
            return
        self.entries = [entry for entry in self.entries if entry[0] != room]
        if self.seqs.pop(room, None) is not None:
            self.cut.append((room, 0))

    def note(self, key: str, value: Any) -> None:
        if self.open:
            self.meta[key] = str(value)

    @property
    def pending(self) -> bool:
        return bool(self.entries or self.touched or self.gone or self.meta or self.cut)

    def flush(self) -> None:
        """Commit what was added since the last flush (one transaction)."""
        if not self.pending:
            return
        rows: dict[int, str | None] = {room: None for room in self.gone}
        for room, describe in self.touched.items():
            row = describe()
            rows[room] = None if row is None else json.dumps(row, ensure_ascii=False, separators=(",", ":"))
        entries, meta, cut = self.entries, self.meta, self.cut
        self.entries, self.touched, self.gone, self.meta, self.cut = [], {}, set(), {}, []
        self.store.write(rows, entries, meta, cut)
        self.batches += 1
        if self.stop_after == "start" and "games_started" in meta:   # a game's start was just committed
            os.kill(os.getpid(), signal.SIGKILL)

    def alive(self) -> None:
        """Note that the lobby is alive now (and commit)."""
        self.note("alive", repr(time.time()))
        self.flush()

    def close(self, clean: bool) -> None:
        """Commit what is pending and journal nothing more (the lobby is stopping)."""
        if not self.open:
            return
        if clean:
            self.note("alive", repr(time.time()))
            self.note("clean", "1")
        try:
            self.flush()
        finally:
            self.open = False
            self.store.close()

    # -- reading --------------------------------------------------------------------------

    def read(self) -> tuple[Loaded, float]:
        """What the journal holds, checked: its rooms, their entries, and the latest
        moment the lobby may have died. A journal of another format is refused (one
        line); each damaged room is said in one warning line, and its damaged tail is cut
        at the next flush."""
        loaded = self.store.load()
        found = loaded.meta.get("format")
        if found is not None and found != FORMAT:
            raise JournalError(f"the journal {self.store.where} is of format {found}, this gameroom reads format "
                               f"{FORMAT}: its games cannot be resumed; move it aside to start afresh")
        for line in loaded.damaged:
            logger.warning("the journal %s: %s", self.store.where, line)
        for room, steps in loaded.entries.items():
            self.seqs[room] = len(steps)
            self.cut.append((room, len(steps)))
        for room in loaded.rooms:
            self.seqs.setdefault(room, 0)
        self.note("format", FORMAT)
        self.note("clean", "0")
        alive = _float(loaded.meta.get("alive"))
        clean = loaded.meta.get("clean") == "1"
        last = max((steps[-1].at for steps in loaded.entries.values() if steps), default=0.0)
        down_at = max(alive if alive is not None else 0.0, last) + (0.0 if clean else TICK)
        return loaded, down_at


def open_journal(where: str, scope: str = "lobby") -> Journal:
    """The journal at ``where`` (a file name or a database URL), created or migrated: its
    rows of ``scope`` (a lobby's rooms, or a web room's own matches: ``web``)."""
    return Journal(JournalStore(where, scope))


def _float(text: str | None) -> float | None:
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None
