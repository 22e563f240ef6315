"""The server side of remote play: a proxy that looks like a local player to a referee.

The referee runs synchronously on its own thread; the connection lives on the server's
asyncio loop. :class:`ProxyPlayer` is a *caller* (see ``gameroom.core.calls``): it encodes
the call with the game's protocol, hands the exchange to the loop, waits at most the call's
time limit, and decodes the reply. Time-outs, disconnects, garbage and wrongly shaped
replies all become ``CallFailed`` — the referee cannot tell a remote player from a local
one. After a failed call the connection is never used again, so a late reply can never be
mistaken for the answer to a later call.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable

from gameroom.core.calls import CallFailed
from gameroom.core.handoff import wait_on_loop
from gameroom.core.match import Seat
from gameroom.core.protocol import Protocol
from gameroom.core.record import FailureKind
from gameroom.remote.connection import Connection, ConnectionClosed, JSONStreamError, ReadTimeout
from gameroom.remote.jsonstream import ValueTooLarge

__all__ = ["ProxyPlayer", "remote_seat"]


class ProxyPlayer:
    """A remote player, called from a referee thread, served by an asyncio loop."""

    def __init__(self, protocol: Protocol, connection: Connection, loop: asyncio.AbstractEventLoop,
                 name: str) -> None:
        self.protocol = protocol
        self.connection = connection
        self.loop = loop
        self.name = name
        self.broken: str | None = None
        # Optional: answers side messages (queries) the client sends during a call; gets a
        # value read and returns the answer, or None when the value is the reply.
        self.side: Callable[[Any], Any] | None = None

    def __call__(self, method: str, args: tuple[Any, ...], limit: float | None) -> Any:
        if self.broken is not None:
            raise CallFailed(f"connection unusable after an earlier failure ({self.broken})", FailureKind.DISCONNECT)
        spec = self.protocol.by_name[method]
        message = self.protocol.envelope.encode_call(spec, args)
        if spec.one_way:
            return self._send_only(message, limit)
        try:
            # The coroutine enforces the limit itself; the margin only guards a stalled loop.
            reply = wait_on_loop(self.connection.request(message, limit, self.side), self.loop,
                                 None if limit is None else limit + 5.0)
        except ReadTimeout as exc:
            self._break(str(exc), FailureKind.TIMEOUT)
        except ConnectionClosed as exc:
            self._break(str(exc), FailureKind.DISCONNECT)
        except ValueTooLarge as exc:
            self._break(f"reply is {exc}", FailureKind.INVALID_REPLY)
        except JSONStreamError as exc:
            if spec.unreadable is None:
                self._break(f"reply is {exc}", FailureKind.INVALID_REPLY)
            # The game gives such a reply a meaning; the garbage has left the stream, so the
            # connection goes on with the next call.
            return spec.unreadable()
        except TimeoutError:
            self._break(f"no reply within the time limit of {limit:g} s", FailureKind.TIMEOUT)
        except (OSError, RuntimeError) as exc:
            self._break(f"connection error: {exc}", FailureKind.DISCONNECT)
        try:
            return spec.result.decode(reply)
        except ValueError as exc:
            self._break(f"invalid reply to {spec.wire}: {exc}", FailureKind.INVALID_REPLY)

    def _send_only(self, message: Any, limit: float | None) -> None:
        """A one-way call: the message is written (within the limit); no reply is read."""
        try:
            wait_on_loop(self.connection.send(message), self.loop, limit)
        except TimeoutError:
            self._break(f"could not send within the time limit of {limit:g} s", FailureKind.TIMEOUT)
        except (ConnectionError, OSError, RuntimeError) as exc:
            self._break(f"connection error: {exc}", FailureKind.DISCONNECT)
        return None

    def _break(self, reason: str, kind: FailureKind) -> None:
        self.broken = reason
        raise CallFailed(reason, kind)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.connection.close)


def remote_seat(protocol: Protocol, connection: Connection, loop: asyncio.AbstractEventLoop,
                name: str) -> Seat:
    """A seat whose calls travel over ``connection``."""
    proxy = ProxyPlayer(protocol, connection, loop, name)
    return Seat(name, proxy, trusted=False, player=proxy)
