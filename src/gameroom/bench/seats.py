"""The same games on every kind of seat, and what one call costs on each.

A game's line-ups (``core.workload.Lineup``; the first strategy for up to four players
when it declares none) are played from fixed seeds on trusted seats (direct calls),
guarded seats (a time limit on every call: ``core.calls.GuardedCaller``) and isolated
seats (each player in its own process in the sandbox a league gives Python bots, started
for each game as a league does). Each figure is given per wall second and per CPU second
of this process and its children (the machine is shared: wall time measures the load as
much as the code).

The cost of one call is measured on a player whose method returns its argument: a direct
call, a guarded call on the main thread (the interval timer) and on another thread (the
worker hand-off a server's referee uses), an isolated call, and beside it a raw round trip
of the same bytes through a pipe to a child process that echoes them.
"""

from __future__ import annotations

import functools
import os
import resource
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gameroom.core.calls import GuardedCaller, direct_caller
from gameroom.core.context import MatchContext
from gameroom.core.errors import GameroomError
from gameroom.core.game import GameDescriptor
from gameroom.core.match import Seat, guarded_seat, isolated_seat
from gameroom.core.record import MatchResult
from gameroom.core.workload import Lineup

__all__ = ["GUARD_LIMIT", "Echo", "GameNotPlayed", "Rate", "builtin_player", "call_costs", "check_played",
           "default_lineup", "play_games"]

GUARD_LIMIT = 10.0
"""Seconds a guarded call may take when the game sets no call limit of its own."""

KINDS = ("trusted", "guarded", "isolated")


class Echo:
    """The player of the call-cost figures: its one method returns its argument."""

    def ask(self, value: Any) -> Any:
        return value


class GameNotPlayed(GameroomError):
    """A benchmark game did not end as a game of built-in players must: a seat was ejected
    (its player could not be made, or failed a call), or ``play`` gave no result. Its
    figures would time something else than the game, so the benchmark stops and says why."""


def builtin_player(game_name: str, strategy: str, name: str, seed: int) -> Any:
    """A built-in player made by name (picklable through ``functools.partial``: how an
    isolated seat's child process makes it). ``registry.game`` says why a game is not
    there (a plug-in that failed to import in this process names its error)."""
    from gameroom.games import registry

    return registry.game(game_name).strategies[strategy](name, seed)


def check_played(game: GameDescriptor, kind: str, seed: int, result: Any) -> None:
    """GameNotPlayed unless ``result`` is a result with no ejection: built-in players
    never misbehave, so an ejection means the game was not played (an isolated seat whose
    player could not be made in its sandbox, a call that failed)."""
    if not isinstance(result, MatchResult):
        raise GameNotPlayed(f"{game.name} game of seed {seed} on {kind} seats gave no result "
                            f"(play returned {type(result).__name__})")
    if result.ejections:
        first = result.ejections[0]
        raise GameNotPlayed(f"{game.name} game of seed {seed} on {kind} seats was not played: "
                            f"{len(result.ejections)} of {len(result.names)} seats ejected; the first, "
                            f"{first.name}, on {first.method}: {first.reason}")


def default_lineup(game: GameDescriptor) -> Lineup:
    """The game's first line-up, or its first strategy for up to four players."""
    if game.lineups:
        return game.lineups[0]
    players = max(game.min_players, min(4, game.max_players))
    strategy = next(iter(game.strategies))
    return Lineup(f"{game.name}, {players} x {strategy}", (strategy,) * players)


@dataclass(frozen=True)
class Rate:
    """Games played, their wall and CPU seconds (this process and its children)."""

    games: int
    wall: float
    cpu: float

    @property
    def per_s(self) -> float:
        return self.games / self.wall

    @property
    def per_cpu_s(self) -> float:
        return self.games / self.cpu if self.cpu > 0 else float("inf")


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _sandbox() -> Any:
    from gameroom.core.sandbox import SandboxPolicy, resolve_policy

    return resolve_policy(SandboxPolicy())


def _seats(game: GameDescriptor, lineup: Lineup, kind: str, seed: int) -> list[Seat]:
    names = [f"P{i + 1}" for i in range(len(lineup.strategies))]
    if kind == "trusted":
        return game.seats(lineup.strategies, seed, names)
    if kind == "guarded":
        return [guarded_seat(name, game.strategies[strategy](name, seed + i))
                for i, (name, strategy) in enumerate(zip(names, lineup.strategies))]
    sandbox = _sandbox()
    return [isolated_seat(name, functools.partial(builtin_player, game.name, strategy, name, seed + i),
                          sandbox=sandbox)
            for i, (name, strategy) in enumerate(zip(names, lineup.strategies))]


