"""The real referee (spec §3.3, §4, §8.3): it reproduces the reference's traces event for
event and the xgames results; it refuses what the reference refuses; it cuts off loopers
at the time limit; observers hear every step and a failing one is dropped; and no view it
sends to a player ever contains another player's wallet."""

from __future__ import annotations

import json
import logging
import random
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import fixture_cases, fixtures_root, logged_lines, read_json_values
from gameroom.core.context import MatchContext
from gameroom.core.limits import Limits
from gameroom.core.match import guarded_seat, trusted_seat
from gameroom.core.match import local_seat
from gameroom.games.bazaar.actors import ActorSpec, Cheat, Method, decode_actors
from gameroom.games.bazaar.codec import (decode_bonus, decode_equations, decode_game, encode_cards,
                                         encode_exchanges, encode_game)
from gameroom.games.bazaar.pieces import Card, Equation
from gameroom.games.bazaar.players import ReferencePlayer, make_player
from gameroom.games.bazaar.protocol import PROTOCOL
from gameroom.games.bazaar.referee import GameRefused, Step, run_game
from gameroom.games.bazaar.rules import Bonus
from gameroom.games.bazaar.state import GameState, PlayerRecord, TurnState, scratch_state, turn_state
from gameroom.games.bazaar.strategies import Policy


class Hung(Exception):
    """Stands in for a time-out: these loopers raise instead of blocking, so the games of
    the fast tests below cost no time limits."""


def _raise_hung() -> None:
    raise Hung()


def fast_seats(actors: tuple[ActorSpec, ...]) -> list:
    return [trusted_seat(a.name, make_player(a, _raise_hung)) for a in actors]


class Recorder:
    """An observer that keeps every step."""

    def __init__(self) -> None:
        self.steps: list[Step] = []
        self.ended: tuple[list[str], list[str]] | None = None

    def __call__(self, event: Any) -> None:
        if event.kind == "state":
            self.steps.append(event.detail)
        elif event.kind == "end":
            self.ended = (event.subject.winners, event.subject.misbehaved)


def action_json(action: Any) -> Any:
    if isinstance(action, (str, bool)):
        return action
    items = list(action)
    if items and isinstance(items[0], Card):
        return encode_cards(items)
    return encode_exchanges(items)


def integration_test(n: str) -> tuple:
    tests = fixtures_root() / "bazaar" / "Integration" / "Tests"
    server = read_json_values((tests / "Server" / f"{n}-in.json").read_text())
    expected = read_json_values((tests / "Server" / f"{n}-out.json").read_text())[0]
    clients = tests / "Clients" / f"{n}-in.json"
    if not clients.exists():
        clients = tests / "Clients" / "17-in.json"
    actors = decode_actors(read_json_values(clients.read_text())[0])
    equations = decode_equations(server[0])
    state = decode_game(server[1], validate=True, equations=equations)
    bonus = decode_bonus(server[2]) if len(server) > 2 else None
    return actors, state, bonus, expected


@pytest.mark.parametrize("trace", fixture_cases("bazaar", "traces/Integration/Tests/Server", "*-trace.jsonl"))
def test_referee_matches_reference_trace(trace: Path) -> None:
    """Every Game JSON after every event equals the reference's trace (list order
    included), and the Result equals the expected server output (§10.2)."""
    actors, state, bonus, expected = integration_test(trace.name.removesuffix("-trace.jsonl"))
    recorder = Recorder()
    outcome = run_game(fast_seats(actors), state, bonus=bonus, context=MatchContext(observers=[recorder]))

    assert outcome.to_json() == expected
    reference = [json.loads(line) for line in trace.read_text().splitlines() if line.strip()]
    assert [sorted(names) for names in reference[-1]["end"]] == expected
    assert recorder.ended == tuple(expected)
    steps = [s for s in recorder.steps if s.kind != "end"]
    assert len(steps) == len(reference) - 1
    for i, (step, ref) in enumerate(zip(steps, reference)):
        if isinstance(ref["action"], str) and ref["action"] not in ("setup", "okay", "fail"):
            assert isinstance(step.action, str) and step.kicked, f"event {i}: {ref['msg']}"
        else:
            assert action_json(step.action) == ref["action"], f"event {i}: {ref['msg']}"
        assert encode_game(step.game) == ref["state"], f"event {i}: {ref['msg']}"


XGAMES = (fixture_cases("bazaar", "xgames") + fixture_cases("bazaar", "xgames-blogic")
          + fixture_cases("bazaar", "xgames-resources"))


