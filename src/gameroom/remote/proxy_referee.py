"""The client side of remote play: a proxy referee that serves calls to a local player.

It reads calls from the connection in the protocol's envelope (``[method, [args...]]`` for
most games), decodes the arguments with the game's protocol, calls the local player, and sends the encoded result. A call it does not
understand ends the session (the connection is closed), as the games' specs require. The
player runs on a daemon thread so that a slow or stuck player blocks neither the other
clients of this process nor its exit, and a server that hangs up is noticed even while the
player is still thinking. A ``trusted`` player (a built-in strategy, which answers in
microseconds) is called on the loop itself: the thread's two hand-offs per call cost more
than the whole loopback round trip.

``deviations`` lets a test client break the protocol on purpose (send bare text, a
truncated value, a wrong key) to prove the server survives it.

``offer`` (optional) hands the player a side channel once, at the start: a function
``ask(message) -> answer`` the player may call *while it is answering a call* to send a side
message (a query) to the server and read the server's answer, before its reply. Only for
servers that answer side messages; the calls and replies themselves are unchanged.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any, Callable

from gameroom.core.handoff import Worker, wait_on_loop
from gameroom.core.protocol import WireProtocol
from gameroom.core.wire import WireError
from gameroom.remote.connection import Connection, ConnectionClosed, JSONStreamError, ReadTimeout

__all__ = ["serve_referee", "Session", "Deviation"]

logger = logging.getLogger(__name__)

# A deviation receives the correct reply (as JSON) and returns the bytes to send instead,
# or None to send the correct reply.
Deviation = Callable[[Any], "bytes | None"]


@dataclass
class Session:
    """How a proxy referee session ended, for logs and tests. ``got_result`` tells whether
    the game reached its end for this client: the final call answered, or — for a protocol
    without one (Evolution: the server just closes) — the connection closed cleanly between
    two calls after the game had called at least once."""

    calls: list[str] = field(default_factory=list)
    ended: str = ""
    got_result: bool = False


async def _player_result(worker: Worker, connection: Connection, fn: Callable[..., Any],
                         args: tuple[Any, ...]) -> tuple[bool, Any]:
    """Run the player on its thread (one per session: a thread per call would cost its
    start-up on every message); give up if the server closes the connection meanwhile."""
    result = worker.on_loop(asyncio.get_running_loop(), fn, args)
    eof = asyncio.ensure_future(connection.wait_eof())
    either: set[asyncio.Future[Any]] = {result, eof}
    done, _ = await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
    if result in done:
        eof.cancel()
        return result.result()
    return (False, ConnectionClosed("server closed the connection"))


def _side_channel(connection: Connection, loop: asyncio.AbstractEventLoop,
                  limit: float | None) -> Callable[[Any], Any]:
    """``ask(message)`` for the player's thread: send a side message, return the answer."""
    async def exchange(message: Any) -> Any:
        await connection.send(message)
        return await connection.read_value(limit, limit)

    def ask(message: Any) -> Any:
        return wait_on_loop(exchange(message), loop, None)

    return ask


async def serve_referee(connection: Connection, player: Any, protocol: WireProtocol, *,
                        deviations: dict[str, Deviation] | None = None, read_limit: float | None = 1000.0,
                        pad: int = 0, trickle: bool = False,
                        log: Callable[[str], None] | None = None,
                        offer: Callable[[Callable[[Any], Any]], None] | None = None,
                        trusted: bool = False) -> Session:
    """Serve calls until the final method has been answered or the session breaks."""
    session = Session()
    deviations = deviations or {}
    if offer is not None:
        offer(_side_channel(connection, asyncio.get_running_loop(), read_limit))

    worker = Worker("client-player")

    def stop(why: str) -> Session:
        worker.stop()
        session.ended = why
        if log is not None:
            log(why)
        connection.close()
        return session

    closing_ends_the_game = not any(method.final for method in protocol.methods)
    while True:
        try:
            message = await connection.read_value(read_limit, read_limit)
        except ConnectionClosed:
            if closing_ends_the_game and session.calls and connection.at_eof:
                session.got_result = True
                return stop("finished: the server closed the connection at the end of the game")
            return stop("server closed the connection")
        except ReadTimeout:
            return stop("no call from the server within the read limit")
        except JSONStreamError as exc:
            return stop(f"server sent {exc}")
        try:
            spec, args = protocol.envelope.decode_call(protocol, message)
        except WireError as exc:
            return stop(f"bad call from the server: {exc}")
        session.calls.append(spec.wire)
        if trusted:
            try:
                ok, result = True, getattr(player, spec.name)(*args)
            except Exception as exc:   # noqa: BLE001 -- reported below, as from the thread
                ok, result = False, exc
        else:
            ok, result = await _player_result(worker, connection, getattr(player, spec.name), args)
        if not ok:
            if isinstance(result, ConnectionClosed):
                return stop("server closed the connection while the player was thinking")
            return stop(f"player raised {type(result).__name__}: {result} in {spec.wire}")
        if spec.one_way:   # nothing is sent back (Evolution's start)
            if spec.final:
                session.got_result = True
                return stop("finished")
            continue
        try:
            reply = spec.result.encode(result)
        except Exception as exc:  # noqa: BLE001 -- the local player returned something unencodable: reported
            return stop(f"player returned an invalid {spec.result.name} from {spec.wire}: {exc!r}")
        deviation = deviations.get(spec.wire)
        raw = deviation(reply) if deviation is not None else None
        try:
            if raw is not None:
                await connection.send_raw(raw)
            else:
                await connection.send(reply, pad=pad, trickle=trickle)
        except (ConnectionError, OSError):
            return stop("server closed the connection")
        if spec.final:
            session.got_result = True
            return stop("finished")
