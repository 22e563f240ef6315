"""Many referees on one thread: each game's referee a greenlet, all their sockets on one epoll.

A server that holds thousands of remote players used to give every game a thread blocked
on its players' sockets. At 10,000 players (2,500 games) that cost about 360 µs of the
server's CPU per call and 46 KB a player: every reply woke its own thread, which then
fought the others for the interpreter lock, and every thread kept its own stack. A
:class:`Hub` runs the referees instead as greenlets of one thread (the *hub*): a call
sends its message with one non-blocking ``send`` and switches back to the hub, whose
epoll loop switches into the referee again when its player's reply arrives (one ``recv``)
or when the call's deadline passes. No thread switch, no lock, no timer or future per
call: a deadline is one entry of the hub's heap (docs/ARCHITECTURE.md, "The remote
path", has the figures and the candidates measured).

Every guarantee of :class:`~gameroom.remote.blocking.BlockingConnection` holds, with the
same code where it can: the time limit of a call runs on the hub's monotonic clock from
the send to the whole reply; the late-reader rule (a reply the kernel stamped as arrived
in time counts even when the hub looks late, ``SO_TIMESTAMPNS``); a slow reader is
bounded by the time left (the send waits for room in the socket's buffer only until the
deadline); the same exceptions with the same texts. A referee on the hub must block
nowhere but in its hub connections (a plan says so: ``ServerPlan.single_thread``); its
other work (the rules, the codecs) runs on the hub between other games' calls.

Sockets are registered edge-triggered once, so a call costs no ``epoll_ctl``: a
connection remembers whether the kernel said "readable" since it last found the buffer
empty, and reads before waiting only then.
"""

from __future__ import annotations

import asyncio
import atexit
import gc
import heapq
import itertools
import os
import select
import socket
import threading
from collections import deque
from time import monotonic, perf_counter
from typing import Any, Callable, TypeVar

from greenlet import getcurrent, greenlet

from gameroom.remote.blocking import BlockingConnection
from gameroom.remote.jsonstream import NEED_MORE, JSONStreamDecoder

_T = TypeVar("_T")

__all__ = ["COLLECT_AFTER", "Hub", "HubConnection", "shared_hub"]

_CHUNK = 65536
_IN = select.EPOLLIN | select.EPOLLRDHUP | select.EPOLLHUP | select.EPOLLERR
_HANGUP = select.EPOLLRDHUP | select.EPOLLHUP | select.EPOLLERR
_OUT = select.EPOLLOUT | select.EPOLLHUP | select.EPOLLERR
_MASK = select.EPOLLIN | select.EPOLLOUT | select.EPOLLRDHUP | select.EPOLLET
_READY = 1      # what the hub tells a waiting referee: its socket is ready ...
_EXPIRED = 2    # ... or its deadline passed


