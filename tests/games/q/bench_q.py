"""Benchmark of Q's hot paths (not a test: run ``python tests/games/q/bench_q.py``).

Prints the CPU time (``time.process_time``, so a busy machine skews it less) of 1000
``iterate(dag, pub)`` calls on a mid-game public state, and of complete 4-player games of
built-in players played by a minimal in-process turn loop (no safe calls, no observers:
only the pure game functions the referee uses).
"""

from __future__ import annotations

import random
import time

from gameroom.games.q import (PASS, REPLACE, RefereeState, apply_placements, can_exchange,
                              check_placements, iterate, new_game, score_placements)
from gameroom.games.q.strategies import STRATEGIES


def play(state: RefereeState, strategies: list[str], q_bonus: int = 6,
         finish_bonus: int = 6) -> tuple[int, int]:
    """Play to the end with a bare turn loop; returns (turns, tiles placed)."""
    by_name = {p.name: s for p, s in zip(state.players, strategies, strict=True)}
    turns = placed_total = 0
    while state.players:
        nobody_placed = True
        for _ in range(len(state.players)):
            turns += 1
            me = state.active
            pub = state.public_for_active()
            action = iterate(STRATEGIES[by_name[me.name]], pub)
            if action is PASS:
                state.rotate()
            elif action is REPLACE:
                if not can_exchange(len(state.pile), len(me.hand)):
                    state.eliminate_active()
                    continue
                state.pile.extend(me.hand)
                me.hand = state.draw(len(me.hand))
                state.rotate()
            else:
                if check_placements(state.qmap, me.hand, action) is not None:
                    state.eliminate_active()
                    continue
                nobody_placed = False
                apply_placements(state.qmap, action)
                for _, t in action:
                    me.hand.remove(t)
                placed_total += len(action)
                me.score += score_placements(state.qmap, action, q_bonus, finish_bonus,
                                             not me.hand)
                if not me.hand:
                    return turns, placed_total
                me.hand[:0] = state.draw(len(action))
                state.rotate()
        if nobody_placed:
            break
    return turns, placed_total


def mid_game_state(seed: int = 1, turns: int = 80) -> RefereeState:
    """A state after `turns` turns of a 4-player dag game."""
    state = new_game(["A", "B", "C", "D"], random.Random(seed))
    for _ in range(turns):
        action = iterate(STRATEGIES["dag"], state.public_for_active())
        me = state.active
        if isinstance(action, tuple):
            apply_placements(state.qmap, action)
            for _, t in action:
                me.hand.remove(t)
            me.hand[:0] = state.draw(len(action))
        state.rotate()
    return state


def main() -> None:
    state = mid_game_state()
    pub = state.public_for_active()
    print(f"mid-game state: {len(state.qmap)} tiles on the map, "
          f"{state.qmap.free_count()} free neighbours, hand of {len(pub.hand)}")
    for name in ("dag", "ldasg"):
        step = STRATEGIES[name]
        runs = []
        for _ in range(5):
            start = time.process_time()
            for _ in range(1000):
                iterate(step, pub)
            runs.append(time.process_time() - start)
        best = min(runs)
        print(f"1000 x iterate({name}, pub): best of 5 {best * 1000:.1f} ms CPU "
              f"({best * 1000:.1f} us per call)")
    for strategies in (["dag"] * 4, ["ldasg"] * 4):
        times = []
        for seed in range(5):
            game = new_game(["A", "B", "C", "D"], random.Random(seed))
            start = time.process_time()
            turns, placed = play(game, strategies)
            times.append(time.process_time() - start)
        print(f"full 4-player game, {strategies[0]}, 1080 tiles: "
              f"{min(times) * 1000:.1f} .. {max(times) * 1000:.1f} ms CPU "
              f"(last: {turns} turns, {placed} tiles placed)")
    small = new_game(["A", "B", "C", "D"], random.Random(7))
    while len(small.pile) > 36:
        small.pile.pop()
    start = time.process_time()
    turns, placed = play(small, ["dag"] * 4)
    elapsed = time.process_time() - start
    print(f"4-player dag game with a 36-tile pile: {elapsed * 1000:.2f} ms CPU ({turns} turns)")


if __name__ == "__main__":
    main()