@pytest.mark.parametrize("path", XGAMES)
def test_xgames_through_the_referee(path: Path) -> None:
    """The milestone 7-9 games give the expected winners and drop-outs (loopers stand in
    for time-outs here; the command-line conformance test runs them with real limits)."""
    actors_json, equations_json, game_json = read_json_values(path.read_text())
    expected = read_json_values(path.with_name(path.name.replace("-in.json", "-out.json")).read_text())
    state = decode_game(game_json, equations=decode_equations(equations_json))
    outcome = run_game(fast_seats(decode_actors(actors_json)), state)
    assert [outcome.winners, outcome.misbehaved] == expected


# -- refusals, time limits, observers ------------------------------------------------------

def two_player_game() -> GameState:
    return scratch_state(random.Random(3), ["A", "B"])


@pytest.mark.parametrize("names, why", [
    (["A"], "1 players for 2 player records"),
    (["A", "A"], "not distinct"),
])
def test_the_referee_refuses_what_the_reference_refuses(names: list[str], why: str) -> None:
    seats = [trusted_seat(n, ReferencePlayer(n)) for n in names]
    with pytest.raises(GameRefused, match=why):
        run_game(seats, two_player_game())


def test_more_than_six_players_are_refused() -> None:
    names = [f"P{i}" for i in range(7)]
    state = GameState(two_player_game().bank, players=tuple(PlayerRecord(name=n) for n in names))
    with pytest.raises(GameRefused, match="at most 6"):
        run_game([trusted_seat(n, ReferencePlayer(n)) for n in names], state)


def test_a_looping_player_is_cut_off_by_the_time_limit() -> None:
    looper = ActorSpec("Loop", Policy.PURCHASE_POINTS, Method.REQUEST_PEBBLE_OR_TRADES, 1)
    seats = [guarded_seat("Loop", make_player(looper)), trusted_seat("B", ReferencePlayer("B"))]
    start = time.perf_counter()
    outcome = run_game(seats, two_player_game(), context=MatchContext(limits=Limits(call=0.3)))
    assert outcome.to_json() == [["B"], ["Loop"]]
    assert time.perf_counter() - start < 5
    assert "time limit" in outcome.failures[0].reason and outcome.failures[0].method == "request-pebble-or-trades"


def test_a_local_player_returning_the_wrong_type_is_kicked() -> None:
    class Confused(ReferencePlayer):
        def request_pebble_or_trades(self, turn: TurnState) -> Any:
            return "a pebble, please"

    seats = [guarded_seat("C", Confused("C")), trusted_seat("B", ReferencePlayer("B"))]
    outcome = run_game(seats, two_player_game())
    assert outcome.to_json() == [["B"], ["C"]]
    assert "invalid reply" in outcome.failures[0].reason


def test_an_unaffordable_purchase_keeps_the_first_action() -> None:
    """A cheater kicked for its purchase has already drawn its pebble (§3.3.1)."""
    cheater = ActorSpec("Cheat", Policy.PURCHASE_POINTS, cheat=Cheat.WALLET_CANNOT_BUY_CARD)
    recorder = Recorder()
    state = two_player_game()
    run_game([trusted_seat("Cheat", make_player(cheater)), trusted_seat("B", ReferencePlayer("B"))], state,
             context=MatchContext(observers=[recorder]))
    first, purchase = [s for s in recorder.steps if s.name == "Cheat" and s.kind != "setup"][:2]
    assert first.action is False and not first.kicked
    assert purchase.kicked and len(purchase.game.bank) == len(state.bank) - 1
    assert [p.name for p in purchase.game.players] == ["B"]


def test_observers_hear_every_step_and_a_failing_one_is_dropped(caplog: pytest.LogCaptureFixture) -> None:
    class Broken:
        calls = 0

        def __call__(self, event: Any) -> None:
            Broken.calls += 1
            raise RuntimeError("observer bug")

    recorder = Recorder()
    caplog.set_level(logging.INFO, logger="gameroom")
    outcome = run_game([trusted_seat(n, ReferencePlayer(n)) for n in "AB"], two_player_game(),
                       context=MatchContext(observers=[Broken(), recorder]))
    logged = logged_lines(caplog, "gameroom.core.match")
    assert Broken.calls == 1 and any("observer Broken dropped" in line for line in logged)
    kinds = [s.kind for s in recorder.steps]
    assert kinds[:3] == ["start", "setup", "setup"] and kinds[-1] == "end"
    assert recorder.ended == (outcome.winners, outcome.misbehaved)


def test_bonus_is_added_before_ranking() -> None:
    rwb = Card.of("r w b r w")
    state = GameState(two_player_game().bank, (), (),
                      (PlayerRecord(score=5, cards=(rwb,)), PlayerRecord(score=9)))
    seats = [trusted_seat(n, ReferencePlayer(n)) for n in "AB"]
    assert run_game(seats, state).to_json() == [["B"], []]
    assert run_game(seats, state, bonus=Bonus.RWB).to_json() == [["A"], []]