class Hub:
    """One daemon thread running many referees as greenlets over one epoll.

    :meth:`run` (from an asyncio loop) or :meth:`submit` (from any thread) starts a
    function as a new greenlet on the hub; it runs until it waits on a
    :class:`HubConnection`, and the hub resumes it when that connection is ready or its
    deadline passes. Everything the hub keeps is touched only on its own thread.
    """

    def __init__(self, name: str = "hub") -> None:
        self._epoll = select.epoll()
        self._wake = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
        self._epoll.register(self._wake, select.EPOLLIN)
        self._inbox: deque[tuple[Callable[..., Any], tuple[Any, ...]]] = deque()   # to call on the hub
        self._connections: dict[int, HubConnection] = {}
        self._deadlines: list[tuple[float, int, HubConnection, int]] = []
        self._order = itertools.count()
        self._main: Any = None
        self.games = 0   # referees running on the hub now
        self._stopping = False
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()
        # The hub's thread leaves its loop before the interpreter finalizes: a daemon
        # thread woken in the middle of finalization (a connection closed at the last
        # moment) would run Python code against a half-torn-down interpreter, which ended
        # in a segmentation fault now and then.
        atexit.register(self.stop)

    def stop(self, wait: float = 5.0) -> None:
        """Leave the loop (referees still waiting stay suspended, never resumed) and wait
        up to ``wait`` seconds for the thread to end."""
        self._stopping = True
        try:
            os.eventfd_write(self._wake, 1)
        except OSError:
            return
        if threading.current_thread() is not self._thread:
            self._thread.join(wait)

    # -- from other threads -------------------------------------------------------------

    def submit(self, fn: Callable[..., Any], args: tuple[Any, ...], deliver: Callable[[bool, Any], None]) -> None:
        """Run ``fn(*args)`` as a greenlet on the hub; ``deliver(ok, value_or_exception)``
        hears how it ended (on the hub's thread)."""
        self.call_soon(self._start, fn, args, deliver)

    def call_soon(self, fn: Callable[..., Any], *args: Any) -> None:
        """Call ``fn(*args)`` on the hub's own thread at its next look (it must not wait)."""
        self._inbox.append((fn, args))
        os.eventfd_write(self._wake, 1)

    async def run(self, fn: Callable[..., _T], *args: Any) -> _T:
        """Run ``fn(*args)`` on the hub and await its result (or its exception)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[_T] = loop.create_future()

        def settle(ok: bool, value: Any) -> None:
            if not future.done():
                (future.set_result if ok else future.set_exception)(value)

        def deliver(ok: bool, value: Any) -> None:
            try:
                loop.call_soon_threadsafe(settle, ok, value)
            except RuntimeError:   # the loop is closed: nobody waits for this game any more
                pass

        self.submit(fn, args, deliver)
        return await future

    def on_hub(self) -> bool:
        """Whether the caller runs on the hub's thread (in one of its referees)."""
        return threading.get_ident() == self._thread.ident

    # -- on the hub ---------------------------------------------------------------------

    def _start(self, fn: Callable[..., Any], args: tuple[Any, ...], deliver: Callable[[bool, Any], None]) -> None:
        def referee() -> None:
            try:
                outcome: tuple[bool, Any] = (True, fn(*args))
            except BaseException as exc:   # noqa: BLE001 - reported to the caller, never raised on the hub
                outcome = (False, exc)
            self.games -= 1
            deliver(*outcome)

        self.games += 1
        greenlet(referee, parent=self._main).switch()

    def _serve(self) -> None:
        self._main = getcurrent()
        poll, deadlines, connections, wake = self._epoll.poll, self._deadlines, self._connections, self._wake
        while not self._stopping:
            if deadlines:
                timeout = max(0.0, deadlines[0][0] - monotonic())
            else:
                timeout = -1.0
            for fd, events in poll(timeout):
                if fd == wake:
                    try:
                        os.eventfd_read(wake)
                    except BlockingIOError:
                        pass
                    while self._inbox and not self._stopping:
                        fn, args = self._inbox.popleft()
                        fn(*args)
                    continue
                connection = connections.get(fd)
                if connection is not None:
                    connection._event(events)
            if deadlines:
                now = monotonic()
                while deadlines and deadlines[0][0] <= now:
                    _deadline, _order, connection, wait = heapq.heappop(deadlines)
                    if connection._wait == wait and connection._waiter is not None:
                        connection._resume(_EXPIRED)

    def _register(self, connection: HubConnection, fd: int) -> None:
        self._connections[fd] = connection
        self._epoll.register(fd, _MASK)

    def _forget(self, fd: int) -> None:
        if self._connections.pop(fd, None) is not None:
            try:
                self._epoll.unregister(fd)
            except (OSError, ValueError):   # already closed: the kernel forgot it itself
                pass

    def _expire_at(self, deadline: float, connection: HubConnection, wait: int) -> None:
        heapq.heappush(self._deadlines, (deadline, next(self._order), connection, wait))


_shared: Hub | None = None
_shared_lock = threading.Lock()

COLLECT_AFTER = 20_000
"""The cyclic garbage collector's first threshold in a process that starts the shared hub
(Python's default is 700). A server holding thousands of players keeps millions of
objects alive (connections, games), and each call leaves a few more for a while; at the
default the collector ran a full pass over all of them every couple of thousand calls and
took 37% of the server's CPU at 2,000 players (2.8-3.5 s of 7-9.6 s); collecting young
objects 28 times less often brought it to 0.6 s. (What the collections walked was mostly
objects a call kept alive through its wait, since let go: docs/ARCHITECTURE.md, "Many
games on one hub".) Nothing is left uncollected: garbage cycles wait a little longer."""


