"""Running one game (or tournament) for remote players: sign up, play, report.

The asyncio loop accepts every connection and signs players up; the game's referee runs on
its own thread and reaches its remote players through proxies that take their sockets off
the loop and use them directly from that thread (no hand-off per call), so a slow or silent
client costs its own call a time-out and never blocks the loop or another game.
:func:`host_game_on` may run many times at once in one process, which is how one server
holds many games (``python -m gameroom.bench capacity``).
"""

from __future__ import annotations

import asyncio
import logging
import traceback
from typing import Any, Callable

from gameroom.core.handoff import run_in_thread
from gameroom.core.hosting import ServerPlan
from gameroom.remote.proxy_player import remote_seat
from gameroom.server.signup import Signup

__all__ = ["host_game", "host_game_on", "run_in_thread"]

logger = logging.getLogger(__name__)


async def host_game_on(signup: Signup, plan: ServerPlan, log: Callable[[str], None]) -> Any:
    """Sign players up on an already listening ``signup`` and run the plan; the JSON result."""
    loop = asyncio.get_running_loop()
    try:
        players = await signup.run()
        if len(players) < plan.rules.min_players:
            log(f"too few players signed up ({len(players)} < {plan.rules.min_players})")
            return plan.no_game_result
        seats = plan.house_seats() + [remote_seat(plan.protocol, p.connection, loop, p.name) for p in players]
        try:
            return await run_in_thread(plan.play, seats)
        except Exception as exc:
            # One line, never a traceback on the log: the reason and where it was raised (the
            # traceback goes to the module's logger at debug level).
            logger.debug("the game could not be run", exc_info=True)
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            log(f"the game could not be run: {type(exc).__name__}: {exc} "
                f"({frame.filename.rsplit('/', 1)[-1]}:{frame.lineno})")
            return plan.error_result
    finally:
        signup.close_all()


async def host_game(plan: ServerPlan, port: int, host: str = "127.0.0.1",
                    log: Callable[[str], None] = lambda _t: None) -> Any:
    """Listen on ``host:port``, sign players up by the plan's rules, run it, return the result."""
    signup = Signup(plan.rules, log, plan.protocol.greeting)
    await signup.listen(host, port)
    return await host_game_on(signup, plan, log)
