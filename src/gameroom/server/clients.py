"""Launching client connections that sign up and play, all in one asyncio process.

Each :class:`~gameroom.core.hosting.ClientSpec` becomes one TCP connection: connect (with
retries), send the name, then serve the referee's calls through a proxy referee. Clients
start one after another with the spec's delay, so sign-up order follows the list. The
special behaviours ``silent`` and ``name-only`` exist to test servers against clients
that never speak or never answer.

Whatever goes wrong in one client ends that client only, with its reason in the log. When
a client cannot reach the server, the ones after it try once instead of retrying for
seconds each, and the reason is left in its session: the command then says it in one
line for all of them instead of waiting long and reporting success.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Sequence

from gameroom.core.hosting import ClientSpec
from gameroom.core.protocol import PLAIN_NAME
from gameroom.remote.connection import Connection, open_connection
from gameroom.remote.jsonstream import JSONStreamError, encode, preview
from gameroom.remote.proxy_referee import Session, serve_referee

__all__ = ["run_client", "run_clients", "CANNOT_CONNECT"]

logger = logging.getLogger(__name__)


CANNOT_CONNECT = "cannot connect"   # how the Session of a client that never connected ends


async def run_client(spec: ClientSpec, host: str, port: int, hold: float = 1000.0, connected: asyncio.Event | None = None,
                     retries: int | None = None) -> Session:
    """One client: connect, sign up, play. ``hold`` bounds how long a deliberately
    misbehaving (silent / name-only) client keeps its connection open; ``connected`` is
    set once the connection is made (or given up); ``retries`` while refused (default: the
    spec's own count, ``spec.retry_wait`` apart)."""
    label = spec.name if isinstance(spec.name, str) else preview(spec.name)
    try:
        connection: Connection = await open_connection(
            host, port, spec.connect_retries if retries is None else retries, spec.retry_wait)
    except OSError as exc:
        # the command says it once for all its clients (one line, not one per client)
        logger.debug("%s: cannot connect to %s:%s: %s", label, host, port, exc)
        return Session(ended=f"{CANNOT_CONNECT}: {exc}")
    finally:
        if connected is not None:
            connected.set()
    try:
        if spec.behaviour == "silent":
            await asyncio.wait_for(connection.wait_eof(), hold)
            return Session(ended="silent client done")
        if spec.signup_bytes is not None:
            await connection.send_raw(spec.signup_bytes)
            await asyncio.wait_for(connection.wait_eof(), hold)
            return Session(ended="broken sign-up client done")
        greeting = spec.protocol.greeting if spec.protocol is not None else PLAIN_NAME
        await connection.send_raw(encode(greeting.message(spec.name)), pad=spec.pad, trickle=spec.trickle)
        if greeting.ack is not None and spec.behaviour == "play":
            await connection.read_value()   # the acknowledgement; its content is not checked
        if spec.behaviour == "name-only":
            await asyncio.wait_for(connection.wait_eof(), hold)
            return Session(ended="name-only client done")
        assert spec.protocol is not None and spec.player is not None
        session = await serve_referee(connection, spec.player, spec.protocol, deviations=spec.deviations,
                                      pad=spec.pad, trickle=spec.trickle, offer=spec.side_channel,
                                      trusted=spec.trusted)
        logger.info(f"{label}: {session.ended}")
        return session
    except (asyncio.TimeoutError, ConnectionError, OSError, JSONStreamError) as exc:
        return Session(ended=f"connection ended: {exc!r}")
    except Exception as exc:   # this client ends; the others of the process play on
        logger.debug("%s ended", label, exc_info=True)
        logger.info(f"{label}: ended by {type(exc).__name__}: {preview(str(exc))}")
        return Session(ended=f"ended by {type(exc).__name__}")
    finally:
        connection.close()


async def run_clients(specs: Sequence[ClientSpec], host: str, port: int) -> list[Session]:
    """Launch every client in order and wait for all to finish. A client starts once the
    previous one is connected (or gave up) and its own delay has passed, so connection
    order - the servers' sign-up order - is list order even while connections are being
    retried because the server is not listening yet."""
    tasks: list[asyncio.Task[Session]] = []
    previous: asyncio.Event | None = None
    for spec in specs:
        if previous is not None:
            await previous.wait()
        if spec.delay:
            await asyncio.sleep(spec.delay)
        unreachable = any(t.done() and t.result().ended.startswith(CANNOT_CONNECT) for t in tasks)
        previous = asyncio.Event()
        tasks.append(asyncio.get_running_loop().create_task(
            run_client(spec, host, port, connected=previous, retries=0 if unreachable else None)))
    return list(await asyncio.gather(*tasks))
