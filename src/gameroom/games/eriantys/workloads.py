"""What Eriantys's benchmark measures beyond the generic figures (``python -m
gameroom.bench eriantys``):

* complete in-process games between greedy players through the referee (every ``act``
  gets a fresh §6.5 snapshot) for 2, 3 and 4 players, in simple and in expert mode, with
  the events they apply;
* the rules alone on recorded greedy games of 3 players in expert mode (decisions made
  beforehand): events per second through ``apply_event`` (in place) and through the
  pure ``step`` (which copies the state, as the lobby applies events);
* the line-up the generic benchmark plays on trusted, guarded and isolated seats (no
  reference implementation measures Eriantys).

Pure: these prepare and do the work; the benchmark times it.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from gameroom.core.context import MatchContext
from gameroom.core.limits import Limits
from gameroom.core.match import trusted_seat
from gameroom.core.workload import Lineup, Workload
from gameroom.games.eriantys.players import EriantysPlayer
from gameroom.games.eriantys.referee import run_game
from gameroom.games.eriantys.rules import apply_event, step
from gameroom.games.eriantys.state import new_game, snapshot
from gameroom.games.eriantys.strategies import greedy

__all__ = ["LINEUPS", "WORKLOADS"]


def _games(players: int, expert: bool) -> Callable[[int], Callable[[], Mapping[str, float]]]:
    def prepare(games: int) -> Callable[[], Mapping[str, float]]:
        def work() -> Mapping[str, float]:
            events = 0
            for g in range(games):
                seats = [trusted_seat(f"P{i}", EriantysPlayer(f"P{i}", "greedy")) for i in range(players)]
                events += run_game(seats, g, expert=expert, context=MatchContext(limits=Limits())).extra["events"]
            return {"events": events}

        return work

    return prepare


def _recorded(games: int, players: int = 3, expert: bool = True) -> list[tuple[Any, list[tuple[int, Any]]]]:
    recorded = []
    for g in range(games):
        state, _ = new_game([f"P{i}" for i in range(players)], expert, g)
        start = state.copy()
        events = []
        while not state.finished:
            seat = state.current
            event = greedy(snapshot(state))
            apply_event(state, seat, event)
            events.append((seat, event))
        recorded.append((start, events))
    return recorded


def _rules(pure: bool) -> Callable[[int], Callable[[], Mapping[str, float]]]:
    def prepare(games: int) -> Callable[[], Mapping[str, float]]:
        recorded = _recorded(games)

        def work() -> Mapping[str, float]:
            count = 0
            for start, events in recorded:
                state = start.copy()
                count += len(events)
                if pure:
                    for seat, event in events:
                        state = step(state, seat, event)[0]
                else:
                    for seat, event in events:
                        apply_event(state, seat, event)
            return {"events": count}

        return work

    return prepare


WORKLOADS = (
    *(Workload(f"Eriantys greedy x{players} {'expert' if expert else 'simple'} through the referee",
               _games(players, expert), size=lambda games: max(20, games // 2))
      for expert in (False, True) for players in (2, 3, 4)),
    *(Workload(f"Eriantys rules alone, 3 players expert, "
               f"{'step (pure, copies the state)' if pure else 'apply_event (in place)'}",
               _rules(pure), size=lambda games: max(10, games // 10)) for pure in (False, True)),
)

LINEUPS = (Lineup("Eriantys, 3 greedy, simple mode", ("greedy",) * 3),)
