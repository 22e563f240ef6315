"""Many games of one kind in one server process: the target of the robustness runs.

``python -m gameroom.server.many GAME --games N [--seed S] [--period SECONDS]`` hosts N
games, one per port, all at once on one asyncio loop, each exactly as ``gameroom
serve GAME`` hosts its one game: the game's own server plan (built by the descriptor's
hosting from no configuration, as the command line builds it) and the server's own
``host_game``. Only the waiting periods are shortened (``--period``), so a game whose
sign-up is not full starts after seconds instead of the spec's half minute.

Each game listens on a port the system chooses; the first line printed is
``{"ports": [P, ...]}``, once every game listens (so no other process can take a port
between choosing it and listening on it). Then it prints one JSON line per finished game, ``{"port": P, "result": R, "lost": false}``,
in the order the games end (``lost`` when the game printed the plan's no-game or error
result), then ``{"done": N}``. Whatever a client sends, the process must reach that last
line: the fuzz and slow-client tests and benchmarks read it to prove that no input
crashes a server and no game's result is lost.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import sys
from typing import Any, Sequence

from gameroom.core import console
from gameroom.core.hosting import PeriodPolicy, ServerPlan
from gameroom.core.options import option_values
from gameroom.server.host import host_once
from gameroom.server.signup import Signup

__all__ = ["plan_for", "main"]


def plan_for(game_name: str, seed: int, period: float | None = None) -> ServerPlan:
    """The server plan ``gameroom serve GAME --seed SEED`` builds without a configuration;
    with ``period``, waiting periods of that many seconds (a quorum policy becomes one
    period, so a half-full game starts too)."""
    from gameroom.games import registry

    server = registry.game(game_name).hosting.server
    if server is None:
        raise SystemExit(f"{game_name} has no referee server")
    plan = server.plan(None, {**option_values(server.options, {}), "seed": seed})
    if period is not None:
        rules = dataclasses.replace(plan.rules, periods=1, period_seconds=period,
                                    policy=PeriodPolicy(1, period))
        plan = dataclasses.replace(plan, rules=rules)
    return plan


async def _host(plan: ServerPlan, signup: Signup) -> Any:
    port = signup.port
    hosted = await host_once(signup, plan)
    print(json.dumps({"port": port, "result": hosted.result, "lost": not hosted.played}), flush=True)
    return hosted.result


async def _serve(game_name: str, games: int, seed: int, period: float | None) -> int:
    plans = [plan_for(game_name, seed + i, period) for i in range(games)]
    signups = []
    for plan in plans:
        signup = Signup(plan.rules, plan.protocol.greeting)
        await signup.listen("127.0.0.1", 0)
        signups.append(signup)
    print(json.dumps({"ports": [signup.port for signup in signups]}), flush=True)
    await asyncio.gather(*(_host(plan, signup) for plan, signup in zip(plans, signups)))
    return games


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gameroom.server.many",
                                     description="Host one game per port in one server process.")
    parser.add_argument("game")
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--period", type=float, default=None, help="seconds of one waiting period")
    args = parser.parse_args(argv)
    console.install()
    # every game's sign-ups and drop-outs, as serve says them
    for lines in ("gameroom.server", "gameroom.core.match", "gameroom.games"):
        console.show_lines(lines)
    done = asyncio.run(_serve(args.game, args.games, args.seed, args.period))
    print(json.dumps({"done": done}), flush=True)
    sys.stderr.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
