"""A person's tentative answers judged off the server's loop, within bounds per user: the
lobby's ``CHECK`` (docs/lobby.md) and the web room's ``{"check": [...]}`` both ask here.

A check asks the game's own legality rules about up to 256 composed answers (a Q turn of
several tiles) without taking any. Each answer costs a few tens of microseconds, a whole
question several milliseconds: run on the loop, 8 persons flooding checks took another
client's round trip from 0.6 to 187 ms (the lobby) and 254 ms (the web room). And a
worker *thread* would not do: it holds the interpreter's lock, and the loop waits up to
the lock's switch interval (5 ms) each time it wants it back. So:

* a question is judged in a worker **process** (:class:`Judges`: one process,
  ``python -m gameroom.server.lobby_checks``, started when a person who may check sits
  down, shared by the servers of this process; a process of its own module, so nothing
  of the server's main module runs again in it): the call's arguments, the answers
  offered and the game's check are pickled once per call (:class:`Question`) and cross a
  pipe with each question's answers; a game whose question does not pickle is judged on
  a thread instead;
* each user has **one question in flight** (the lobby reads no more of a connection's
  requests until its check is answered, so answers stay in order; the web room's seat
  judges one question at a time) and an **allowance** of answers per second
  (:class:`Allowance`, a token bucket: :data:`CHECK_RATE` a second, :data:`CHECK_BURST`
  at once); a question beyond it waits before it is looked at, as a failed join does;
* a question judged for longer than :data:`CHECK_SECONDS` is answered as too slow, and
  the worker process is replaced.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import itertools
import logging
import os
import pickle
import queue
import struct
import subprocess
import sys
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable

from gameroom.core.composed import MAX_CHECKS, composed_problem
from gameroom.core.errors import GameroomError

__all__ = ["Allowance", "UserChecks", "UsersChecks", "Judges", "Question", "CheckFailed", "NOT_OFFERED", "CHECK_RATE", "CHECK_BURST",
           "CHECK_SECONDS", "MAX_CHECKS", "checked", "judges"]

logger = logging.getLogger(__name__)

CHECK_RATE = 512.0
"""Answers one user may have judged per second, on average."""
CHECK_BURST = 4 * MAX_CHECKS
"""Answers one user may have judged at once after a pause (four full questions)."""
CHECK_SECONDS = 10.0
"""The longest one question is judged before it is answered as too slow."""
NOT_OFFERED = "\0not offered"
"""A judged answer that is not among the offered ones, for a game without a check (each
server words it)."""


class CheckFailed(GameroomError):
    """A question could not be judged (too slow, or the judging process failed)."""


@dataclass
class Question:
    """What a check is asked about: the game (by its registered name), the call (the
    protocol's method name and its arguments), the answers offered (JSON) and the game's
    check for this seat (``GameDescriptor.person_check``; None: only the offers are
    legal). :meth:`packed` is it pickled, once."""

    game: str
    method: str
    args: tuple[Any, ...]
    offered: list[Any]
    check: Callable[[str, tuple[Any, ...], Any], str | None] | None
    _packed: bytes | None = field(default=None, repr=False)
    _unpicklable: bool = field(default=False, repr=False)

    def packed(self) -> bytes | None:
        """The question pickled (made once); None when it cannot be (then it is judged in
        this process, on a thread)."""
        if self._packed is None and not self._unpicklable:
            try:
                self._packed = pickle.dumps((self.game, self.method, self.args, self.offered, self.check),
                                            protocol=pickle.HIGHEST_PROTOCOL)
            except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
                logger.debug("a %s question does not pickle: judged on a thread", self.game, exc_info=True)
                self._unpicklable = True
        return self._packed


def _problems(game: str, method: str, args: tuple[Any, ...], offered: list[Any],
              check: Callable[[str, tuple[Any, ...], Any], str | None] | None, answers: list[Any]) -> list[str | None]:
    """Each answer's problem (None: legal; :data:`NOT_OFFERED` for a game without a check)."""
    from gameroom.games import registry

    spec = registry.game(game).protocol.by_name[method]
    return [None if any(answer == legal for legal in offered)
            else NOT_OFFERED if check is None else composed_problem(spec, args, answer, check)
            for answer in answers]


def _judge_packed(packed: bytes, answers: list[Any]) -> list[str | None]:
    """In the judging process: the question unpickled, its answers judged."""
    game, method, args, offered, check = pickle.loads(packed)
    return _problems(game, method, args, offered, check, answers)


def _ready() -> None:
    """The judging process's start: the games loaded before the first question comes."""
    from gameroom.games import registry

    registry.games()


_HEADER = struct.Struct(">I")
_READY = -1   # the number of the judging process's first answer: it is ready
STARTING_SECONDS = 120.0
"""The longest the judging process may take to start (a loaded machine's imports) before
a question waiting for it is refused."""


def _read_frame(stream: Any) -> bytes | None:
    """One length-prefixed frame of ``stream``; None at its end."""
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    size = _HEADER.unpack(header)[0]
    data = stream.read(size)
    return data if len(data) == size else None


def _frame(data: bytes) -> bytes:
    return _HEADER.pack(len(data)) + data


def serve() -> None:
    """The judging process (``python -m gameroom.server.lobby_checks``): questions in on
    standard input, ``(number, packed question, answers)``, their problems out on standard
    output, ``(number, True, problems)`` or ``(number, False, why)``, until the input ends."""
    source, sink = sys.stdin.buffer, os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())   # a game that prints cannot garble the answers
    _ready()
    sink.write(_frame(pickle.dumps((_READY, True, None))))   # the games are loaded: questions are judged now
    sink.flush()
    while (data := _read_frame(source)) is not None:
        number, packed, answers = pickle.loads(data)
        try:
            reply: tuple[Any, ...] = (number, True, _judge_packed(packed, answers))
        except Exception as exc:   # noqa: BLE001 - a game's check that fails is the answer to its question
            reply = (number, False, f"{type(exc).__name__}: {exc}"[:300])
        sink.write(_frame(pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)))
        sink.flush()


