"""What Q's benchmark measures beyond the generic figures (``python -m gameroom.bench q``):

* complete games of three line-ups (four dag players, two dag and two ldasg, two dag),
  with the turns they take — counted by the player itself, so no observer makes the
  referee copy a snapshot after every turn — and the peak traced memory of a game;
* one strategy turn (the iterated atomic step of q.md 6) of each strategy on the same
  mid-game public state, the hot path of every remote client;
* the line-ups the generic benchmark plays on trusted, guarded and isolated seats, the
  works the reference implementation was measured on.

Pure: these prepare and do the work; the benchmark times it.
"""

from __future__ import annotations

import random
from typing import Any, Callable, Mapping, Sequence

from gameroom.core.context import MatchContext
from gameroom.core.limits import Limits
from gameroom.core.match import trusted_seat
from gameroom.core.workload import Lineup, Workload
from gameroom.games.q.players import StrategyPlayer
from gameroom.games.q.referee import QRules, run_game
from gameroom.games.q.state import new_game
from gameroom.games.q.strategies import STRATEGIES, iterate

__all__ = ["LINEUPS", "WORKLOADS"]

NAMES = ("A", "B", "C", "D")
STRATEGY_CALLS = 2000


def _lineup(strategies: Sequence[str]) -> Workload:
    def prepare(games: int) -> Callable[[], Mapping[str, float]]:
        names = NAMES[: len(strategies)]
        turns = 0

        class Counted(StrategyPlayer):
            def take_turn(self, pub: Any) -> Any:
                nonlocal turns
                turns += 1
                return super().take_turn(pub)

        def work() -> Mapping[str, float]:
            for g in range(games):
                state = new_game(names, random.Random(g))
                seats = [trusted_seat(n, Counted(n, s)) for n, s in zip(names, strategies)]
                run_game(seats, state, rules=QRules(), context=MatchContext(limits=Limits()))
            return {"turns": turns}

        return work

    return Workload(f"Q in-process {'+'.join(strategies)}", prepare, memory=True)


def _mid_game() -> Any:
    """The public state of the active player after the 40th turn of a dag game."""
    snapshots: list[Any] = []

    def keep(event: Any) -> None:
        if event.detail is not None and event.subject is not None and len(snapshots) < 40:
            snapshots.append(event.subject)

    seats = [trusted_seat(n, StrategyPlayer(n, "dag")) for n in NAMES]
    run_game(seats, new_game(list(NAMES), random.Random(3)), rules=QRules(),
             context=MatchContext(limits=Limits(), observers=[keep]))
    return snapshots[-1].public_for_active()


def _strategy_turn(name: str) -> Workload:
    def prepare(calls: int) -> Callable[[], Mapping[str, float]]:
        pub = _mid_game()
        step = STRATEGIES[name]

        def work() -> Mapping[str, float]:
            for _ in range(calls):
                iterate(step, pub)
            return {}

        return work

    return Workload(f"Q strategy {name}, one turn on a mid-game state", prepare, unit="turns",
                    size=lambda _games: STRATEGY_CALLS)


WORKLOADS = (*(_lineup(s) for s in (["dag"] * 4, ["dag", "dag", "ldasg", "ldasg"], ["dag", "dag"])),
             *(_strategy_turn(name) for name in STRATEGIES))

LINEUPS = (
    Lineup("Q, dag, dag, ldasg, ldasg, random deals", ("dag", "dag", "ldasg", "ldasg"), key="q-dag-dag-ldasg-ldasg"),
    Lineup("Q, 2 x dag, random deals", ("dag", "dag"), key="q-dag-dag"),
)
"""The works of the reference's in-process figures (issue 19's table)."""
