"""Benchmark of Bazaar's hot paths (not a test: run ``python tests/games/bazaar/bench_bazaar.py``).

Prints
* the reference strategy's speed (``trade_then_purchase``, the exchange search with its
  purchase searches) on the TurnStates that players met in complete scratch games, and on
  the milestone ``xstrategy`` fixture inputs when they are present;
* complete 4-player scratch games per second, played by the reference players through a
  bare turn loop over the pure rules (no safe calls, no observers, no codecs).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

from gameroom.games.bazaar.player import ReferencePlayer
from gameroom.games.bazaar.rules import (
    apply_first_action, finish_turn, first_action_problem, game_over, kick, purchase_problem,
)
from gameroom.games.bazaar.state import GameState, TurnState, scratch_state, turn_state
from gameroom.games.bazaar.strategy import Policy, trade_then_purchase, wants_pebble

POLICIES = (Policy.PURCHASE_POINTS, Policy.PURCHASE_SIZE)


def play(state: GameState, seen: list[tuple[GameState, TurnState, Policy]] | None = None) -> int:
    """Play a game to its end with reference players; returns the number of turns."""
    players = {p.name: ReferencePlayer(p.name, POLICIES[i % 2]) for i, p in enumerate(state.players)}
    for player in players.values():
        player.setup(state.equations)
    turns = 0
    while not game_over(state):
        turns += 1
        player = players[state.active.name]
        turn = turn_state(state)
        if seen is not None and not wants_pebble(state.equations, turn.active.wallet, turn.bank):
            seen.append((state, turn, player.policy))
        action = player.request_pebble_or_trades(turn)
        if first_action_problem(state, action):
            state = kick(state)
            continue
        state = apply_first_action(state, action)
        if game_over(state):
            break
        cards = player.request_cards(turn_state(state))
        if purchase_problem(state, cards):
            state = kick(state)
            continue
        state = finish_turn(state, cards)
    return turns


def bench_strategy(samples: list[tuple[GameState, TurnState, Policy]], label: str, repeat: int = 10) -> None:
    """Each sample's best time of ``repeat`` runs; calls/s over the whole sample set."""
    times = []
    for state, turn, policy in samples:
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            trade_then_purchase(state.equations, turn.visibles, turn.active.wallet, turn.bank, policy)
            best = min(best, time.perf_counter() - t0)
        times.append(best)
    total = sum(times)
    print(f"{label}: {len(samples)} turn states, {len(samples) / total:,.0f} calls/s over the set, "
          f"median {statistics.median(times) * 1e3:.3f} ms, max {max(times) * 1e3:.2f} ms")


def main() -> None:
    names = ["Ann", "Bob", "Cy", "Di"]
    seen: list[tuple[GameState, TurnState, Policy]] = []
    for seed in range(20):
        play(scratch_state(random.Random(seed), names), seen)
    bench_strategy(seen, "trade_then_purchase on scratch-game turn states")

    fixtures = Path(__file__).resolve().parents[3].parent / "shared" / "fixtures" / "bazaar" / "xstrategy"
    if fixtures.is_dir():
        sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
        from conftest import read_json_values

        from gameroom.games.bazaar.actors import decode_policy
        from gameroom.games.bazaar.codec import decode_equations, decode_turn_state
        cases = []
        for path in sorted(fixtures.glob("**/*-in.json")):
            eqs, turn, policy = read_json_values(path.read_text())
            t = decode_turn_state(turn)
            cases.append((GameState(t.bank, equations=decode_equations(eqs)), t, decode_policy(policy)))
        bench_strategy(cases, "trade_then_purchase on the xstrategy fixture inputs")

    games = turns = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < 5.0:
        turns += play(scratch_state(random.Random(1000 + games), names))
        games += 1
    elapsed = time.perf_counter() - t0
    print(f"complete 4-player scratch games: {games / elapsed:.1f} games/s "
          f"({turns / games:.1f} turns per game)")


if __name__ == "__main__":
    main()
