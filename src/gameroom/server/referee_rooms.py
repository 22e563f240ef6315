"""Rooms played by calls: the game's own referee, run with the room's seats, asking each
player through the lobby connection (docs/lobby.md, "Rooms played by calls").

When such a room fills, :class:`RefereeGame` runs the descriptor's ``play_room`` — the
same referee, the same ``core.match.Match`` and legality checks as ``gameroom serve`` —
in a greenlet on the lobby's loop. A seat's call is sent as ``CALL`` (the method's wire
name, its arguments in the game protocol's own codecs) and the referee's greenlet
switches back to the loop; the seat's ``REPLY`` (or its time limit, or its departure)
switches into it again with the answer (or the failure), and the referee runs on to
its next call. So the lobby's rule holds for these rooms too: everything happens on the
loop, one message at a time, with no lock; and a room costs no thread. A house bot
(``ADD_BOT``) is a trusted seat whose decisions are thought on a worker thread of the
lobby (``Lobby.thinkers``), the referee waiting meanwhile: a room of bots never holds the
loop for a whole game, nor a slow search for one decision.

The referee's events become messages: a state goes to every seat that asked for views,
as that seat's own view, and to the spectators as the public view (``GAME_STATE``), never
another seat's secret (made once a step: ``server.room_views``); an ejection is ``PLAYER_DISCONNECT`` (the ejected seat is back in
the lobby and the game goes on without it, as the referee says); the result is
``END_GAME``. A person's seat has the game's person limit and is offered the legal moves
of each decision; an answer it was not offered, or that the game's codec cannot read, is
refused (``NACK``) and the person may try again within the limit; a call that asks the
person no decision is only told (``oneWay``), as the web room's person is. Any other seat is held
to what ``serve`` holds a remote player to: a reply that does not decode ejects it.

Journal (``server.journal``): the referee tells the lobby each outcome of a call (a seat's
answer as it came on the wire, or its failure), the start and limit of each timed call to
a connection's seat, a house bot's answer (its place in the order) and each departure. A
game resumed after a restart runs again from its seed with a :class:`Replay` of them: the
calls are answered from the journal (house bots and the person's moves are asked again,
on the loop, so their own state goes on as it did), nothing is sent, and at the end of the
journal the game is live, the call then in flight asked with the time it had left.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from greenlet import getcurrent, greenlet

from gameroom.core.calls import Caller, CallFailed
from gameroom.core.composed import MAX_CHECKS, composed_problem
from gameroom.core.context import MatchContext
from gameroom.core.match import MatchCancelled, Seat
from gameroom.core.protocol import VOID, Method
from gameroom.core.record import EJECT, Event, FailureKind
from gameroom.server.journal import Replay, ReplayDiverged
from gameroom.server.lobby_checks import CheckFailed, Question, checked, judges
from gameroom.server.lobby_games import Hosted, HouseBot
from gameroom.server.room_views import StepViews

__all__ = ["RefereeGame", "REASONS", "ReplayDiverged"]

logger = logging.getLogger(__name__)

REASONS = {FailureKind.TIMEOUT: "TIMEOUT", FailureKind.DISCONNECT: "CONNECTION_LOST"}
"""``PLAYER_DISCONNECT``'s reason for an ejection of each kind (else ``EJECTED``)."""

_ACK = {"type": "ACK"}
_CANCEL = ("cancel",)


@dataclass(eq=False)
class Pending:
    """A call waiting for a seat's reply."""

    seat: int
    call: int
    spec: Method
    offered: list[tuple[str, Any]] | None
    limit: float | None
    args: tuple[Any, ...] = ()
    message: dict[str, Any] | None = None   # the CALL (sent again to a seat that comes back)
    deadline: float | None = None           # the loop's time its limit runs out
    question: Question | None = None        # what a CHECK of it asks the judges (made at the first)


