"""Every hand-off of work between threads, and between threads and an asyncio loop, in one
place: the referee's worker threads for players that may misbehave, the client's player
thread, the server's referee threads, and a client player's side channel waiting on the
network loop. (A server's referee no longer waits on the loop per call: its proxies use
their sockets directly, see ``gameroom.remote.blocking``.)

All threads are daemon threads: Python cannot kill a thread, so a call that never returns
is abandoned, and a daemon thread never keeps the process from exiting.
"""

from __future__ import annotations

import queue
import threading
from typing import TYPE_CHECKING, Any, Awaitable, Callable, TypeVar

if TYPE_CHECKING:   # asyncio costs a tenth of a second to import: only where a loop is used
    import asyncio

__all__ = ["Outcome", "Worker", "SeatWorker", "run_in_thread", "wait_on_loop"]

_T = TypeVar("_T")

Outcome = tuple[bool, Any]
"""``(True, value)`` or ``(False, exception)``: how a call on another thread ended."""


class Worker:
    """One daemon thread that runs submitted calls in order and delivers each outcome
    through the call's ``deliver`` callback (on the worker thread)."""

    def __init__(self, name: str = "worker") -> None:
        self._requests: queue.SimpleQueue[Any] = queue.SimpleQueue()
        threading.Thread(target=self._serve, daemon=True, name=name).start()

    def _serve(self) -> None:
        while (request := self._requests.get()) is not None:
            fn, args, deliver = request
            try:
                outcome: Outcome = (True, fn(*args))
            except BaseException as exc:  # noqa: BLE001 -- reported to the caller, never raised here
                outcome = (False, exc)
            if deliver(outcome) is False:
                return   # the receiver is gone

    def submit(self, fn: Callable[..., Any], args: tuple[Any, ...], deliver: Callable[[Outcome], Any]) -> None:
        self._requests.put((fn, args, deliver))

    def call(self, fn: Callable[..., Any], args: tuple[Any, ...], limit: float | None) -> Outcome:
        """Run ``fn(*args)`` on this worker and wait up to ``limit`` seconds (None: no
        limit); raises TimeoutError when the call has not returned by then."""
        reply: queue.SimpleQueue[Outcome] = queue.SimpleQueue()
        self.submit(fn, args, reply.put)
        try:
            return reply.get(timeout=limit)
        except queue.Empty:
            raise TimeoutError from None

    def on_loop(self, loop: asyncio.AbstractEventLoop, fn: Callable[..., Any],
                args: tuple[Any, ...]) -> "asyncio.Future[Outcome]":
        """Run ``fn(*args)`` on this worker; the outcome settles a future of ``loop``."""
        future: asyncio.Future[Outcome] = loop.create_future()

        def settle(outcome: Outcome) -> None:
            if not future.done():
                future.set_result(outcome)

        def deliver(outcome: Outcome) -> bool:
            try:
                loop.call_soon_threadsafe(settle, outcome)
                return True
            except RuntimeError:
                return False   # the loop is closed

        self.submit(fn, args, deliver)
        return future

    def stop(self) -> None:
        self._requests.put(None)


class SeatWorker:
    """One daemon thread that runs one call at a time for one caller, handed over through
    a pair of locks (no queue, nothing allocated per call but the outcome): the caller
    releases ``_go`` and waits on ``_done`` with its time limit. After a time-out the
    worker may still be running the call: it must be abandoned (never called again), so a
    late outcome is never read as the answer to a later call."""

    def __init__(self, name: str = "worker") -> None:
        self._request: tuple[Callable[..., Any], tuple[Any, ...]] | None = None
        self._outcome: Outcome = (False, None)
        self._go = threading.Lock()
        self._go.acquire()
        self._done = threading.Lock()
        self._done.acquire()
        threading.Thread(target=self._serve, daemon=True, name=name).start()

    def _serve(self) -> None:
        while True:
            self._go.acquire()
            if self._request is None:
                return
            fn, args = self._request
            try:
                self._outcome = (True, fn(*args))
            except BaseException as exc:  # noqa: BLE001 -- handed to the caller, which raises it
                self._outcome = (False, exc)
            self._done.release()

    def call(self, fn: Callable[..., Any], args: tuple[Any, ...], limit: float | None) -> Outcome:
        """Run ``fn(*args)`` on this worker and wait up to ``limit`` seconds (None: no
        limit); raises TimeoutError when the call has not returned by then."""
        self._request = (fn, args)
        self._go.release()
        if not self._done.acquire(timeout=-1 if limit is None else max(limit, 0.0)):
            raise TimeoutError
        return self._outcome

    def stop(self) -> None:
        """End the thread once it is idle (an abandoned worker ends when its call does)."""
        if self._request is not None or self._go.acquire(blocking=False):
            self._request = None
            self._go.release()


async def run_in_thread(fn: Callable[..., _T], *args: Any, name: str = "referee") -> _T:
    """Run ``fn`` on a fresh daemon thread and await its result (exceptions propagate)."""
    import asyncio

    worker = Worker(name)
    ok, value = await worker.on_loop(asyncio.get_running_loop(), fn, args)
    worker.stop()
    if not ok:
        raise value
    return value  # type: ignore[no-any-return]   # fn's own value, as on_loop carries it


def wait_on_loop(coroutine: Awaitable[_T], loop: asyncio.AbstractEventLoop, limit: float | None) -> _T:
    """From a thread: run ``coroutine`` on ``loop`` and wait up to ``limit`` seconds for its
    result; on a time-out the coroutine is cancelled and TimeoutError raised."""
    import asyncio
    import concurrent.futures

    future: concurrent.futures.Future[_T] = asyncio.run_coroutine_threadsafe(coroutine, loop)  # type: ignore[arg-type]
    try:
        return future.result(limit)
    except concurrent.futures.TimeoutError:
        future.cancel()
        raise TimeoutError from None
