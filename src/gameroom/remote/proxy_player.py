"""The server side of remote play: a proxy that looks like a local player to a referee.

The referee runs synchronously, on its own thread or as a greenlet on a hub
(``gameroom.remote.hub``); the connection is signed up on the server's asyncio loop and
then handed to the proxy, which takes it off the loop (``Connection.detach``) and talks to
it directly from the referee: blocking socket calls on a referee thread, a non-blocking
send and a switch to the hub's epoll loop on a hub. No hand-off to the loop and back per
call. :class:`ProxyPlayer` is a *caller* (see
``gameroom.core.calls``): it encodes the call with the game's protocol, sends it and reads
the reply within the call's time limit, and decodes the reply. Time-outs, disconnects,
garbage and wrongly shaped replies all become ``CallFailed`` — the referee cannot tell a
remote player from a local one. After a failed call the connection is never used again,
so a late reply can never be mistaken for the answer to a later call.
"""

from __future__ import annotations

import asyncio
from time import monotonic
from typing import Any, Callable, NoReturn, Sequence

from gameroom.core.calls import CallFailed, on_threads
from gameroom.core.match import Seat
from gameroom.core.protocol import WireProtocol
from gameroom.core.record import FailureKind
from gameroom.remote.hub import Hub
from gameroom.remote.connection import Connection, ConnectionClosed, JSONStreamError, ReadTimeout
from gameroom.remote.jsonstream import ValueTooLarge, encode

__all__ = ["ProxyPlayer", "remote_seat", "remote_seats"]


class ProxyPlayer:
    """A remote player, called from a referee thread. Make it on ``loop``'s thread (where
    the connection was signed up); from then on only the referee's thread uses the socket."""

    def __init__(self, protocol: WireProtocol, connection: Connection, loop: asyncio.AbstractEventLoop,
                 name: str, hub: Hub | None = None) -> None:
        self.protocol = protocol
        self.connection = connection
        self.loop = loop
        self.stream = connection.detach(hub)
        self.name = name
        self.broken: str | None = None
        # Optional: answers side messages (queries) the client sends during a call; gets a
        # value read and returns the answer, or None when the value is the reply.
        self.side: Callable[[Any], Any] | None = None
        # A simultaneous round waits for blocking proxies side by side; on a hub the
        # referee is a greenlet, whose calls must stay on its thread (asked in turn).
        self.together = on_threads if hub is None else None

    def __call__(self, method: str, args: tuple[Any, ...], limit: float | None) -> Any:
        if self.broken is not None:
            raise CallFailed(f"connection unusable after an earlier failure ({self.broken})", FailureKind.DISCONNECT)
        spec = self.protocol.by_name[method]
        # Encoded to bytes at once: the call's JSON values (a whole Q map is hundreds of
        # lists) die here instead of living through the wait for the reply, where the
        # cyclic collector would have to walk them (at 10,000 players it spent a quarter
        # of the server's CPU on such values).
        data = encode(self.protocol.envelope.encode_call(spec, args))
        if spec.one_way:
            return self._send_only(data, limit)
        try:
            reply = self.stream.request(data, limit, self.side)
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
        except OSError as exc:
            self._break(f"connection error: {exc}", FailureKind.DISCONNECT)
        try:
            return spec.result.decode(reply)
        except ValueError as exc:
            self._break(f"invalid reply to {spec.wire}: {exc}", FailureKind.INVALID_REPLY)

    def _send_only(self, data: bytes, limit: float | None) -> None:
        """A one-way call: the encoded message is written (within the limit); no reply is read."""
        text = "" if limit is None else f"could not send within the time limit of {limit:g} s"
        try:
            self.stream.send_raw(data, None if limit is None else monotonic() + limit, text)
        except ReadTimeout:
            self._break(text, FailureKind.TIMEOUT)
        except OSError as exc:   # ConnectionClosed included
            self._break(f"connection error: {exc}", FailureKind.DISCONNECT)
        return None

    def _break(self, reason: str, kind: FailureKind) -> NoReturn:
        self.broken = reason
        raise CallFailed(reason, kind)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.connection.close)


def remote_seat(protocol: WireProtocol, connection: Connection, loop: asyncio.AbstractEventLoop,
                name: str, hub: Hub | None = None) -> Seat:
    """A seat whose calls travel over ``connection``: from a referee thread, or from a
    referee greenlet on ``hub`` (``gameroom.remote.hub``)."""
    proxy = ProxyPlayer(protocol, connection, loop, name, hub)
    return Seat(name, proxy, trusted=False, player=proxy)


async def remote_seats(protocol: WireProtocol, players: Sequence[tuple[str, Connection]],
                       hub: Hub | None = None) -> list[Seat]:
    """:func:`remote_seat` for each ``(name, connection)``, on the loop that signed them
    up. Each detached connection's transport lets its descriptor go on the loop's next
    step; waiting for that step after each seat keeps a server that starts thousands of
    games at once from holding two descriptors per player meanwhile (at 10,000 players,
    the 20,000 open files this machine allows)."""
    loop = asyncio.get_running_loop()
    seats = []
    for name, connection in players:
        seats.append(remote_seat(protocol, connection, loop, name, hub))
        await asyncio.sleep(0)
    return seats
