"""Eriantys benchmarks: complete in-process games between greedy players through the
referee (trusted seats: every call is a direct method call; every ``act`` gets a fresh
§6.5 snapshot), for 2, 3 and 4 players in simple and expert mode; and the rules alone,
events per second through ``apply_event`` (in place) and the pure ``step`` (copying).
"""

from __future__ import annotations

import time

from gameroom.core.match import trusted_seat
from gameroom.games.eriantys.players import EriantysPlayer
from gameroom.core.context import MatchContext
from gameroom.core.limits import Limits
from gameroom.games.eriantys.referee import run_game
from gameroom.games.eriantys.rules import apply_event, step
from gameroom.games.eriantys.state import new_game, snapshot
from gameroom.games.eriantys.strategies import greedy


def referee_games(games: int, players: int, expert: bool, seed: int = 0) -> tuple[float, float]:
    """(games/s, events/s) of refereed games between greedy players."""
    events = 0
    start = time.perf_counter()
    for g in range(games):
        seats = [trusted_seat(f"P{i}", EriantysPlayer(f"P{i}", "greedy")) for i in range(players)]
        events += run_game(seats, seed + g, MatchContext(limits=Limits()), expert=expert).extra["events"]
    elapsed = time.perf_counter() - start
    return games / elapsed, events / elapsed


def rules_only(games: int, players: int, expert: bool, pure: bool, seed: int = 0) -> float:
    """Events/s of the rules alone on recorded greedy games (decisions made beforehand)."""
    recorded = []
    for g in range(games):
        state, _ = new_game([f"P{i}" for i in range(players)], expert, seed + g)
        start_state = state.copy()
        events = []
        while not state.finished:
            seat = state.current
            event = greedy(snapshot(state))
            apply_event(state, seat, event)
            events.append((seat, event))
        recorded.append((start_state, events))
    count = sum(len(events) for _, events in recorded)
    start = time.perf_counter()
    for state, events in recorded:
        state = state.copy()
        if pure:
            for seat, event in events:
                state = step(state, seat, event)[0]
        else:
            for seat, event in events:
                apply_event(state, seat, event)
    return count / (time.perf_counter() - start)


def run(games: int) -> None:
    referee_games(5, 2, False)   # warm-up
    for expert in (False, True):
        for players in (2, 3, 4):
            rate, events = referee_games(max(20, games // 2), players, expert)
            print(f"Eriantys greedy x{players} {'expert' if expert else 'simple'} through the referee: "
                  f"{rate:.1f} games/s, {events:,.0f} events/s", flush=True)
    for pure in (False, True):
        rate = rules_only(max(10, games // 10), 3, True, pure)
        print(f"Eriantys rules alone, 3 players expert, {'step (pure, copies the state)' if pure else 'apply_event (in place)'}: "
              f"{rate:,.0f} events/s", flush=True)