# -- hidden information ---------------------------------------------------------------------

class Spy:
    """Wraps any player and keeps every TurnState it is sent."""

    def __init__(self, inner: Any, views: list) -> None:
        self.inner, self.views = inner, views

    def setup(self, equations: Any) -> None:
        self.inner.setup(equations)

    def request_pebble_or_trades(self, turn: TurnState) -> Any:
        self.views.append((self.inner.name(), "request-pebble-or-trades", turn))
        return self.inner.request_pebble_or_trades(turn)

    def request_cards(self, turn: TurnState) -> Any:
        self.views.append((self.inner.name(), "request-cards", turn))
        return self.inner.request_cards(turn)

    def win(self, won: bool) -> None:
        self.inner.win(won)


class Before:
    """Remembers the latest game state: the one every call of the next step sees."""

    def __init__(self, views: list) -> None:
        self.views = views
        self.states: list[tuple[int, GameState]] = []

    def __call__(self, event: Any) -> None:
        if event.kind == "state":
            self.states.append((len(self.views), event.subject))


def wallets_in(value: Any, path: str = "$") -> list[str]:
    """The paths of every ``wallet`` key in a JSON value."""
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "wallet":
                found.append(f"{path}.{key}")
            found += wallets_in(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += wallets_in(item, f"{path}[{i}]")
    return found


@settings(max_examples=60)
@given(seed=st.integers(0, 10**6), players=st.integers(2, 6), data=st.data())
def test_no_view_the_referee_sends_contains_another_players_wallet(seed: int, players: int, data: Any) -> None:
    """Seeded games (some actors cheat or raise) with players that record every view. Each
    view, as sent on the wire, holds exactly one wallet - the recipient's own, as the
    referee's state has it at that moment - and only the scores of the others."""
    rng = random.Random(seed)
    names = [f"P{i}" for i in range(players)]
    state = scratch_state(rng, names)
    # give everyone a distinct wallet so that a leak could not hide behind equal wallets
    pool = list(state.bank)
    wallets = []
    for _ in names:
        wallets.append(pool[:rng.randint(1, 8)])
        del pool[:len(wallets[-1])]
    from gameroom.games.bazaar.pieces import Bag
    state = GameState(Bag(pool), state.visibles, state.hidden,
                      tuple(PlayerRecord(Bag(w), rng.randint(0, 12), name=n) for w, n in zip(wallets, names)),
                      state.equations)
    views: list = []
    seats = []
    for i, name in enumerate(names):
        policy = list(Policy)[i % 2]
        kind = data.draw(st.sampled_from(["plain", "plain", "cheat", "raise"]), label=f"{name} kind")
        spec = ActorSpec(name, policy)
        if kind == "cheat":
            spec = ActorSpec(name, policy, cheat=data.draw(st.sampled_from(list(Cheat))))
        elif kind == "raise":
            spec = ActorSpec(name, policy, data.draw(st.sampled_from(list(Method))))
        seats.append(local_seat(name, Spy(make_player(spec), views), False))
    before = Before(views)
    run_game(seats, state, context=MatchContext(observers=[before]))

    turn_codec = PROTOCOL.by_name["request_pebble_or_trades"].args[0]
    for index, (name, method, view) in enumerate(views):
        game = [g for seen, g in before.states if seen <= index][-1]
        assert game.active.name == name, "only the active player is asked"
        wire = turn_codec.encode(view)
        assert set(wire) == {"active", "bank", "cards", "scores"}
        assert set(wire["active"]) == {"cards", "score", "wallet"}
        assert wallets_in(wire) == ["$.active.wallet"], f"{method} to {name} shows a wallet elsewhere"
        assert view.active.wallet.same_list(game.active.wallet), f"{method} to {name}: not its own wallet"
        assert all(isinstance(s, int) for s in wire["scores"])
        assert list(wire["scores"]) == [p.score for p in game.players[1:]]
        assert view == turn_state(game)
    assert views or all(seat.ejected for seat in seats), "the players were asked nothing"


def test_equations_are_handed_over_as_immutable_values() -> None:
    """What an untrusted player receives cannot be changed under the referee's feet."""
    received: list = []

    class Keeper(ReferencePlayer):
        def setup(self, equations: Any) -> None:
            received.append(equations)
            super().setup(equations)

    run_game([guarded_seat(n, Keeper(n)) for n in "AB"], two_player_game())
    assert all(isinstance(eqs, tuple) and all(isinstance(e, Equation) for e in eqs) for eqs in received)