class RefereeGame:
    """The running game of one room played by calls (made when the room is full)."""

    def __init__(self, lobby: Any, room: Any, hosted: Hosted, seed: int, replay: Replay | None = None,
                 people: list[bool] | None = None) -> None:
        assert hosted.descriptor is not None
        self.lobby, self.room, self.hosted, self.seed = lobby, room, hosted, seed
        self.game = hosted.descriptor
        self.loop = asyncio.get_running_loop()
        self.names = list(room.usernames)
        # the person's seats (``people``: as journaled, for a game resumed with its seats held)
        self.people = people if people is not None else [bool(getattr(m, "person", False)) for m in room.members]
        self.moves: list[Callable[[str, tuple[Any, ...]], Any] | None] = [
            self.game.person_moves() if person else None for person in self.people]
        # how a person's composed answer (not offered: a Q turn of several tiles) is judged
        self.checks = [self.game.person_check(moves) if moves is not None else None for moves in self.moves]
        if any(check is not None for check in self.checks):
            judges().warm()   # a person's first CHECK need not wait for the judging process to start
        self.calls = itertools.count(1)
        self.cancel = threading.Event()
        self.suspended_on: Any = None      # what the referee waits for: a Pending, a yield
        self.announced: set[int] = set()   # seats whose departure the room was told
        self.held: set[int] = set()        # seats whose person lost the connection, held for the grace
        self.gone: dict[int, str] = {}     # seats that left: why (their next call fails with it)
        self.runner = greenlet(self._main)
        self.over = False
        self.replied_at: float | None = None   # when the last REPLY arrived, while the lobby measures
        self.replay = replay   # the journaled steps still to feed (None: live)
        self.down_at = replay.down_at if replay is not None else 0.0
        self.started: dict[int, tuple[float, float]] = {}   # a replayed call -> its journaled start and limit
        self.views = StepViews(self.game, self.names, seed, self._log, lobby.encode, self._drawn)

    @property
    def state(self) -> Any:
        """The latest state the referee reported (None before the first)."""
        return self.views.state

    @property
    def step(self) -> int:
        """How many states the referee reported."""
        return self.views.step

    def _drawn(self) -> None:
        self.lobby.drawings += 1

    # -- running ------------------------------------------------------------------------

    def begin(self) -> None:
        """Start the referee (it runs until it first waits for a seat)."""
        if not self.over and not self.runner:
            self._resume()

    def _resume(self, *outcome: Any) -> None:
        """Run the referee until it gives the loop back (timed when the lobby measures: the
        loop thread's processor time, which a loaded machine's preemptions do not inflate)."""
        slices = self.lobby.slices
        if slices is None:
            self.runner.switch(*outcome)
            return
        start = time.thread_time()
        self.runner.switch(*outcome)
        slices.append(time.thread_time() - start)

    def stop(self) -> None:
        """The room is gone: the referee stops at once (no result)."""
        self.cancel.set()
        if self.runner and not self.runner.dead:
            self._wake(self.suspended_on, _CANCEL)
        self.over = True

    def _main(self) -> None:
        seats = [self._seat(i, member) for i, member in enumerate(self.room.members)]
        try:
            result = self._play(seats)
        except MatchCancelled:
            return
        except ReplayDiverged:   # the lobby resuming it says so, and drops the room
            self.over = True
            raise
        except Exception as exc:   # a broken game must not take the lobby down
            logger.debug("room %s: the game failed", self.room.id, exc_info=True)
            logger.info(f"room {self.room.id}: the game failed: {type(exc).__name__}: {exc}")
            outcome: dict[str, Any] = {"type": "END_GAME", "winners": [],
                                       "error": f"the game failed: {type(exc).__name__}: {exc}"[:500]}
        else:
            outcome = _end_message(result)
            outcome["narration"] = self.views.end_lines(result)
        self.over = True
        self.lobby.referee_over(self.room, outcome)

    def _play(self, seats: list[Seat]) -> Any:
        """The descriptor's game for the room's seats and options."""
        context = MatchContext(observers=(self._observe,), cancel=self.cancel)   # the game's limits
        return self.game.play_room(self.seed, seats, self.room.options, context)

    def _log(self, text: str) -> None:
        """One of the lobby's lines about this room (said once: not again while the game
        runs again from the journal)."""
        if self.replay is not None:
            return
        logger.info(f"room {self.room.id}: {text}")

    def _suspend(self, on: Any) -> Any:
        """Give the loop back until ``_wake(on, outcome)``; the outcome."""
        self.suspended_on = on
        parent = self.runner.parent
        assert parent is not None
        outcome = parent.switch()
        if outcome is _CANCEL:
            raise MatchCancelled("the room is gone")
        return outcome

    def _wake(self, on: Any, outcome: Any) -> None:
        """Resume the referee waiting for ``on`` (nothing when it waits for something else)."""
        if on is None or self.suspended_on is not on or self.runner.dead:
            return
        if getcurrent() is self.runner:   # from inside the referee: once it has given the loop back
            self.loop.call_soon(self._wake, on, outcome)
            return
        self.suspended_on = None
        self._resume(outcome)

    # -- seats --------------------------------------------------------------------------

    def _seat(self, index: int, member: Any) -> Seat:
        name = self.names[index]
        if isinstance(member, HouseBot):
            return Seat(name, self._bot_caller(member.player, index), trusted=True, player=member.player)

        def call(method: str, args: tuple[Any, ...], limit: float | None) -> Any:
            return self._call(index, method, args, limit)

        return Seat(name, call, trusted=False)

    def _off_loop(self, work: Callable[..., Any], *args: Any) -> Any:
        """``work(*args)`` on one of the lobby's worker threads, the loop going on and the
        referee waiting meanwhile as for a remote seat's reply; its result, or its error."""
        if self.replay is not None:   # running again from the journal: at once, on the loop
            return work(*args)
        thought = self.loop.run_in_executor(self.lobby.thinkers(), work, *args)
        token = object()
        thought.add_done_callback(lambda done: self._wake(token, done))
        done = self._suspend(token)
        error = done.exception()
        if error is not None:
            raise error
        return done.result()

    def _bot_caller(self, player: Any, index: int) -> Caller:
        """A house bot's seat: each decision is thought off the loop (a search, Fish's
        maximin, took 35 ms for one move)."""
        def call(method: str, args: tuple[Any, ...], limit: float | None) -> Any:   # a bot has no limit
            try:
                return self._off_loop(getattr(player, method), *args)
            except MatchCancelled:
                raise
            except Exception as exc:   # a built-in's bug ejects it, as in any game
                logger.debug("house bot's %s failed", method, exc_info=True)
                raise CallFailed(f"raised {type(exc).__name__}: {exc}") from None
            finally:
                if not self.cancel.is_set():
                    self._bot_answered(index)

        return call

    # -- the journal ------------------------------------------------------------------------

    def _bot_answered(self, index: int) -> None:
        """A house bot answered: its place in the order of the journal (its answer is its
        own, asked again when the game runs again)."""
        if self.replay is not None and self._replayed(index, None) is not None:
            return
        self.lobby.note(self.room, "bot", {"s": index})

    def _replayed(self, index: int, call: int | None) -> Any:
        """The journaled outcome of the call ``call`` to seat ``index`` (``Replay.outcome``);
        None once the journal is fed (the game is live from here)."""
        assert self.replay is not None
        entry = self.replay.outcome(index, call, self._gone, self.started)
        if entry is None:
            self.replay = None
        return entry

    def _gone(self, index: int, why: str) -> None:
        """A journaled departure, applied again."""
        self.held.discard(index)
        self.gone[index] = why
        self.announced.add(index)

    def _call(self, index: int, method: str, args: tuple[Any, ...], limit: float | None) -> Any:
        member = self._present(index)
        spec = self.game.protocol.by_name[method]
        limit = self.lobby.config.seat_limit(self.people[index], self.game.person_limit, limit)
        offered = None
        moves = self.moves[index]
        if moves is not None:
            try:   # every call, in order (it may remember them), off the loop (Evolution's took 50 ms)
                offered = self._off_loop(moves, spec.name, args)
            except MatchCancelled:
                raise
            except Exception as exc:   # the game's helper failed: the person goes without a list
                logger.debug("moves of %s failed", spec.wire, exc_info=True)
                self._log(f"moves of {spec.wire} failed: {type(exc).__name__}: {exc}")
            member = self._present(index)   # it may have left, or lost or regained its connection, meanwhile
        pending = Pending(index, next(self.calls), spec, offered if spec.result is not VOID else None, limit, args)
        message: dict[str, Any] = {"type": "CALL", "call": pending.call, "method": spec.wire,
                                   "args": spec.encode_args(args)}
        self.lobby.calls += 1
        if self.replied_at is not None and self.lobby.latencies is not None:
            self.lobby.latencies.append(time.perf_counter() - self.replied_at)
            self.replied_at = None
        if spec.one_way or moves is not None and pending.offered is None:
            # told, not asked: a one-way call; or, to a person, a call that asks no decision
            # (the game offers no moves for it), answered as the web room's person answers it
            message["oneWay"] = True
            if member is not None:   # a held seat misses what it is only told: its view tells the rest
                member.send(message)
            return None
        if limit is not None:
            message["limit"] = limit
        if pending.offered is not None:
            message["moves"] = [{"label": label, "action": action} for label, action in pending.offered]
            message["asks"] = self.game.decision(spec.name)   # the game's words for what the call asks
        pending.message = message
        left = limit
        if self.replay is not None:
            entry = self._replayed(index, pending.call)
            if entry is not None:
                if "f" in entry.body:
                    why, kind = entry.body["f"]
                    raise CallFailed(why, FailureKind(kind))
                return spec.result.decode(entry.body["r"])
            started = self.started.get(pending.call)   # live from here: the call in flight when the lobby stopped
            if started is not None and limit is not None:
                at, journaled = started
                left = min(limit, max(0.0, journaled - max(0.0, self.down_at - at)))   # never more than it had
                message["limit"] = round(left, 3)
                self.lobby.note(self.room, "call", {"c": pending.call, "s": index, "limit": left})
        elif limit is not None:
            self.lobby.note(self.room, "call", {"c": pending.call, "s": index, "limit": limit})
        if member is not None:   # a held seat is sent it when it comes back
            member.send(message)
        timer = None
        if left is not None:
            pending.deadline = self.loop.time() + left
            timer = self.loop.call_later(left, self._expire, pending)
        try:
            kind, value = self._suspend(pending)
        finally:
            if timer is not None:
                timer.cancel()
        if kind == "reply":
            answer, wire = value
            self.lobby.note(self.room, "answer", {"c": pending.call, "s": index, "r": wire})
            return answer
        self.lobby.note(self.room, "answer", {"c": pending.call, "s": index, "f": [value[0], FailureKind(value[1]).value]})
        raise CallFailed(*value)

    def _present(self, index: int) -> Any:
        """The member of seat ``index`` to call, None while its seat is held for its
        person; the call fails (the seat is ejected) if it left the room."""
        member = self.room.members[index]
        if member is None and index in self.held:
            return None
        if member is None or member.room is not self.room:
            raise CallFailed(self.gone.get(index, "left the room"), FailureKind.DISCONNECT)
        return member

    def _expire(self, pending: Pending) -> None:
        assert pending.limit is not None
        self._wake(pending, ("fail", (f"no reply within the time limit of {pending.limit:g} s", FailureKind.TIMEOUT)))

    # -- what the lobby hands over --------------------------------------------------------

    def waiting(self, index: int) -> Pending | None:
        on = self.suspended_on
        return on if isinstance(on, Pending) and on.seat == index else None

    def reply(self, client: Any, message: dict[str, Any]) -> None:
        """A ``REPLY`` from the seat of ``client``."""
        pending = self.waiting(client.seat)
        if pending is None:
            client.send(_nack("No call is waiting for your reply"))
            return
        call = message.get("call")
        if call is not None and call != pending.call:
            client.send(_nack(f"Not the call waiting for your reply (call {pending.call})"))
            return
        person = self.people[client.seat]
        wire = pending.spec.wire
        try:
            if "result" not in message:
                raise ValueError("a REPLY carries the call's result under \"result\"")
            value = pending.spec.result.decode(message["result"])
        except ValueError as exc:
            client.send(_nack(f"Invalid reply to {wire}: {exc}"))
            if not person:   # held to what serve holds a remote player to; a person may try again
                self._wake(pending, ("fail", (f"invalid reply to {wire}: {exc}", FailureKind.INVALID_REPLY)))
            return
        if person and pending.offered is not None and all(message["result"] != a for _, a in pending.offered):
            refusal = f"Not one of the {len(pending.offered)} legal moves offered for {wire}"
            check = self.checks[client.seat]
            problem = refusal if check is None else composed_problem(pending.spec, pending.args, message["result"],
                                                                      check)
            if problem is not None:   # the game's own rules take a legal answer composed on a board
                client.send(_nack(refusal if check is None else f"{refusal}, nor legal: {problem}"))
                return
        client.send(_ACK)   # taken: what the referee makes of it follows
        if self.lobby.latencies is not None:
            self.replied_at = self.lobby.arrived
        self._wake(pending, ("reply", (value, message["result"])))

    def check(self, client: Any, message: dict[str, Any]) -> Awaitable[None] | None:
        """A ``CHECK``: what the game's own rules find wrong with each tentative answer
        (``results``) to the call waiting for the person's seat of ``client``, nothing
        taken — ``CHECKED`` ``{"call", "problems"}`` (null: legal). Judged off the loop
        (``server.lobby_checks``), within the client's allowance: the awaitable returned
        sends the answer (the lobby reads no more of the client's requests meanwhile); a
        refusal is sent at once (None returned)."""
        pending = self.waiting(client.seat)
        if pending is None or pending.offered is None:
            client.send(_nack("No call is waiting for your reply"))
            return None
        results = message.get("results")
        if not isinstance(results, list) or len(results) > MAX_CHECKS:
            client.send(_nack(f"A CHECK carries results: a list of at most {MAX_CHECKS} answers"))
            return None
        if pending.question is None:
            pending.question = Question(self.game.name, pending.spec.name, pending.args,
                                        [action for _, action in pending.offered], self.checks[client.seat])
        return self._judged(client, pending, pending.question, results)

    async def _judged(self, client: Any, pending: Pending, question: Question, results: list[Any]) -> None:
        """``CHECKED`` for ``results``, once the client's allowance lets them be judged."""
        try:
            problems = await checked(question, results, client.checks)
        except CheckFailed as exc:
            client.send(_nack(f"The CHECK could not be judged: {exc}"))
            return
        client.send({"type": "CHECKED", "call": pending.call, "problems": problems})

    def departed(self, index: int, reason: str, why: str) -> None:
        """The member of seat ``index`` left the room or lost its connection: the room is
        told now; the referee ejects the seat at its call (at once if it waits for it)."""
        self.held.discard(index)
        self.gone[index] = why
        self.lobby.note(self.room, "gone", {"s": index, "why": why})
        if index not in self.announced:
            self.announced.add(index)
            self.lobby.tell(self.room, {"type": "PLAYER_DISCONNECT", "username": self.names[index],
                                        "roomClosed": False, "reason": reason})
        pending = self.waiting(index)
        if pending is not None:
            self._wake(pending, ("fail", (why, FailureKind.DISCONNECT)))

    def hold(self, index: int) -> None:
        """Seat ``index``'s person lost the connection: its seat is held (the lobby's
        reconnect grace); a call waiting for it goes on waiting within its own limit."""
        self.held.add(index)

    def returned(self, index: int, client: Any) -> None:
        """The held seat ``index`` is ``client``'s again: its view of the game, then the
        call waiting for it sent again, with what is left of its limit (never more)."""
        self.held.discard(index)
        client.send(self.view_message(index))
        pending = self.waiting(index)
        if pending is not None and pending.message is not None:
            message = dict(pending.message)
            if pending.deadline is not None:
                message["limit"] = round(max(0.0, pending.deadline - self.loop.time()), 3)
            client.send(message)

    # -- views ----------------------------------------------------------------------------

    def _observe(self, event: Event) -> None:
        if self.views.tell(event):   # a new state: to the seats that asked for views, and the spectators
            for member in self.room.members:
                if member is not None and getattr(member, "views", False) and member.room is self.room:
                    member.send(self.view_message(member.seat))
            for watcher in self.room.watchers:
                watcher.send(*self.views.spectator_message(watcher.pictures))
        elif event.kind == EJECT:
            ejection = event.subject
            self._log(str(ejection))   # the match's own line is not opened in a lobby: this one says it
            index = ejection.seat
            if index not in self.announced:
                self.announced.add(index)
                self.lobby.tell(self.room, {"type": "PLAYER_DISCONNECT", "username": ejection.name,
                                            "roomClosed": False, "reason": REASONS.get(ejection.kind, "EJECTED"),
                                            "message": ejection.reason, "method": ejection.method,
                                            "asks": self.game.decision(ejection.method)})
            self.lobby.unseat(self.room, index)

    def view_message(self, index: int) -> dict[str, Any]:
        """``GAME_STATE`` of the latest state as seat ``index`` may see it (with its
        picture for a member that asked for ``pictures``)."""
        member = self.room.members[index] if index < len(self.room.members) else None
        return self.views.seat_message(index, bool(getattr(member, "pictures", False)))


def _nack(text: str) -> dict[str, Any]:
    return {"type": "NACK", "errorMessage": text}


def _end_message(result: Any) -> dict[str, Any]:
    """``END_GAME`` of a result: the winners and who misbehaved, by name, the ranking and
    the scores (``core.record.MatchResult``)."""
    record = result.to_record()
    return {"type": "END_GAME", "winners": record["winners"], "misbehaved": record["misbehaved"],
            "ranking": record["ranking"], "scores": record["scores"]}
