"""Configuration files (spec 8), the misbehaving players' data (9.6) and the integration
scenarios file (10.7)."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gameroom.core.wire import WireError
from gameroom.games.fish.actors import BADDIES, SCENARIO_KINDS, Misbehaviour, bad_answer, decode_scenarios
from gameroom.games.fish.config import (ScriptConfig, ServerConfig, decode_script_config, decode_server_config,
                                        encode_script_config, encode_server_config, parse_script_words)
from tests.conftest import game_fixtures, logged_lines
from tests.games.fish.helpers import example_state


def test_script_defaults_are_the_codes() -> None:
    assert decode_script_config({}) == ScriptConfig(
        players=2, time_per_turn=10, rows=6, cols=6, fish=None, obs=False, port=45678,
        server_wait=30, server_tries=3, t_players=5)


def test_reference_example_configs() -> None:
    folder = game_fixtures("fish") / "configs"
    n = decode_script_config(json.loads((folder / "config-n.json").read_text()))
    assert (n.players, n.rows, n.cols, n.fish) == (4, 5, 4, 2)  # "columns" accepted as alias
    s = decode_script_config(json.loads((folder / "config-s.json").read_text()))
    assert s.players == ("../Player/greedy.rkt", "../Player/random.rkt", "../Player/random.rkt")


def test_script_config_ranges_unknown_keys_and_booleans() -> None:
    assert decode_script_config({"whatever": 1, "cols": 3, "columns": 9}).cols == 3
    assert decode_script_config({"rows": False, "fish": False}).rows == 6
    for key, bad in [("rows", 10), ("cols", 1), ("time-per-turn", 61), ("port", 9999),
                     ("server-wait", 31), ("server-tries", 0), ("t-players", 4), ("players", 1),
                     ("fish", 6), ("obs", 1), ("players", ["a", 3])]:
        with pytest.raises(WireError) as info:
            decode_script_config({key: bad})
        assert info.value.where.startswith(f"$.{key}")


def test_script_words() -> None:
    words = "fish = 5 players=3 rows = 4".split()
    assert parse_script_words(words) == {"fish": 5, "players": 3, "rows": 4}
    config = decode_script_config(parse_script_words(["time-per-turn=", "7", "obs", "=", "true"]))
    assert config.time_per_turn == 7 and config.obs is True
    with pytest.raises(WireError):
        parse_script_words(["rows", "4"])


def test_script_config_round_trip() -> None:
    config = ScriptConfig(players=("a.rkt",), rows=3, fish=None, obs=True)
    assert decode_script_config(encode_script_config(config)) == config


def test_gameroom_configs_defaults_round_trips_and_typos() -> None:
    cases: list[tuple[Any, Any, Any]] = [
        (ServerConfig(), decode_server_config, encode_server_config),
    ]
    for default, decode, encode in cases:
        assert decode({}) == default
        assert decode(encode(default)) == default
        with pytest.raises(WireError) as info:
            decode({"colums": 5})
        assert "colums" in info.value.detail


def test_server_defaults_follow_section_7_1() -> None:
    c = ServerConfig()
    assert (c.server_wait, c.server_tries, c.min_players, c.max_players) == (30, 2, 5, 10)
    assert (c.rows, c.cols, c.fish, c.time_per_turn, c.ready_time, c.start_timeout) == (5, 5, 2, 10, 30, 3)
    assert decode_server_config({"fish": None}).fish is None
    with pytest.raises(WireError):
        decode_server_config({"min-players": 6, "max-players": 5})


@given(st.integers(2, 9), st.integers(2, 9), st.one_of(st.none(), st.integers(1, 5)),
       st.booleans(), st.integers(1, 60))
def test_script_config_round_trip_property(rows: int, cols: int, fish: int | None, obs: bool,
                                           tpt: int) -> None:
    config = ScriptConfig(rows=rows, cols=cols, fish=fish, obs=obs, time_per_turn=tpt)
    assert decode_script_config(encode_script_config(config)) == config


def test_baddies_table_spec_9_6() -> None:
    assert BADDIES["bad-start-of-tournament"].method == "end"  # the reference defect
    assert BADDIES["bad-init-time"].misbehaviour is Misbehaviour.HANG
    assert {b.name for b in BADDIES.values() if b.remote} == {
        "no-name", "invalid-json-setup", "ill-formed-setup"}
    state = example_state()
    assert bad_answer(BADDIES["bad-init-choice"], state) == [2, 1]
    assert bad_answer(BADDIES["bad-turn-choice"], state) == [[2, 1], [2, 1]]
    assert bad_answer(BADDIES["invalid-json-setup"], state, (0, 3)) == [1, 0, 3]
    assert bad_answer(BADDIES["ill-formed-setup"], state, (0, 3)) == "(0 3)\n"
    with pytest.raises(ValueError):
        bad_answer(BADDIES["bad-playing-as"], state)


def test_scenarios_file() -> None:
    path = game_fixtures("fish") / "itests" / "scenarios.json"
    servers, clients = decode_scenarios(json.loads(path.read_text()))
    assert len(servers) == 8 and len(clients) == 2
    assert servers[5].expected == ((1, 5), (2, 4))
    assert all(k in SCENARIO_KINDS for s in servers for k in s.players)
    assert clients[1].xclients_args == ("10", "<port>")
    with pytest.raises(WireError) as info:
        decode_scenarios({"description": "", "xserver-test": [
            {"name": "x", "players": ["wizard"], "expected": [[1, 0]]}], "xclients-test": []})
    assert info.value.where == "$.xserver-test[0].players[0]"


def test_observe_logs_the_tournament_on_the_servers_log(caplog: pytest.LogCaptureFixture) -> None:
    from gameroom.core.match import trusted_seat
    from gameroom.games.fish.hosting import server_plan
    from gameroom.games.fish.players import StrategyPlayer
    from gameroom.games.fish.strategies import GreedyStrategy

    seats = [trusted_seat(f"P{i}", StrategyPlayer(GreedyStrategy(), f"P{i}")) for i in range(5)]
    caplog.set_level(logging.INFO, logger="gameroom")
    server_plan(decode_server_config({"observe": True})).play(seats)
    lines = logged_lines(caplog, "gameroom.games.fish")
    assert lines[0].startswith("round 1: ") and lines[-1].startswith("tournament over: winners ")
    caplog.clear()
    server_plan(decode_server_config({})).play(
        [trusted_seat(f"P{i}", StrategyPlayer(GreedyStrategy(), f"P{i}")) for i in range(5)])
    quiet = logged_lines(caplog, "gameroom.games.fish")
    assert not any(line.startswith("round ") for line in quiet)
