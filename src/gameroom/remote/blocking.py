"""One peer's JSON stream read and written with blocking calls on the caller's own thread.

A referee runs on its own thread; once a player has signed up, its proxy takes the socket
out of the asyncio loop (:meth:`gameroom.remote.connection.Connection.detach`) and talks to
it from the referee's thread directly: a call is one ``send`` and one or a few ``recv``
system calls, with no hand-off to the loop and back (two thread switches and a loop
wake-up per call, which cost more than the loopback round trip itself; see
docs/ARCHITECTURE.md, "The remote path").

Everything a reader of :class:`~gameroom.remote.connection.Connection` sees stays the same:
the same :class:`~gameroom.remote.jsonstream.JSONStreamDecoder` (it carries over the bytes
already read), the same bounds, the same exceptions with the same texts, and a time limit
that covers sending the call and reading the whole reply.
"""

from __future__ import annotations

import socket
import struct
import sys
from time import monotonic, perf_counter, time
from typing import Any, Callable

from gameroom.remote.errors import ConnectionClosed, ReadTimeout
from gameroom.remote.jsonstream import NEED_MORE, JSONStreamDecoder, encode

__all__ = ["BlockingConnection"]

_CHUNK = 65536
# On Linux the kernel bounds each blocking send and receive itself (SO_SNDTIMEO and
# SO_RCVTIMEO, a timeval): one system call per read and one release of the GIL, where a
# Python socket timeout polls first (two of each). Elsewhere, Python's socket timeouts.
_KERNEL_TIMEOUTS = sys.platform.startswith("linux")
_NO_TIMEOUT = struct.pack("ll", 0, 0)   # a zero timeval: wait for ever
_SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)   # Linux's value (Python does not name it)
_STAMP_SPACE = socket.CMSG_SPACE(16)                       # one struct timespec
# Linux turns receive timestamps on for the whole system only while some socket asks for
# them, and turns them on late (a deferred work item): a packet that arrives meanwhile
# carries no stamp and is stamped when read, as if it came late. Each connection asking
# on its own turned them off with its close and on again with the next one, so the first
# reply of a connection on a loaded machine could be charged to a bot as late. One socket
# asking for the life of the process keeps them on.
_STAMP_KEEPER: list[socket.socket] = []


def _keep_stamps_on() -> None:
    if _STAMP_KEEPER:
        return
    try:
        keeper = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        keeper.setsockopt(socket.SOL_SOCKET, _SO_TIMESTAMPNS, 1)
    except OSError:
        return
    _STAMP_KEEPER.append(keeper)


