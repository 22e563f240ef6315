"""What Bazaar's benchmark measures beyond the generic figures (``python -m gameroom.bench
bazaar``):

* complete 4-player games from scratch between reference players (the spec's player) on
  trusted seats, beside the reference implementation's figure (``bench/references.toml``),
  with the turns they take and the peak traced memory of a game;
* the same games on guarded seats (a time limit of 4 s on every call), the cost of the
  seats a server gives players it does not trust;
* the reference strategy's exchange search (``trade_then_purchase``) alone, on every turn
  state of 20 games where a player searched: the expensive call of the game.

Pure: these prepare and do the work; the benchmark times it.
"""

from __future__ import annotations

import random
from typing import Any, Callable, Mapping

from gameroom.core.context import MatchContext
from gameroom.core.limits import Limits
from gameroom.core.match import guarded_seat, trusted_seat
from gameroom.core.workload import Lineup, Workload
from gameroom.games.bazaar.players import ReferencePlayer
from gameroom.games.bazaar.referee import run_game
from gameroom.games.bazaar.state import TurnState, scratch_state
from gameroom.games.bazaar.strategies import Policy, trade_then_purchase, wants_pebble

__all__ = ["LINEUPS", "WORKLOADS"]

NAMES = ("Ann", "Bob", "Cy", "Di")
POLICIES = (Policy.PURCHASE_POINTS, Policy.PURCHASE_SIZE)
SEED = 1000


def _games(guarded: bool) -> Callable[[int], Callable[[], Mapping[str, float]]]:
    def prepare(games: int) -> Callable[[], Mapping[str, float]]:
        turns = 0

        class Counted(ReferencePlayer):
            def request_pebble_or_trades(self, turn: TurnState) -> Any:
                nonlocal turns
                turns += 1
                return super().request_pebble_or_trades(turn)

        seat = guarded_seat if guarded else trusted_seat
        limits = Limits(call=4.0) if guarded else Limits()

        def work() -> Mapping[str, float]:
            for g in range(games):
                seats = [seat(n, Counted(n, POLICIES[i % 2])) for i, n in enumerate(NAMES)]
                run_game(seats, scratch_state(random.Random(SEED + g), NAMES), context=MatchContext(limits=limits))
            return {"turns": turns}

        return work

    return prepare


def _searches(games: int = 20) -> list[tuple[Any, TurnState, Policy]]:
    """Every (equations, turn state, policy) where a player of ``games`` games searched."""
    seen: list[tuple[Any, TurnState, Policy]] = []

    class Spy(ReferencePlayer):
        def request_pebble_or_trades(self, turn: TurnState) -> Any:
            if not wants_pebble(self.equations, turn.active.wallet, turn.bank):
                seen.append((self.equations, turn, self.policy))
            return super().request_pebble_or_trades(turn)

    for g in range(games):
        seats = [trusted_seat(n, Spy(n, POLICIES[i % 2])) for i, n in enumerate(NAMES)]
        run_game(seats, scratch_state(random.Random(g), NAMES), context=MatchContext(limits=Limits()))
    return seen


def _strategy(rounds: int) -> Callable[[], Mapping[str, float]]:
    searches = _searches()

    def work() -> Mapping[str, float]:
        for _ in range(rounds):
            for equations, turn, policy in searches:
                trade_then_purchase(equations, turn.visibles, turn.active.wallet, turn.bank, policy)
        return {"calls": rounds * len(searches)}

    return work


WORKLOADS = (
    Workload("Bazaar in-process, 4 reference players on trusted seats", _games(False),
             reference="bazaar-4-reference", memory=True),
    Workload("Bazaar in-process, the same players on guarded seats (4 s limit)", _games(True),
             size=lambda games: max(games // 4, 10)),
    Workload("Bazaar reference strategy (trade_then_purchase) on the searching turn states of 20 games", _strategy,
             unit="rounds", size=lambda _games: 5),
)

LINEUPS = (Lineup("Bazaar, 4 reference players", tuple(POLICIES[i % 2].value for i in range(4)),
                  key="bazaar-4-reference"),)
"""The work of the reference's in-process figure (issue 19's table)."""
