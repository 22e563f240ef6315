"""Bazaar benchmarks: complete 4-player games from scratch through the real referee between
reference players (trusted seats: every call is a direct method call), the same games on
guarded seats (a worker thread per player, timed calls), the reference strategy alone on
the turn states those games produce, and peak memory.

The reference implementation's figure, for comparison: 14.8 games/s between four
reference players.
"""

from __future__ import annotations

import random
import resource
import statistics
import time
import tracemalloc
from typing import Any, Callable

from gameroom.core.context import MatchContext
from gameroom.core.limits import Limits
from gameroom.core.match import Seat, guarded_seat, trusted_seat
from gameroom.games.bazaar.players import ReferencePlayer
from gameroom.games.bazaar.referee import run_game
from gameroom.games.bazaar.state import TurnState, scratch_state
from gameroom.games.bazaar.strategies import Policy, trade_then_purchase, wants_pebble

REFERENCE_GAMES_PER_SECOND = 14.8
NAMES = ("Ann", "Bob", "Cy", "Di")
POLICIES = (Policy.PURCHASE_POINTS, Policy.PURCHASE_SIZE)


def play_games(games: int, seat: Callable[[str, ReferencePlayer], Seat] = trusted_seat, seed: int = 1000,
               time_limit: float | None = None, observers: list | None = None) -> float:
    """Play ``games`` scratch games; games per second."""
    start = time.perf_counter()
    for g in range(games):
        seats = [seat(n, ReferencePlayer(n, POLICIES[i % 2])) for i, n in enumerate(NAMES)]
        run_game(seats, scratch_state(random.Random(seed + g), NAMES),
                 MatchContext(limits=Limits(call=time_limit), observers=observers or ()))
    return games / (time.perf_counter() - start)


def turns_per_game(games: int, seed: int = 1000) -> float:
    turns = 0

    def count(event: Any) -> None:
        nonlocal turns
        turns += event.kind == "state" and event.get("step") == "first-action"

    play_games(games, seed=seed, observers=[count])
    return turns / games


def strategy_calls(games: int = 20) -> None:
    """The exchange search on every turn state of some games where a player searched."""
    seen: list[tuple[tuple, TurnState, Policy]] = []

    class Spy(ReferencePlayer):
        def request_pebble_or_trades(self, turn: TurnState):  # type: ignore[no-untyped-def]
            if not wants_pebble(self.equations, turn.active.wallet, turn.bank):
                seen.append((self.equations, turn, self.policy))
            return super().request_pebble_or_trades(turn)

    for g in range(games):
        seats = [trusted_seat(n, Spy(n, POLICIES[i % 2])) for i, n in enumerate(NAMES)]
        run_game(seats, scratch_state(random.Random(g), NAMES), MatchContext(limits=Limits()))
    times = []
    for equations, turn, policy in seen:
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            trade_then_purchase(equations, turn.visibles, turn.active.wallet, turn.bank, policy)
            best = min(best, time.perf_counter() - t0)
        times.append(best)
    print(f"Bazaar reference strategy (trade_then_purchase): {len(seen)} searching turn states, "
          f"{len(seen) / sum(times):,.0f} calls/s, median {statistics.median(times) * 1e3:.3f} ms, "
          f"max {max(times) * 1e3:.2f} ms", flush=True)


def run(games: int) -> None:
    play_games(3)  # warm-up
    rate = play_games(games)
    turns = turns_per_game(min(games, 50))
    tracemalloc.start()
    play_games(5)
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"Bazaar in-process, 4 reference players on trusted seats: {games} games, {rate:.1f} games/s "
          f"({rate / REFERENCE_GAMES_PER_SECOND:.1f}x the reference's {REFERENCE_GAMES_PER_SECOND}), "
          f"{turns:.1f} turns per game; peak traced memory of a game {peak / 1e6:.2f} MB, "
          f"process peak RSS {rss:.0f} MB", flush=True)
    guarded_rate = play_games(max(games // 4, 10), guarded_seat, time_limit=4.0)
    print(f"Bazaar in-process, the same players on guarded seats (worker thread, 4 s limit): "
          f"{guarded_rate:.1f} games/s", flush=True)
    strategy_calls()
