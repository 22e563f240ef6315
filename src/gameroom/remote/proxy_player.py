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
import concurrent.futures
from typing import Any, Callable

from gameroom.core.calls import CallFailed
from gameroom.core.match import Seat
from gameroom.core.protocol import Protocol
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
            raise CallFailed(f"connection unusable after an earlier failure ({self.broken})")
        spec = self.protocol.by_name[method]
        message = self.protocol.envelope.encode_call(spec, args)
        if spec.one_way:
            return self._send_only(message, limit)
        future = asyncio.run_coroutine_threadsafe(self.connection.request(message, limit, self.side), self.loop)
        try:
            # The coroutine enforces the limit itself; the margin only guards a stalled loop.
            reply = future.result(None if limit is None else limit + 5.0)
        except ReadTimeout as exc:
            self._break(str(exc))
        except ConnectionClosed as exc:
            self._break(str(exc))
        except ValueTooLarge as exc:
            self._break(f"reply is {exc}")
        except JSONStreamError as exc:
            if spec.unreadable is None:
                self._break(f"reply is {exc}")
            # The game gives such a reply a meaning; the garbage has left the stream, so the
            # connection goes on with the next call.
            return spec.unreadable()
        except (concurrent.futures.TimeoutError, TimeoutError):
            future.cancel()
            self._break(f"no reply within the time limit of {limit:g} s")
        except (OSError, RuntimeError) as exc:
            self._break(f"connection error: {exc}")
        try:
            return spec.result.decode(reply)
        except ValueError as exc:
            self._break(f"invalid reply to {spec.wire}: {exc}")

    def _send_only(self, message: Any, limit: float | None) -> None:
        """A one-way call: the message is written (within the limit); no reply is read."""
        future = asyncio.run_coroutine_threadsafe(self.connection.send(message), self.loop)
        try:
            future.result(limit)
        except (concurrent.futures.TimeoutError, TimeoutError):
            future.cancel()
            self._break(f"could not send within the time limit of {limit:g} s")
        except (ConnectionError, OSError, RuntimeError) as exc:
            self._break(f"connection error: {exc}")
        return None

    def _break(self, reason: str) -> None:
        self.broken = reason
        raise CallFailed(reason)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.connection.close)


def remote_seat(protocol: Protocol, connection: Connection, loop: asyncio.AbstractEventLoop,
                name: str) -> Seat:
    """A seat whose calls travel over ``connection``."""
    proxy = ProxyPlayer(protocol, connection, loop, name)
    return Seat(name, proxy, trusted=False, player=proxy)
