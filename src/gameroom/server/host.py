"""Running one game (or tournament) for remote players: sign up, play, report.

The asyncio loop owns every connection; the game's referee runs on its own thread and
reaches its remote players through proxies, so a slow or silent client costs its own call
a time-out and never blocks the loop. :func:`host_many` runs several sign-ups and games in
one process at once, which is how one server holds many games.
"""

from __future__ import annotations

import asyncio
import threading
import traceback
from typing import Any, Callable

from gameroom.core.hosting import ServerPlan
from gameroom.remote.proxy_player import remote_seat
from gameroom.server.signup import Signup

__all__ = ["host_game", "host_game_on", "run_in_thread"]


async def run_in_thread(fn: Callable[..., Any], *args: Any) -> Any:
    """Run ``fn`` on a daemon thread and await its result (exceptions propagate)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(ok: bool, value: Any) -> None:
        if future.done():
            return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    def run() -> None:
        try:
            outcome = (True, fn(*args))
        except BaseException as exc:
            outcome = (False, exc)
        try:
            loop.call_soon_threadsafe(settle, *outcome)
        except RuntimeError:
            pass

    threading.Thread(target=run, daemon=True, name="referee").start()
    return await future


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
            log(f"the game could not be run: {exc}")
            log(traceback.format_exc().rstrip())
            return plan.error_result
    finally:
        signup.close_all()


async def host_game(plan: ServerPlan, port: int, host: str = "127.0.0.1",
                    log: Callable[[str], None] = lambda _t: None) -> Any:
    """Listen on ``host:port``, sign players up by the plan's rules, run it, return the result."""
    signup = Signup(plan.rules, log, plan.protocol.greeting)
    await signup.listen(host, port)
    return await host_game_on(signup, plan, log)