class BlockingConnection:
    """A JSON message stream over a connected socket, used from one thread at a time.

    ``read_at`` and ``sent_at`` are the ``perf_counter`` times of the last complete value
    read and of the last message ready to be handed to the system, for benchmarks that
    measure what the server adds between a reply and its next call.
    """

    def __init__(self, sock: socket.socket | None, decoder: JSONStreamDecoder) -> None:
        self._closed_error = ConnectionClosed
        self._timeout_error = ReadTimeout
        self._sock = sock
        self._decoder = decoder
        self._timeout: float | None = -1.0   # what the socket is set to (-1: not known)
        self.closed = sock is None
        if sock is None:
            decoder.feed_eof()
        elif _KERNEL_TIMEOUTS:
            sock.settimeout(None)   # blocking calls; the kernel applies the time limits
        self.read_at = 0.0
        self.sent_at = 0.0
        # The kernel stamps each packet's arrival (read only when a look comes late): asked
        # from the start, since a packet that arrived before the asking carries no stamp.
        self._stamped = False
        if sock is not None:
            _keep_stamps_on()
            try:
                sock.setsockopt(socket.SOL_SOCKET, _SO_TIMESTAMPNS, 1)
                self._stamped = True
            except OSError:
                pass

    def _set_timeout(self, seconds: float | None, option: int = socket.SO_RCVTIMEO) -> None:
        if _KERNEL_TIMEOUTS:
            if seconds is None:
                value = _NO_TIMEOUT
            else:   # at least a microsecond: zero would mean no limit
                whole = int(seconds)
                micros = int((seconds - whole) * 1e6)
                value = struct.pack("ll", whole, micros if whole or micros else 1)
            self._sock.setsockopt(socket.SOL_SOCKET, option, value)  # type: ignore[union-attr]
        elif seconds != self._timeout:
            self._sock.settimeout(seconds)  # type: ignore[union-attr]
            self._timeout = seconds

    def send_raw(self, data: bytes, deadline: float | None, timeout_text: str) -> None:
        """Write ``data`` completely by ``deadline`` (a ``monotonic`` time; None: no limit)."""
        sock = self._sock
        if sock is None:   # the peer was gone before the socket left the loop
            raise self._closed_error("the peer closed the connection")
        if self.closed:
            raise self._closed_error("connection already closed")
        self.sent_at = perf_counter()   # the message is ready: the rest is the system's
        view = memoryview(data)
        while view:
            # Each send is bounded by the time left, so a peer that reads slowly cannot
            # stretch the call beyond its limit.
            if deadline is None:
                self._set_timeout(None, socket.SO_SNDTIMEO)
            else:
                remaining = deadline - monotonic()
                if remaining <= 0:
                    raise self._timeout_error(timeout_text)
                self._set_timeout(remaining, socket.SO_SNDTIMEO)
            try:
                view = view[sock.send(view):]
            except (socket.timeout, BlockingIOError):   # BlockingIOError: the kernel's time limit
                raise self._timeout_error(timeout_text) from None
            except (BrokenPipeError, ConnectionResetError):
                raise self._closed_error("the peer closed the connection") from None

    def _next_value(self) -> Any:
        """The next whole value already read (stamping ``read_at``), or ``NEED_MORE``;
        ConnectionClosed when the stream ended (in the middle of a value or between)."""
        decoder = self._decoder
        value = decoder.next_value()
        if value is not NEED_MORE:
            self.read_at = perf_counter()
            return value
        if decoder.at_eof:
            if decoder.pending():
                raise self._closed_error("the peer closed the connection in the middle of a value")
            raise self._closed_error("the peer closed the connection")
        return NEED_MORE

    def read_value(self, deadline: float | None, timeout_text: str) -> Any:
        """The next JSON value, complete by ``deadline``. Raises ReadTimeout (with
        ``timeout_text``), ConnectionClosed or JSONStreamError, as the asyncio reader does."""
        while True:
            value = self._next_value()
            if value is not NEED_MORE:
                return value
            if deadline is None:
                self._set_timeout(None)
            else:
                remaining = deadline - monotonic()
                if remaining <= 0:
                    if self._arrived(deadline):   # in time, but this thread was late to look
                        continue
                    raise self._timeout_error(timeout_text)
                self._set_timeout(remaining)
            try:
                data = self._sock.recv(_CHUNK)  # type: ignore[union-attr]
            except (socket.timeout, BlockingIOError):   # only with a deadline (else recv blocks)
                if deadline is not None and self._arrived(deadline):
                    continue
                raise self._timeout_error(timeout_text) from None
            except OSError:
                data = b""   # reset by the peer: as the asyncio reader, the stream simply ends
            self._take(data)

    def _take(self, data: bytes) -> None:
        """Give the decoder what one ``recv`` read: the end of the stream when empty; past
        twice the largest value, the end too (a flood: the decoder reports the oversize
        value and nothing more is buffered)."""
        decoder = self._decoder
        if not data:
            decoder.feed_eof()
            return
        decoder.feed(data)
        if len(decoder._buf) > 2 * decoder.max_value_bytes:
            decoder.feed_eof()

    def _arrived(self, deadline: float) -> bool:
        """Past the deadline: take what the peer wrote before it, if that is already in the
        kernel's buffer, without waiting; whether anything in time came. A worker that falls
        behind (a loaded machine, a descheduled thread) looks at the socket late, and the bot
        must not be charged for that. When the bytes arrived is the kernel's receive
        timestamp (``SO_TIMESTAMPNS``, which Linux keeps for TCP too): bytes that arrived
        after the deadline are no answer in time, however early they are read. So a bot
        that answers late still times out, and one still writing its value at the deadline
        too (no more bytes in time)."""
        sock = self._sock
        if sock is None or not self._stamped:
            return False   # no receive timestamps here: no way to tell in time from late
        wall_deadline = deadline + (time() - monotonic())
        try:
            data, ancillary, _flags, _address = sock.recvmsg(_CHUNK, _STAMP_SPACE, socket.MSG_DONTWAIT)
        except (BlockingIOError, InterruptedError, socket.timeout):
            return False
        except OSError:
            data, ancillary = b"", []
        arrived = None
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == _SO_TIMESTAMPNS and len(payload) >= 16:
                seconds, nanoseconds = struct.unpack("ll", payload[:16])
                arrived = seconds + nanoseconds / 1e9
        if data and (arrived is None or arrived > wall_deadline):
            return False   # late (or when is unknown): the call has timed out
        self._take(data)   # in time; or the end of the stream, an answer too: the loop reports it
        return True

    def request(self, data: bytes, limit: float | None, side: Callable[[Any], Any] | None = None,
                max_side: int = 1000) -> Any:
        """Send a call (``data``: the value already encoded, so that nothing but these
        bytes is kept while the reply is awaited) and read the reply, all within ``limit``
        seconds; ``side`` answers side messages as
        :meth:`gameroom.remote.connection.Connection.request` does."""
        deadline = None if limit is None else monotonic() + limit
        text = "" if limit is None else f"no complete reply within the time limit of {limit:g} s"
        self.send_raw(data, deadline, text)
        for _ in range(max_side if side is not None else 0):
            message = self.read_value(deadline, text)
            answer = side(message)  # type: ignore[misc]
            if answer is None:
                return message
            self.send_raw(encode(answer), deadline, text)
        return self.read_value(deadline, text)

    def close(self) -> None:
        """Hang up (both directions, so a thread blocked reading wakes at once)."""
        if self._sock is None or self._sock.fileno() < 0:
            return
        self.closed = True
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._sock.close()
