"""The pure rules and reference players replay the reference's integration games exactly:
every Game JSON after every event equals the reference's trace (list order included),
and the Result equals the expected server output (spec §10.2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import fixture_cases, fixtures_root, read_json_values
from gameroom.games.bazaar.actors import decode_actors
from gameroom.games.bazaar.codec import decode_bonus, decode_equations, decode_game

from .replay import replay

TRACES = "traces/Integration/Tests/Server"


@pytest.mark.parametrize("trace", fixture_cases("bazaar", TRACES, "*-trace.jsonl"))
def test_replay_matches_reference_trace(trace: Path) -> None:
    n = trace.name.removesuffix("-trace.jsonl")
    tests = fixtures_root() / "bazaar" / "Integration" / "Tests"
    server = read_json_values((tests / "Server" / f"{n}-in.json").read_text())
    expected = read_json_values((tests / "Server" / f"{n}-out.json").read_text())[0]
    clients = tests / "Clients" / f"{n}-in.json"
    if not clients.exists():
        pytest.skip(f"no client file for test {n}")
    actors = decode_actors(read_json_values(clients.read_text())[0])
    equations = decode_equations(server[0])
    state = decode_game(server[1], validate=True)
    bonus = decode_bonus(server[2]) if len(server) > 2 else None

    events, (winners, drop_outs) = replay(actors, equations, state, bonus)

    reference = [json.loads(line) for line in trace.read_text().splitlines() if line.strip()]
    assert [sorted(names) for names in reference[-1]["end"]] == [sorted(winners), sorted(drop_outs)]
    assert [sorted(winners), sorted(drop_outs)] == expected
    steps = reference[:-1]
    assert len(events) == len(steps)
    for i, ((action, game), step) in enumerate(zip(events, steps)):
        if action == "failed":
            assert isinstance(step["action"], str), f"event {i}: {step['msg']}"
        else:
            assert action == step["action"], f"event {i}: {step['msg']}"
        assert game == step["state"], f"event {i}: {step['msg']}"


XGAMES = (fixture_cases("bazaar", "xgames") + fixture_cases("bazaar", "xgames-blogic")
          + fixture_cases("bazaar", "xgames-resources"))


@pytest.mark.parametrize("path", XGAMES)
def test_xgames_fixtures_replay_locally(path: Path) -> None:
    """The milestone 7-9 games (plain, cheating, looping actors) give the expected
    winners and drop-outs when replayed over the pure rules."""
    actors_json, equations_json, game_json = read_json_values(path.read_text())
    expected = read_json_values(path.with_name(path.name.replace("-in.json", "-out.json")).read_text())
    _, (winners, drop_outs) = replay(decode_actors(actors_json), decode_equations(equations_json),
                                     decode_game(game_json))
    assert [sorted(winners), sorted(drop_outs)] == expected
