"""One TCP peer as a stream of JSON messages (asyncio).

A background task reads bytes as they arrive into a :class:`JSONStreamDecoder`; readers
wait for complete values with separate limits for the first byte and for the rest, as the
games' sign-up rules require. Writers send compact JSON and a newline, optionally padded
and trickled the way the reference client sends, which our tests use to prove tolerance.
"""

from __future__ import annotations

import asyncio
import os
import socket
from typing import Any, Callable

from gameroom.remote.blocking import BlockingConnection
from gameroom.remote.errors import ConnectionClosed, ReadTimeout
from gameroom.remote.hub import Hub, HubConnection
from gameroom.remote.jsonstream import (DEFAULT_MAX_VALUE_BYTES, NEED_MORE, JSONStreamDecoder,
                                        JSONStreamError, encode)

__all__ = ["Connection", "ConnectionClosed", "ReadTimeout", "JSONStreamError", "open_connection"]

_CHUNK = 65536


def _expire(waiter: "asyncio.Future[bool]") -> None:
    if not waiter.done():
        waiter.set_result(False)


class Connection:
    """A JSON message stream over an asyncio (reader, writer) pair."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 max_value_bytes: int = DEFAULT_MAX_VALUE_BYTES) -> None:
        # Both let go once the socket is detached and its transport aborted (nothing on the
        # loop uses them then; a player holds them the whole game otherwise).
        self._reader: asyncio.StreamReader | None = reader
        self._writer: asyncio.StreamWriter | None = writer
        self._decoder = JSONStreamDecoder(max_value_bytes)
        # Futures of the readers waiting for more bytes: settled by the pump (True) or by a
        # timer (False). Cheaper than an Event awaited through wait_for, which starts a task
        # per wait.
        self._waiters: list[asyncio.Future[bool]] = []
        self._pump: asyncio.Task[None] | None = asyncio.get_running_loop().create_task(self._read_forever())
        self.closed = False
        self._detached: BlockingConnection | None = None
        peer = writer.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer)

    async def _read_forever(self) -> None:
        reader = self._reader
        assert reader is not None
        try:
            while True:
                data = await reader.read(_CHUNK)
                if not data:
                    break
                self._decoder.feed(data)
                self._wake()
                if len(self._decoder._buf) > 2 * self._decoder.max_value_bytes:
                    break  # a flood: stop buffering; the reader will report the oversize value
        except (ConnectionError, OSError):
            pass
        finally:
            if self._detached is None:   # once detached, the stream goes on off the loop
                self._decoder.feed_eof()
                self._wake()

    def _wake(self) -> None:
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(True)

    async def _arrival(self, seconds: float | None) -> bool:
        """Wait until more bytes (or the end of the stream) arrive: True, or False when
        ``seconds`` pass first."""
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[bool] = loop.create_future()
        self._waiters.append(waiter)
        timer = None if seconds is None else loop.call_later(seconds, _expire, waiter)
        try:
            return await waiter
        finally:
            if timer is not None:
                timer.cancel()
            if not waiter.done() and waiter in self._waiters:   # cancelled from outside
                self._waiters.remove(waiter)

    @property
    def max_value_bytes(self) -> int:
        """The largest value this connection accepts (and about half what it buffers)."""
        return self._decoder.max_value_bytes

    @max_value_bytes.setter
    def max_value_bytes(self, limit: int) -> None:
        self._decoder.max_value_bytes = limit

    @property
    def at_eof(self) -> bool:
        return self._decoder.at_eof and not self._decoder.pending()

    async def wait_eof(self) -> None:
        """Return once the peer has closed its side (bytes that arrive meanwhile are kept)."""
        while not self._decoder.at_eof:
            await self._arrival(None)

    async def read_value(self, first_byte: float | None = None, complete: float | None = None) -> Any:
        """The next JSON value: the first byte within ``first_byte`` seconds, the rest within
        ``complete`` more. Raises ReadTimeout, ConnectionClosed or JSONStreamError."""
        loop = asyncio.get_running_loop()
        deadline = None if first_byte is None else loop.time() + first_byte
        started = False
        while True:
            value = self._decoder.next_value()
            if value is not NEED_MORE:
                return value
            if self._decoder.at_eof:
                if self._decoder.pending():
                    raise ConnectionClosed("the peer closed the connection in the middle of a value")
                raise ConnectionClosed("the peer closed the connection")
            if not started and self._decoder.started():
                started = True
                deadline = None if complete is None else loop.time() + complete
            remaining = None if deadline is None else deadline - loop.time()
            if remaining is not None and remaining <= 0:
                raise ReadTimeout("incomplete value" if started else "nothing arrived")
            if not await self._arrival(remaining):
                what = "the value was not complete" if (started or self._decoder.started()) else "nothing arrived"
                raise ReadTimeout(f"{what} within the time limit")

    async def send(self, value: Any, pad: int = 0, trickle: bool = False) -> None:
        """Send one JSON value and a newline; ``pad`` leading spaces, optionally in small
        chunks with 5 ms pauses, as the reference client does."""
        await self.send_raw(encode(value), pad=pad, trickle=trickle)

    async def send_raw(self, data: bytes, pad: int = 0, trickle: bool = False) -> None:
        writer = self._writer
        if self.closed or writer is None:
            raise ConnectionClosed("connection already closed")
        if pad:
            writer.write(b" " * pad)
        if trickle:
            size = max(len(data) // 100, 10)
            for i in range(0, len(data), size):
                writer.write(data[i:i + size])
                await writer.drain()
                await asyncio.sleep(0.005)
        else:
            writer.write(data)
        await writer.drain()

    async def request(self, value: Any, limit: float | None,
                      side: Callable[[Any], Any] | None = None, max_side: int = 1000) -> Any:
        """Send a call and read the reply, all within ``limit`` seconds.

        ``side`` (optional) answers side messages the peer sends before its reply: it gets
        each value read and returns the answer to send back, or None when the value is the
        reply. After ``max_side`` side messages the next value is taken as the reply.
        """
        async def exchange() -> Any:
            await self.send(value)
            for _ in range(max_side if side is not None else 0):
                message = await self.read_value()
                answer = side(message)  # type: ignore[misc]
                if answer is None:
                    return message
                await self.send(answer)
            return await self.read_value()

        try:
            return await asyncio.wait_for(exchange(), limit)
        except asyncio.TimeoutError:
            raise ReadTimeout(f"no complete reply within the time limit of {limit:g} s") from None

    def detach(self, hub: Hub | None = None) -> BlockingConnection:
        """Take the socket out of the loop for blocking use on one other thread (a
        referee's), or for a referee greenlet on ``hub``; call on the loop's thread. The
        bytes already read carry over; the loop never reads this socket again, and
        :meth:`close` hangs up both."""
        if self._detached is not None:
            return self._detached
        assert self._writer is not None   # only a detach lets it go
        transport = self._writer.transport
        self._stop_pump()
        sock: socket.socket | None = None
        if not self.closed and not transport.is_closing():
            transport.pause_reading()  # type: ignore[attr-defined]  # a socket's transport reads too
            # What the transport has read and the pump has not yet taken (StreamReader keeps
            # it in a private buffer: asyncio offers no public way to take it back).
            buffered = getattr(self._reader, "_buffer", None)
            if buffered:
                self._decoder.feed(bytes(buffered))
                buffered.clear()
            raw = transport.get_extra_info("socket")
            if raw is not None:
                # A duplicate descriptor, then the transport lets its own go (a plain close
                # of that descriptor: the connection lives on in the duplicate), so a seat
                # holds one descriptor, not two: at 10,000 players the two ran into the
                # limit of 20,000 open files.
                sock = socket.socket(fileno=os.dup(raw.fileno()))
                transport.abort()
                self._reader = self._writer = None
        self._detached = (BlockingConnection(sock, self._decoder) if hub is None
                          else HubConnection(sock, self._decoder, hub))
        return self._detached

    def _stop_pump(self) -> None:
        # Cancelled, then let go: a cancelled task keeps its CancelledError, and with it
        # the traceback and the frames of the read it interrupted, for as long as the task
        # is referenced (three frames a player, the whole game long, at 10,000 players).
        if self._pump is not None:
            self._pump.cancel()
            self._pump = None

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self._stop_pump()
        if self._detached is not None:
            self._detached.close()
        if self._writer is not None:
            try:
                self._writer.close()
            except (ConnectionError, OSError, RuntimeError):
                pass


async def open_connection(host: str, port: int, retries: int = 10, pause: float = 1.0,
                          max_value_bytes: int = DEFAULT_MAX_VALUE_BYTES) -> Connection:
    """Connect, retrying ``retries`` times ``pause`` seconds apart while refused."""
    attempt = 0
    while True:
        try:
            reader, writer = await asyncio.open_connection(host, port)
            return Connection(reader, writer, max_value_bytes)
        except OSError:
            attempt += 1
            if attempt > retries:
                raise
            await asyncio.sleep(pause)
