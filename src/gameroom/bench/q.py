"""Q benchmarks: in-process games between built-in players and remote call latency."""

from __future__ import annotations

import asyncio
import random
import statistics
import sys
import time
import tracemalloc
from typing import Any, Callable, Sequence

from gameroom.core.context import MatchContext
from gameroom.core.limits import Limits
from gameroom.core.match import Seat, trusted_seat


def report(label: str, games: int, seconds: float, turns: int | None = None, peak: int | None = None) -> None:
    parts = [f"{label}: {games} games in {seconds:.2f} s = {games / seconds:.1f} games/s"]
    if turns is not None:
        parts.append(f"{turns / seconds:.0f} turns/s")
    if peak is not None:
        parts.append(f"peak traced memory {peak / 1e6:.2f} MB")
    print(", ".join(parts), flush=True)


def peak_memory(fn: Callable[[], Any]) -> int:
    tracemalloc.start()
    fn()
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


# -- Q ----------------------------------------------------------------------------------------

def q_games(strategies: Sequence[str], games: int, seed: int = 0) -> tuple[int, int]:
    from gameroom.games.q.players import StrategyPlayer
    from gameroom.games.q.referee import QRules, run_game
    from gameroom.games.q.state import new_game

    names = ["A", "B", "C", "D"][: len(strategies)]
    turns = 0

    class Counted(StrategyPlayer):
        # Counting take_turn calls costs one call per turn, and no observer (which would
        # make the referee copy a snapshot after every turn).
        def take_turn(self, pub: Any) -> Any:
            nonlocal turns
            turns += 1
            return super().take_turn(pub)

    for g in range(games):
        state = new_game(names, random.Random(seed + g))
        seats = [trusted_seat(n, Counted(n, s)) for n, s in zip(names, strategies)]
        run_game(seats, state, MatchContext(limits=Limits()), rules=QRules())
    return games, turns


def run(games: int) -> None:
    for strategies in (["dag"] * 4, ["dag", "dag", "ldasg", "ldasg"], ["dag", "dag"]):
        q_games(strategies, 2)  # warm-up
        start = time.perf_counter()
        n, turns = q_games(strategies, games)
        elapsed = time.perf_counter() - start
        peak = peak_memory(lambda: q_games(strategies, 3))
        report(f"Q in-process {'+'.join(strategies)}", n, elapsed, turns, peak)
    bench_q_strategies()
    bench_q_remote()


def bench_q_strategies(calls: int = 2000) -> None:
    """One strategy turn (the iterated atomic step) on a mid-game public state."""
    from gameroom.games.q.players import StrategyPlayer
    from gameroom.games.q.referee import QRules, run_game
    from gameroom.games.q.state import new_game
    from gameroom.games.q.strategies import STRATEGIES, iterate

    snapshots: list[Any] = []

    def keep(event: Any) -> None:
        if event.detail is not None and event.subject is not None and len(snapshots) < 40:
            snapshots.append(event.subject)

    names = ["A", "B", "C", "D"]
    seats = [trusted_seat(n, StrategyPlayer(n, "dag")) for n in names]
    run_game(seats, new_game(names, random.Random(3)), MatchContext(limits=Limits(), observers=[keep]), rules=QRules())
    pub = snapshots[-1].public_for_active()
    for name, step in STRATEGIES.items():
        start = time.perf_counter()
        for _ in range(calls):
            iterate(step, pub)
        elapsed = time.perf_counter() - start
        print(f"Q strategy {name} on a mid-game state ({len(pub.qmap)} tiles on the map): "
              f"{calls / elapsed:.0f} turns/s, {elapsed / calls * 1e6:.0f} us per turn", flush=True)


_CLIENTS = """
import asyncio, sys
from gameroom.core.hosting import ClientSpec
from gameroom.games.q.players import StrategyPlayer
from gameroom.games.q.protocol import PROTOCOL
from gameroom.remote import aio
from gameroom.server.clients import run_clients
specs = [ClientSpec(n, StrategyPlayer(n, "dag"), PROTOCOL, trusted=True) for n in "ABCD"]
aio.run(run_clients(specs, "127.0.0.1", int(sys.argv[1])))
"""


def bench_q_remote(games: int = 5) -> None:
    """Games between dag players over loopback TCP; the time of one remote call."""
    from gameroom.core.hosting import ServerPlan, SignupRules, name_rule
    from gameroom.games.q.protocol import PROTOCOL
    from gameroom.games.q.referee import QRules, run_game
    from gameroom.games.q.state import new_game
    from gameroom.server.host import host_game

    timings: list[float] = []

    def timed(seat: Seat) -> Seat:
        inner = seat.caller

        def call(method: str, args: tuple[Any, ...], limit: float | None) -> Any:
            start = time.perf_counter()
            try:
                return inner(method, args, limit)
            finally:
                timings.append(time.perf_counter() - start)

        return Seat(seat.name, call, seat.trusted, seat.player)

    def play(seats: Sequence[Seat], seed: int) -> Any:
        state = new_game([s.name for s in seats], random.Random(seed))
        return run_game([timed(s) for s in seats], state, MatchContext(limits=Limits(call=6.0)), rules=QRules()).to_json()

    rules = SignupRules(4, 4, 1, 30.0, 2.0, 2.0, name_rule(r"[A-Za-z0-9]+", 20))

    async def one(seed: int) -> None:
        plan = ServerPlan(PROTOCOL, rules, lambda seats: play(seats, seed), [[], []], [[], []])
        probe = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        port = probe.sockets[0].getsockname()[1]
        probe.close()
        server = asyncio.get_running_loop().create_task(host_game(plan, port))
        await asyncio.sleep(0.05)
        # The clients live in their own process, as they would in real play.
        clients = await asyncio.create_subprocess_exec(sys.executable, "-c", _CLIENTS, str(port))
        await server
        await clients.wait()

    from gameroom.remote import aio

    start = time.perf_counter()
    for g in range(games):
        aio.run(one(g))
    elapsed = time.perf_counter() - start
    ordered = sorted(timings)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    print(f"Q remote (4 dag clients in another process, over loopback, {aio.loop_name()}, {games} games, "
          f"{len(timings)} calls): "
          f"{len(timings) / elapsed:.0f} calls/s overall, one remote call mean "
          f"{statistics.mean(timings) * 1e3:.3f} ms, p99 {p99 * 1e3:.3f} ms", flush=True)
