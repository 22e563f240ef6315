"""One remote call of any game with a referee protocol: games between its first built-in
strategy's players, the clients in another process (as in real play), the server in
this one, over loopback TCP; every call timed as the referee sees it (encode, send, the
client's whole turn, read, decode).

The server signs the players up with the real sign-up server and the game's own protocol
(greeting included) and plays the descriptor's ``play`` from a fixed seed; the clients are
the real clients runner with the descriptor's players. Figures only, of games that were
played: a game that did not start or ended with a seat ejected stops it
(``bench.seats.GameNotPlayed``).
``python -m gameroom.bench.remote GAME PORT`` is the clients' process.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from typing import Any, Sequence

from gameroom.bench.seats import GameNotPlayed, check_played
from gameroom.core.context import MatchContext
from gameroom.core.game import GameDescriptor
from gameroom.core.match import Seat

__all__ = ["run", "table_size"]

NAMES = "ABCDEFGH"


def table_size(game: GameDescriptor) -> int:
    """Players at the benchmark's table: four, within the game's bounds."""
    return max(game.min_players, min(4, game.max_players, len(NAMES)))


def run(game: GameDescriptor, games: int = 5) -> str:
    """Play ``games`` games one after the other; one line of figures."""
    from gameroom.core.hosting import ServerPlan, SignupRules, name_rule
    from gameroom.remote import aio
    from gameroom.server.host import host_game

    timings: list[float] = []
    players = table_size(game)

    def timed(seat: Seat) -> Seat:
        inner = seat.caller

        def call(method: str, args: tuple[Any, ...], limit: float | None) -> Any:
            start = time.perf_counter()
            try:
                return inner(method, args, limit)
            finally:
                timings.append(time.perf_counter() - start)

        return Seat(seat.name, call, seat.trusted, seat.player)

    played: dict[int, Any] = {}

    def play(seats: Sequence[Seat], seed: int) -> Any:
        played[seed] = result = game.play(seed, [timed(s) for s in seats], context=MatchContext(limits=game.limits))
        return result.to_json()

    rules = SignupRules(players, players, 1, 30.0, 2.0, 2.0, name_rule(r"[A-Za-z0-9]+", 20))

    async def one(seed: int) -> None:
        plan = ServerPlan(game.protocol, rules, lambda seats: play(seats, seed), None, None)
        probe = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        port = probe.sockets[0].getsockname()[1]
        probe.close()
        server = asyncio.get_running_loop().create_task(host_game(plan, port))
        await asyncio.sleep(0.05)
        clients = await asyncio.create_subprocess_exec(sys.executable, "-m", "gameroom.bench.remote", game.name,
                                                       str(port))
        await server
        await clients.wait()

    start = time.perf_counter()
    for g in range(games):
        aio.run(one(g))
        if g not in played:
            raise GameNotPlayed(f"{game.name} remote game {g} was not played: its {players} clients did not all "
                                "sign up (see the clients' errors above)")
        check_played(game, "remote", g, played[g])
    elapsed = time.perf_counter() - start
    if not timings:
        return f"{game.name} remote: no call was made (did the clients sign up?)"
    ordered = sorted(timings)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    strategy = next(iter(game.strategies))
    return (f"{game.name} remote ({players} {strategy} clients in another process, over loopback, "
            f"{aio.loop_name()}, {games} games, {len(timings)} calls): {len(timings) / elapsed:.0f} calls/s overall, "
            f"one remote call mean {statistics.mean(timings) * 1e3:.3f} ms, p99 {p99 * 1e3:.3f} ms")


def _clients(game_name: str, port: int) -> None:
    from gameroom.core.hosting import ClientSpec
    from gameroom.games import registry
    from gameroom.remote import aio
    from gameroom.server.clients import run_clients

    game = registry.game(game_name)
    make = next(iter(game.strategies.values()))
    names = NAMES[: table_size(game)]
    specs = [ClientSpec(n, make(n, i), game.protocol, trusted=True) for i, n in enumerate(names)]
    aio.run(run_clients(specs, "127.0.0.1", port))


if __name__ == "__main__":
    _clients(sys.argv[1], int(sys.argv[2]))
