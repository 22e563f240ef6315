"""Property test (issue: 2,000 games): for random seeded games between bots, in both modes
and with 2, 3 and 4 players (some with a seat ejected at a random moment), the broadcasts
applied to the previous view give the next snapshot, and students, towers, coins,
professors and no-entry tiles are conserved.

The default run keeps CI short; set ERIANTYS_GAMES=2000 for the full search."""

from __future__ import annotations

import os
import random

from hypothesis import given, settings, strategies as st, HealthCheck

from gameroom.games.eriantys.pieces import EVENT_TYPES
from gameroom.games.eriantys.rules import apply_event, step
from gameroom.games.eriantys.state import new_game, snapshot
from gameroom.games.eriantys.strategies import RandomStrategy
from tests.games.eriantys.helpers import play_checked

GAMES = int(os.environ.get("ERIANTYS_GAMES", "60"))


@settings(max_examples=GAMES, suppress_health_check=list(HealthCheck), derandomize=False)
@given(players=st.integers(2, 4), expert=st.booleans(), seed=st.integers(0, 2**32),
       kinds=st.lists(st.sampled_from(["random", "random", "greedy", "first-legal"]), min_size=1, max_size=4),
       eject_at=st.one_of(st.none(), st.tuples(st.integers(0, 200), st.integers(0, 3))))
def test_deltas_rebuild_every_snapshot_and_pieces_are_conserved(players: int, expert: bool, seed: int,
                                                                kinds: list[str], eject_at) -> None:
    state = play_checked(players, expert, seed, kinds, eject_at=eject_at)
    assert state.finished and state.winners


VALUES = st.one_of(st.integers(-3, 14), st.sampled_from(["GREEN", "RED", "YELLOW", "PINK", "BLUE", "PURPLE", ""]),
                   st.none(), st.booleans(), st.floats(allow_nan=False), st.lists(st.integers(), max_size=2))
EVENTS = st.fixed_dictionaries(
    {"eventType": st.sampled_from(list(EVENT_TYPES) + ["CHOOSE_CLOUD_TILE", "NOPE", 3])},
    optional={name: VALUES for name in ("assistantCard", "color", "islandIndex", "amount", "cloudIndex", "cardId",
                                        "studentFromCard", "studentFromEntrance", "studentFromTable",
                                        "playerNumber", "type")})


@settings(max_examples=int(os.environ.get("ERIANTYS_FUZZ", "150")),
          suppress_health_check=list(HealthCheck))
@given(players=st.integers(2, 4), expert=st.booleans(), seed=st.integers(0, 10**6), moves=st.integers(0, 150),
       seat=st.integers(-1, 4), event=st.one_of(EVENTS, VALUES))
def test_any_event_gets_ack_or_nack_and_a_refusal_changes_nothing(players, expert, seed, moves, seat, event) -> None:
    state, _ = new_game(["a", "b", "c", "d"][:players], expert, seed)
    rng = random.Random(seed)
    strategy = RandomStrategy(rng)
    for _ in range(moves):
        if state.finished:
            break
        apply_event(state, state.current, strategy(snapshot(state)))
    before = snapshot(state)
    new, messages, reply = step(state, seat, event)
    assert snapshot(state) == before
    if reply["type"] == "NACK":
        assert new is state and messages == [] and reply["errorMessage"]
    else:
        assert reply == {"type": "ACK"} and messages and seat == state.current