def shared_hub() -> Hub:
    """The process's hub, started on first use: one thread holds every game a server runs
    on the hub (the server's other thread is its asyncio loop, signing players up)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            first, second, third = gc.get_threshold()
            if 0 < first < COLLECT_AFTER:   # 0: collection switched off, left so
                gc.set_threshold(COLLECT_AFTER, second, third)
            _shared = Hub()
        return _shared


class HubConnection(BlockingConnection):
    """A JSON message stream used by a referee greenlet on a :class:`Hub`: the same reads,
    bounds, errors and time-out rules as its base class, waiting by switching to the hub
    instead of blocking the thread."""

    def __init__(self, sock: socket.socket | None, decoder: JSONStreamDecoder, hub: Hub) -> None:
        super().__init__(sock, decoder)
        self.hub = hub
        self._waiter: Any = None    # the referee greenlet waiting on this connection
        self._want = 0              # the events it waits for
        self._wait = 0              # which wait a deadline in the hub's heap belongs to
        self._readable = True       # the kernel may hold bytes not yet read
        self._hung_up = False       # the peer's end (or an error) was seen: reads never wait again
        self._writable = True
        self._fd = -1
        if sock is not None:
            sock.setblocking(False)

    # -- waiting -------------------------------------------------------------------------

    def _event(self, events: int) -> None:
        if events & _IN:
            self._readable = True
            if events & _HANGUP:
                # The edge that said so may come with the last bytes: a short read of
                # them must not wait for another edge that never comes.
                self._hung_up = True
        if events & _OUT:
            self._writable = True
        if self._waiter is not None and events & self._want:
            self._resume(_READY)

    def _resume(self, why: int) -> None:
        waiter, self._waiter = self._waiter, None
        waiter.switch(why)

    def _park(self, want: int, deadline: float | None) -> int:
        """Switch to the hub until the socket is ready for ``want`` or ``deadline``
        passes; which of the two (``_READY`` or ``_EXPIRED``)."""
        hub = self.hub
        if not hub.on_hub():
            raise RuntimeError("a hub connection used off its hub's thread")
        if self.closed or self._sock is None:
            raise self._closed_error("connection already closed")
        if self._fd < 0:
            self._fd = self._sock.fileno()
            hub._register(self, self._fd)
        self._want = want
        self._wait += 1
        if deadline is not None:
            hub._expire_at(deadline, self, self._wait)
        self._waiter = getcurrent()
        try:
            why: int = hub._main.switch()
            return why
        finally:
            self._waiter = None

    # -- the stream ----------------------------------------------------------------------

    def send_raw(self, data: bytes, deadline: float | None, timeout_text: str) -> None:
        """Write ``data`` completely by ``deadline``: one ``send`` when the socket has room
        (always, but for a peer that reads slowly); else wait for room until the deadline."""
        sock = self._sock
        if sock is None:
            raise self._closed_error("the peer closed the connection")
        if self.closed:
            raise self._closed_error("connection already closed")
        self.sent_at = perf_counter()
        view = memoryview(data)
        while view:
            if not self._writable:
                if deadline is not None and deadline - monotonic() <= 0:
                    raise self._timeout_error(timeout_text)
                if self._park(_OUT, deadline) == _EXPIRED:
                    raise self._timeout_error(timeout_text)
            try:
                sent = sock.send(view)
            except BlockingIOError:
                self._writable = False
                continue
            except (BrokenPipeError, ConnectionResetError):
                raise self._closed_error("the peer closed the connection") from None
            if sent < len(view):
                self._writable = False
            view = view[sent:]

    def read_value(self, deadline: float | None, timeout_text: str) -> Any:
        """The next JSON value, complete by ``deadline``, as the base class reads it."""
        while True:
            value = self._next_value()
            if value is not NEED_MORE:
                return value
            if deadline is not None and deadline - monotonic() <= 0:
                # Late to look (the hub was busy with other games): only what the kernel
                # stamped as arrived in time counts.
                if self._arrived(deadline):
                    continue
                raise self._timeout_error(timeout_text)
            if not self._readable:
                if self._park(_IN, deadline) == _EXPIRED and deadline is not None:
                    if self._arrived(deadline):
                        continue
                    raise self._timeout_error(timeout_text)
                continue   # re-check the clock: the hub may have resumed this referee late
            try:
                data = self._sock.recv(_CHUNK)  # type: ignore[union-attr]
            except BlockingIOError:
                self._readable = False
                continue
            except OSError:
                data = b""   # reset by the peer: as the asyncio reader, the stream simply ends
            if len(data) < _CHUNK and not self._hung_up:
                self._readable = False   # the buffer is empty: the next edge will say when not
            self._take(data)

    def close(self) -> None:
        """Hang up (both directions) and leave the hub's epoll. The hub's own loop does it
        (at once, or at its next look when called from a referee or another thread: the
        server's loop), so a referee waiting on this connection wakes at once and finds it
        closed, as a blocked thread would; no call starts on it meanwhile."""
        self.closed = True
        if self.hub.on_hub() and getcurrent() is self.hub._main:
            self._close_here()
        else:
            self.hub.call_soon(self._close_here)

    def _close_here(self) -> None:
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            self.hub._forget(fd)
        if self._sock is not None and self._sock.fileno() >= 0:
            try:
                self._sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self._sock.close()
        if self._waiter is not None:
            self._resume(_READY)