def guard_limit(game: GameDescriptor) -> float:
    return game.limits.call if game.limits.call is not None else GUARD_LIMIT


def play_games(game: GameDescriptor, lineup: Lineup, kind: str, games: int, seed: int = 0) -> Rate:
    """Play ``games`` complete games of ``lineup`` on seats of ``kind`` (trusted, guarded
    or isolated), dealt from ``seed``, ``seed + 1``, ...; isolated players' processes are
    started with their game and ended after it, inside the timing. GameNotPlayed when a
    game ends with a seat ejected or without a result (:func:`check_played`)."""
    play: Callable[..., Any] = lineup.play or game.play
    limits = game.limits.with_call(guard_limit(game))
    context = MatchContext(limits=limits)
    wall, cpu = time.perf_counter(), _cpu()
    for g in range(games):
        seats = _seats(game, lineup, kind, seed + g)
        try:
            check_played(game, kind, seed + g, play(seed + g, seats, context))
        finally:
            for seat in seats:
                close = getattr(seat.caller, "close", None)
                if close is not None:
                    close()
    return Rate(games, time.perf_counter() - wall, _cpu() - cpu)


def _per_call(call: Callable[[], Any], calls: int) -> tuple[float, float]:
    """Wall and CPU (this process) microseconds of one call, the best of three rounds."""
    best = (float("inf"), float("inf"))
    for _ in range(3):
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(calls):
            call()
        best = min(best, ((time.perf_counter() - wall) / calls * 1e6, (time.process_time() - cpu) / calls * 1e6))
    return best


def _on_a_thread(fn: Callable[[], Any]) -> Any:
    box: list[Any] = []
    thread = threading.Thread(target=lambda: box.append(fn()), name="bench-referee")
    thread.start()
    thread.join()
    return box[0]


_ECHO = "import os\nwhile True:\n    b = os.read(0, 65536)\n    if not b:\n        break\n    os.write(1, b)\n"


def _pipe_round_trip(calls: int, size: int) -> tuple[float, float]:
    child = subprocess.Popen([sys.executable, "-I", "-S", "-c", _ECHO], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, bufsize=0)
    assert child.stdin is not None and child.stdout is not None
    out, into = child.stdin.fileno(), child.stdout.fileno()
    message = b"x" * size

    def trip() -> None:
        os.write(out, message)
        got = 0
        while got < size:
            got += len(os.read(into, 65536))

    try:
        trip()
        return _per_call(trip, calls)
    finally:
        child.stdin.close()
        child.wait(10)


def call_costs(calls: int = 20_000) -> dict[str, float]:
    """Microseconds of one call on each kind of seat (wall, and CPU of this process), and
    of a raw pipe round trip of the bytes an isolated call sends."""
    import pickle

    from gameroom.core.isolation import IsolatedCaller

    argument = 12345
    figures: dict[str, float] = {}
    direct = direct_caller(Echo())
    guarded = GuardedCaller(Echo())
    threaded = GuardedCaller(Echo())
    figures["call_us_direct"], figures["call_cpu_us_direct"] = _per_call(lambda: direct("ask", (argument,), None),
                                                                        calls)
    figures["call_us_guarded"], figures["call_cpu_us_guarded"] = _per_call(
        lambda: guarded("ask", (argument,), GUARD_LIMIT), calls)
    figures["call_us_guarded_thread"], figures["call_cpu_us_guarded_thread"] = _on_a_thread(
        lambda: _per_call(lambda: threaded("ask", (argument,), GUARD_LIMIT), calls // 10))
    isolated = IsolatedCaller(Echo, sandbox=_sandbox())
    try:
        isolated("ask", (argument,), GUARD_LIMIT)
        figures["call_us_isolated"], figures["call_cpu_us_isolated"] = _per_call(
            lambda: isolated("ask", (argument,), GUARD_LIMIT), calls // 10)
    finally:
        isolated.close()
    size = len(pickle.dumps(("ask", (argument,))))
    figures["pipe_us_round_trip"], figures["pipe_cpu_us_round_trip"] = _pipe_round_trip(calls // 10, size)
    figures["isolated_overhead_us"] = figures["call_us_isolated"] - figures["pipe_us_round_trip"]
    return figures
