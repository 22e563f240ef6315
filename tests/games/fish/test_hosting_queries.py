"""Fish hosting as data (sign-up rules, server plan, client line-ups) and the query API's
wire form, answered in process (spec 7.1, 7.2, 9.6, Appendix A)."""

from __future__ import annotations

import json

import pytest

from gameroom.games.fish.config import ServerConfig
from gameroom.games.fish.hosting import (NO_TOURNAMENT, canonical_kind, client_kinds, client_name, client_specs,
                                         house_seats, server_plan, signup_rules)
from gameroom.games.fish.players import BaddiePlayer, QueryingPlayer, StrategyPlayer
from gameroom.games.fish.queries import GameView, QueryDesk, TournamentView, WireQueries, answer_query
from gameroom.games.fish.state import Color, GameState
from gameroom.games.fish.codec import encode_state


def test_signup_rules_of_7_1() -> None:
    rules = signup_rules(ServerConfig())
    assert (rules.min_players, rules.max_players, rules.periods, rules.period_seconds) == (5, 10, 2, 30)
    assert (rules.name_first_byte, rules.name_complete) == (10, 10)
    assert rules.valid_name("Penny") and rules.valid_name("a" * 12)
    assert not any(rules.valid_name(n) for n in ("", "a" * 13, "P1", "Pé", 7, None, ["P"]))


def test_server_plan_plays_a_tournament_of_house_players() -> None:
    config = ServerConfig(house_players=5)
    plan = server_plan(config)
    assert plan.no_game_result == NO_TOURNAMENT == [0, 0]
    seats = plan.house_seats()
    assert [s.name for s in seats] == ["Housez", "Houseo", "Housetw", "Houseth", "Housefo"]
    winners, failures = plan.play(seats)
    assert winners >= 1 and failures == 0
    assert [s.name for s in house_seats(config)] == [s.name for s in seats]


def test_client_names_are_letters_only() -> None:
    assert [client_name(i) for i in (0, 1, 2, 5, 9, 10, 23)] == ["Pz", "Po", "Ptw", "Pfi", "Pnine", "Poz", "Ptwth"]
    assert all(client_name(i).isalpha() and len(client_name(i)) <= 12 for i in range(100))


def test_line_ups_and_scenario_names() -> None:
    assert client_kinds(2, baddies=["bad-as", "no-name"]) == ["greedy", "greedy", "bad-playing-as", "no-name"]
    assert client_kinds(1, "maximin", ["bad-end"], baddies_first=True) == ["bad-end-of-tournament", "maximin"]
    assert canonical_kind("bad-start") == "bad-start-of-tournament" and canonical_kind("greedy") == "greedy"
    with pytest.raises(ValueError, match="bad-wolf"):
        client_kinds(1, baddies=["bad-wolf"])


def test_client_specs_hiccup_and_kinds() -> None:
    kinds = client_kinds(6, baddies=["no-name", "invalid-json-setup", "ill-formed-setup", "bad-turn-time", "querying"])
    specs = client_specs(kinds, hiccup=15)
    assert [s.delay for s in specs] == [0, 0, 0, 0, 0, 15, 0, 0, 0, 0, 0]
    assert specs[6].behaviour == "silent"
    assert specs[7].deviations["setup"]([2, 3]) == b"[1, 2, 3]\n"
    assert specs[8].deviations["setup"]([2, 3]) == b"(2 3)\n"
    assert isinstance(specs[9].player, BaddiePlayer) and isinstance(specs[0].player, StrategyPlayer)
    assert isinstance(specs[10].player, QueryingPlayer) and specs[10].side_channel is not None
    framed = client_specs(["greedy"], reference_framing=True)[0]
    assert (framed.pad, framed.trickle) == (2040, True)


def view_of(state: GameState, phase: str = "playing") -> QueryDesk:
    view = GameView(state, TournamentView())
    view.publish(phase, state)
    return QueryDesk(view)


def test_wire_queries_round_trip_through_answer_query() -> None:
    state = GameState.create(4, 4, 2, fish=2)
    state.place((0, 0))
    state.rotate()
    state.place((3, 3))
    state.rotate()
    desk = view_of(state)
    remote = WireQueries(lambda message: json.loads(json.dumps(answer_query(desk, json.loads(json.dumps(message))))))
    assert remote.phase() == "playing" and remote.current_player() == Color.RED
    assert remote.legal_moves() == state.legal_moves() and remote.state() == state
    assert remote.is_legal(state.legal_moves()[0]) and not remote.is_legal(((0, 0), (0, 0)))
    other = state.after(state.legal_moves()[0])
    assert remote.legal_moves(other) == other.legal_moves()
    assert not remote.game_over()
    assert remote.tournament_info() == {"round": 0, "players": [], "games": [], "winners": []}


def test_query_errors_and_memo_aliases() -> None:
    state = GameState.create(3, 3, 2, fish=1)
    desk = view_of(state, "placing")
    assert answer_query(desk, [[0, 0], [1, 0]]) is None and answer_query(desk, {"row": 1}) is None
    assert "unknown query" in answer_query(desk, {"query": "secrets"})["error"]
    assert "unexpected key" in answer_query(desk, {"query": "phase", "please": True})["error"]
    assert "needs a move" in answer_query(desk, {"query": "legal?"})["error"]
    assert "$.state" in answer_query(desk, {"query": "legal-moves", "state": {"players": []}})["error"]
    memo = encode_state(state)
    memo["players"] = [{"color": p["color"], "fish": p["score"], "penguins": [[0, 0]] if i == 0 else []}
                       for i, p in enumerate(memo["players"])]
    assert answer_query(desk, {"query": "legal-moves", "state": memo}) == {"answer": [[[0, 0], [1, 0]], [[0, 0], [2, 1]],
                                                                               [[0, 0], [2, 0]]]}
    assert answer_query(desk, {"query": "phase"}) == {"answer": "placing"}
    assert answer_query(view_of(state, "over"), {"query": "current-player"}) == {"answer": None}
