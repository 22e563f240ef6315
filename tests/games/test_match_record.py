"""The one match record, over random games of every registered game: it serialises to
JSON Lines and back without loss, and it holds what the issue promises (every call with
its latency, ejections with a failure kind, snapshots through the game's codec, one
result); and no seat's view or message carries another seat's secret."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gameroom.core.chain import check_chain, unseal
from gameroom.core.context import MatchContext
from gameroom.core.game import GameDescriptor
from gameroom.core.match import guarded_seat
from gameroom.core.record import CALL, EJECT, END, STATE, FailureKind, MatchRecord, Recorder
from gameroom.games import registry

GAMES = sorted(registry.games())
SECRET_GAMES = [name for name in GAMES if registry.game(name).views.vary_secret is not None]


def random_match(game: GameDescriptor, seed: int, players: int, baddie: str | None) -> tuple[Recorder, Any]:
    """A seeded game of built-in players (the last one misbehaving when ``baddie``)."""
    strategies = list(game.strategies)
    kinds = [strategies[(seed + i) % len(strategies)] for i in range(players)]
    seats = game.seats(kinds, seed)
    if baddie is not None:
        seats[-1] = guarded_seat(seats[-1].name, game.misbehaviours[baddie](seats[-1].name, seed))
    recorder = Recorder(game.name, seed, {"players": players, "baddie": baddie}, [s.name for s in seats])
    limits = game.limits.with_call(2.0) if baddie is not None else None
    result = game.play(seed, seats, context=MatchContext(observers=[recorder], limits=limits))
    return recorder, result


def quick_baddies(game: GameDescriptor) -> list[str]:
    return [k for k in game.misbehaviours if "loop" not in k and "time" not in k]


@st.composite
def matches(draw: Any, names: list[str]) -> tuple[GameDescriptor, int, int, str | None]:
    game = registry.game(draw(st.sampled_from(names)))
    players = draw(st.integers(game.min_players, min(game.max_players, 4)))
    baddie = draw(st.none() | st.sampled_from(quick_baddies(game)))
    return game, draw(st.integers(0, 10**6)), players, baddie


@settings(max_examples=40)
@given(matches(GAMES))
def test_a_match_record_round_trips_through_json_lines(case: Any) -> None:
    game, seed, players, baddie = case
    recorder, result = random_match(game, seed, players, baddie)
    record = recorder.record
    text = record.to_jsonl()
    back = MatchRecord.from_jsonl(text)
    assert back == record and back.to_jsonl() == text
    assert back.result is not None and back.result.to_record() == result.to_record()
    # every line carries its digest (the chain is intact); without it a line is the event
    assert check_chain(text.splitlines()).intact
    assert [e.to_json() for e in back.events] == [json.loads(unseal(line)[0]) for line in text.splitlines()[1:-1]]

    kinds = [e.kind for e in record.events]
    assert kinds.count(END) == 1 and kinds[-1] == END
    calls = [e for e in record.events if e.kind == CALL]
    assert calls and all(e.get("latency") >= 0 and e.get("seat") in record.seats for e in calls)
    assert {e.get("method") for e in calls} <= {m.wire for m in game.protocol.methods}
    ejections = [e for e in record.events if e.kind == EJECT]
    assert [e.get("seat") for e in ejections] == result.misbehaved or sorted(result.misbehaved) == sorted(
        e.get("seat") for e in ejections)
    assert all(FailureKind(e.get("kind")) for e in ejections)
    for event in record.events:
        if event.kind == STATE and event.get("state") is not None:
            state = event.get("state")
            assert game.state_codec.encode(game.state_codec.decode(state)) == state


def test_failure_kinds_are_told_apart() -> None:
    q = registry.game("q")
    seats = q.seats(["dag", "dag"], 1)
    seats.append(guarded_seat("Raiser", q.misbehaviours["raise-in-take-turn"]("Raiser", 1)))
    seats.append(guarded_seat("Cheat", q.misbehaviours["cheat-tile-not-owned"]("Cheat", 1)))
    result = q.play(1, seats, context=MatchContext(limits=q.limits.with_call(2.0)))
    kinds = {e.name: e.kind for e in result.ejections}
    assert kinds == {"Raiser": FailureKind.EXCEPTION, "Cheat": FailureKind.ILLEGAL_ACTION}


# -- per-seat views and secrets ----------------------------------------------------------------


def snapshots(record: MatchRecord) -> list[Any]:
    return [e.subject for e in record.events if e.kind == STATE and e.subject is not None]


@settings(max_examples=30)
@given(matches(SECRET_GAMES), st.randoms(use_true_random=False))
def test_no_seat_sees_another_seats_secret(case: Any, rng: random.Random) -> None:
    """For states of random games: changing one seat's secret changes no other seat's view
    and not the spectator's (but does change its own view at least sometimes); and every
    message sent to a seat that has the shape of a seat view is that seat's own view of
    the state at that moment."""
    game, seed, players, baddie = case
    recorder, _result = random_match(game, seed, players, baddie)
    record = recorder.record
    views = game.views
    changed_own = 0
    for state in snapshots(record)[:: max(1, len(snapshots(record)) // 12)]:
        live = [n for n in record.seats if _seated(views, state, n)]
        for owner in live:
            varied = views.vary_secret(state, owner, rng)  # type: ignore[misc]
            assert views.spectator(varied) == views.spectator(state)
            for other in live:
                if other != owner:
                    assert views.seat(varied, other) == views.seat(state, other), (owner, other)
            changed_own += views.seat(varied, owner) != views.seat(state, owner)

    latest = None
    for event in record.events:
        if event.kind == STATE:
            latest = event.subject
            continue
        if event.kind != CALL or latest is None:
            latest = None
            continue
        own = views.seat(latest, event.get("seat")) if _seated(views, latest, event.get("seat")) else None
        shaped = [a for a in event.get("args") if own is not None and isinstance(a, dict) and a.keys() == own.keys()]
        for arg in shaped:
            assert arg == own, f"{event.get('method')} to {event.get('seat')} is not its own view"
        latest = None
    assert changed_own or not snapshots(record)


def _seated(views: Any, state: Any, name: str) -> bool:
    """Whether ``name`` still plays in ``state``: a seat of a game with secrets sees its own,
    which the spectators do not; a seat the referee removed (ejected) sees what they see
    (the ``SeatViews`` contract: its view never fails)."""
    return bool(views.seat(state, name) != views.spectator(state))
