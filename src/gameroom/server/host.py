"""Running one game (or tournament) for remote players: sign up, play, report.

The asyncio loop accepts every connection and signs players up; the game's referee then
reaches its remote players through proxies that take their sockets off the loop and use
them directly (no hand-off per call), so a slow or silent client costs its own call a
time-out and never blocks the loop or another game. A plan that says it runs on one thread
(``ServerPlan.single_thread``: it waits on nothing but its seats) runs as a greenlet on the
process's hub (``gameroom.remote.hub``: one thread and one epoll for every such game);
any other on a thread of its own. :func:`host_game_on` may run many times at once in one
process, which is how one server holds many games (``python -m gameroom.bench capacity``).
"""

from __future__ import annotations

import logging
import traceback
from dataclasses import dataclass
from typing import Any

from gameroom.core.handoff import run_in_thread
from gameroom.core.hosting import ServerPlan
from gameroom.remote.hub import shared_hub
from gameroom.remote.proxy_player import remote_seats
from gameroom.server.signup import Signup

__all__ = ["Hosted", "host_game", "host_game_on", "host_listening", "host_once", "run_in_thread"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Hosted:
    """How hosting one game ended: the JSON result to print and, when no game was played
    (too few players, or the game could not be run), why — what a server says on standard
    error before it exits non-zero."""

    result: Any
    played: bool
    why: str = ""


async def host_once(signup: Signup, plan: ServerPlan, say_why: bool = True) -> Hosted:
    """Sign players up on an already listening ``signup`` and run the plan; ``say_why``
    logs why no game was played (a caller that reports it itself passes False)."""
    try:
        players = await signup.run()
        if len(players) < plan.rules.min_players:
            why = f"too few players signed up ({len(players)} < {plan.rules.min_players})"
            if say_why:
                logger.info(why)
            return Hosted(plan.no_game_result, False, why)
        house = plan.house_seats()
        hub = shared_hub() if plan.single_thread and all(seat.trusted for seat in house) else None
        seats = house + await remote_seats(plan.protocol, [(p.name, p.connection) for p in players], hub)
        try:
            if hub is not None:
                return Hosted(await hub.run(plan.play, seats), True)
            return Hosted(await run_in_thread(plan.play, seats), True)
        except Exception as exc:
            # One line, never a traceback on the log: the reason and where it was raised (the
            # traceback goes to the module's logger at debug level).
            logger.debug("the game could not be run", exc_info=True)
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            why = (f"the game could not be run: {type(exc).__name__}: {exc} "
                   f"({frame.filename.rsplit('/', 1)[-1]}:{frame.lineno})")
            if say_why:
                logger.info(why)
            return Hosted(plan.error_result, False, why)
    finally:
        signup.close_all()


async def host_game_on(signup: Signup, plan: ServerPlan) -> Any:
    """Sign players up on an already listening ``signup`` and run the plan; the JSON result."""
    return (await host_once(signup, plan)).result


async def host_game(plan: ServerPlan, port: int, host: str = "127.0.0.1") -> Any:
    """Listen on ``host:port``, sign players up by the plan's rules, run it, return the result."""
    return (await host_listening(plan, port, host)).result


async def host_listening(plan: ServerPlan, port: int, host: str = "127.0.0.1", say_why: bool = True) -> Hosted:
    """:func:`host_game`, telling whether a game was played."""
    signup = Signup(plan.rules, plan.protocol.greeting)
    await signup.listen(host, port)
    return await host_once(signup, plan, say_why)