class _Worker:
    """One judging process and the futures of the questions it was sent (a thread reads
    its answers)."""

    def __init__(self) -> None:
        # the child finds what this process imports from (a plug-in's game, a test's path)
        path = os.pathsep.join(p for p in sys.path if isinstance(p, str) and p)
        self.process = subprocess.Popen([sys.executable, "-m", "gameroom.server.lobby_checks"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        env={**os.environ, "PYTHONPATH": path})
        self.pending: dict[int, concurrent.futures.Future[list[str | None]]] = {}
        self.started: concurrent.futures.Future[None] = concurrent.futures.Future()
        self.numbers = itertools.count()
        self.lock = threading.Lock()
        # the loop only queues a question: a thread writes it (a full pipe would block the loop)
        self.outbox: queue.SimpleQueue[tuple[int, bytes, list[Any]] | None] = queue.SimpleQueue()
        self.reader = threading.Thread(target=self._read, name="check-answers", daemon=True)
        self.writer = threading.Thread(target=self._write, name="check-questions", daemon=True)
        self.reader.start()
        self.writer.start()

    def submit(self, packed: bytes, answers: list[Any]) -> concurrent.futures.Future[list[str | None]]:
        future: concurrent.futures.Future[list[str | None]] = concurrent.futures.Future()
        with self.lock:
            number = next(self.numbers)
            self.pending[number] = future
        self.outbox.put((number, packed, answers))
        return future

    def _write(self) -> None:
        assert self.process.stdin is not None
        while (question := self.outbox.get()) is not None:
            try:
                self.process.stdin.write(_frame(pickle.dumps(question, protocol=pickle.HIGHEST_PROTOCOL)))
                self.process.stdin.flush()
            except (OSError, ValueError) as exc:
                with self.lock:
                    future = self.pending.pop(question[0], None)
                if future is not None and not future.done():
                    future.set_exception(CheckFailed(f"the judging process is gone: {exc}"))

    def _read(self) -> None:
        assert self.process.stdout is not None
        while (data := _read_frame(self.process.stdout)) is not None:
            number, ok, value = pickle.loads(data)
            if number == _READY:
                self.started.set_result(None)
                continue
            with self.lock:
                future = self.pending.pop(number, None)
            if future is not None and not future.done():
                if ok:
                    future.set_result(value)
                else:
                    future.set_exception(CheckFailed(f"the check failed: {value}"))
        with self.lock:
            left, self.pending = list(self.pending.values()), {}
        ended: list[concurrent.futures.Future[Any]] = [*left, self.started]
        for waiting in ended:
            if not waiting.done():
                waiting.set_exception(CheckFailed("the judging process ended"))

    def stop(self) -> None:
        """End the process (its answers left are failures)."""
        self.outbox.put(None)
        with contextlib.suppress(OSError, ValueError):
            if self.process.stdin is not None:
                self.process.stdin.close()
        with contextlib.suppress(OSError):
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(5)


class Allowance:
    """A token bucket of answers: ``rate`` a second, at most ``burst`` at once.
    :meth:`wait` is how long a question of ``n`` answers waits before it is judged."""

    def __init__(self, rate: float = CHECK_RATE, burst: float = CHECK_BURST) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = burst
        self.at: float | None = None

    def _refill(self, now: float) -> None:
        if self.at is not None:
            self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now

    def wait(self, n: int, now: float) -> float:
        """Seconds before ``n`` answers may be judged (0: at once)."""
        self._refill(now)
        need = min(float(n), self.burst)
        return 0.0 if self.tokens >= need else (need - self.tokens) / self.rate

    def take(self, n: int, now: float) -> None:
        self._refill(now)
        self.tokens -= min(float(n), self.burst)


class UserChecks:
    """One user's bounds on checks: the allowance of answers and the one question judged
    at a time, shared by every seat the user plays (four matches' seats check no faster
    than one)."""

    def __init__(self) -> None:
        self.allowance = Allowance()
        self.lock = asyncio.Lock()


class UsersChecks:
    """Each user's :class:`UserChecks`, kept while some seat of the user holds them."""

    def __init__(self) -> None:
        self._users: weakref.WeakValueDictionary[str, UserChecks] = weakref.WeakValueDictionary()
        self._lock = threading.Lock()

    def of(self, user: str) -> UserChecks:
        with self._lock:
            found = self._users.get(user)
            if found is None:
                found = self._users[user] = UserChecks()
            return found


class Judges:
    """The process that judges questions (started on first use, or :meth:`warm`), and a
    thread for the questions that do not pickle."""

    def __init__(self) -> None:
        self._worker: _Worker | None = None
        self._threads: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def _process(self) -> _Worker:
        with self._lock:
            if self._worker is None or self._worker.process.poll() is not None:
                self._worker = _Worker()
            return self._worker

    def warm(self) -> None:
        """Start the judging process now (a person's first check need not wait for it)."""
        self._process()

    def _thread(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._threads is None:
                self._threads = ThreadPoolExecutor(1, thread_name_prefix="check")
            return self._threads

    def _replace(self, worker: _Worker | None) -> None:
        """The judging process is stuck or dead: a new one for the next question."""
        with self._lock:
            if worker is None or self._worker is not worker:
                return
            self._worker = None
        worker.stop()

    async def problems(self, question: Question, answers: list[Any]) -> list[str | None]:
        """Each answer's problem (None: legal), judged off the loop within
        :data:`CHECK_SECONDS`; :class:`CheckFailed` when it could not be."""
        loop = asyncio.get_running_loop()
        packed = question.packed()
        worker = None
        try:
            if packed is None:
                future = loop.run_in_executor(self._thread(), _problems, question.game, question.method,
                                              question.args, question.offered, question.check, answers)
            else:
                worker = self._process()
                future = asyncio.wrap_future(worker.submit(packed, answers))
                async with asyncio.timeout(STARTING_SECONDS):   # its start is not the question's time
                    await asyncio.shield(asyncio.wrap_future(worker.started))
            async with asyncio.timeout(CHECK_SECONDS):
                return await future
        except TimeoutError:
            logger.warning("a check of %s took over %g s; its judging process is replaced", question.game,
                           CHECK_SECONDS)
            self._replace(worker)
            raise CheckFailed(f"the check took longer than {CHECK_SECONDS:g} s") from None
        except CheckFailed:
            if worker is not None and worker.process.poll() is not None:
                self._replace(worker)
            raise
        except Exception as exc:   # noqa: BLE001 - a game's check that fails is the answer to the question
            logger.debug("a check of %s failed", question.game, exc_info=True)
            raise CheckFailed(f"the check failed: {type(exc).__name__}: {exc}"[:300]) from None

    def close(self) -> None:
        with self._lock:
            worker, threads, self._worker, self._threads = self._worker, self._threads, None, None
        if worker is not None:
            worker.stop()
        if threads is not None:
            threads.shutdown(wait=False, cancel_futures=True)


_JUDGES = Judges()


def judges() -> Judges:
    """The judges every server of this process shares."""
    return _JUDGES


async def checked(question: Question, results: list[Any], allowance: Allowance) -> list[str | None]:
    """The problems of each of ``results`` (None: legal; "not one of the N legal moves
    offered" for an answer the game cannot judge), once ``allowance`` lets them be judged
    (the caller reads no more of that client's requests meanwhile). :class:`CheckFailed`
    when the judges cannot answer."""
    loop = asyncio.get_running_loop()
    wait = allowance.wait(len(results), loop.time())
    if wait > 0:
        await asyncio.sleep(wait)
    allowance.take(len(results), loop.time())
    problems = await judges().problems(question, results) if results else []
    offered = len(question.offered)
    return [f"not one of the {offered} legal moves offered" if problem == NOT_OFFERED else problem
            for problem in problems]


if __name__ == "__main__":
    try:
        serve()
    except BrokenPipeError:   # the server that asked is gone (killed): nobody is left to answer
        pass
