"""Running the network layer's asyncio code on the fastest event loop installed.

uvloop (``pip install gameroom[fast]``) is an event loop written in C with cheaper
wake-ups and writes; it serves the clients and the servers' sign-ups (a server's calls to
its players no longer go through a loop, so on our benchmarks its gain is within the
noise). It is optional: without it, or with ``GAMEROOM_LOOP=asyncio`` in the environment
to compare, the standard loop runs the same code.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any, Callable, Coroutine, TypeVar

__all__ = ["run", "loop_factory", "loop_name"]

T = TypeVar("T")


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's loop maker when installed and not refused by the environment, else None."""
    if os.environ.get("GAMEROOM_LOOP", "") == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        return None
    new_loop: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return new_loop


def loop_name() -> str:
    return "uvloop" if loop_factory() is not None else "asyncio"


def _quiet_about_peers(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The loop's exception handler: a peer that resets or drops its connection is how a
    network ends, already reported by whoever was talking to it, so it is not logged a
    second time with a traceback (which would follow a command's last line on standard
    error, past its one-line error); anything else goes to asyncio's default handler."""
    if isinstance(context.get("exception"), (ConnectionError, TimeoutError)):
        return
    loop.default_exception_handler(context)


def run(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)`` on uvloop when available."""
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        runner.get_loop().set_exception_handler(_quiet_about_peers)
        return runner.run(main)
