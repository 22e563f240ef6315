"""The registry's contract, checked for every registered game: what the command line, the
benchmarks, the server and (later) the web page and league rely on a descriptor for."""

from __future__ import annotations

import inspect
import json
import xml.etree.ElementTree as ET

import pytest

from gameroom.core.game import GameDescriptor
from gameroom.core.limits import Limits
from gameroom.core.match import guarded_seat
from gameroom.core.protocol import Protocol
from gameroom.games import registry

GAMES = sorted(registry.games())


def test_the_built_games_are_registered_by_discovery() -> None:
    assert {"q", "bazaar", "fish"} <= set(GAMES)
    with pytest.raises(registry.UnknownGame, match="choose from"):
        registry.game("chess")


@pytest.fixture(params=GAMES)
def game(request: pytest.FixtureRequest) -> GameDescriptor:
    return registry.game(request.param)


def _arity(bound: object) -> int:
    return len(inspect.signature(bound).parameters)  # type: ignore[arg-type]


def test_descriptor_basics(game: GameDescriptor) -> None:
    assert isinstance(game.protocol, Protocol) and isinstance(game.limits, Limits)
    assert 1 <= game.min_players <= game.max_players
    assert game.strategies and game.summary
    assert set(game.harnesses()) and all(callable(h) for h in game.harnesses().values())
    for plan in (game.server_plan, game.client_specs):
        assert plan is None or callable(plan)


def test_every_player_matches_the_protocol_table(game: GameDescriptor) -> None:
    """Built-in and misbehaving players offer every method of the protocol, taking as
    many arguments as the table declares (what both proxies are derived from)."""
    factories = {**game.strategies, **game.misbehaviours}
    for kind, make in factories.items():
        player = make("Pat", 0)
        for method in game.protocol.methods:
            bound = getattr(player, method.name, None)
            assert callable(bound), f"{game.name} {kind} lacks {method.name}"
            assert _arity(bound) == len(method.args), f"{game.name} {kind}.{method.name}"
    wires = [m.wire for m in game.protocol.methods]
    assert len(set(wires)) == len(wires)


@pytest.mark.parametrize("players", ["min", "max"])
def test_play_from_a_seed_is_deterministic(game: GameDescriptor, players: str) -> None:
    n = game.min_players if players == "min" else game.max_players
    strategies = [list(game.strategies)[i % len(game.strategies)] for i in range(n)]
    first = game.play(7, game.seats(strategies, 7))
    again = game.play(7, game.seats(strategies, 7))
    names = {f"P{i + 1}" for i in range(n)}
    assert first.to_json() == again.to_json() and first.extra == again.extra
    assert set(first.winners) <= names and not first.misbehaved


def test_codecs_views_and_picture_of_a_dealt_state(game: GameDescriptor) -> None:
    names = [f"P{i + 1}" for i in range(game.max_players)]
    state = game.deal(3, names)
    encoded = game.state_codec.encode(state)
    assert json.loads(json.dumps(encoded)) == encoded
    assert game.state_codec.encode(game.state_codec.decode(encoded)) == encoded
    assert ET.fromstring(game.render(state, "dealt")).tag.endswith("svg")
    json.dumps(game.views.spectator(state))
    for name in names:
        json.dumps(game.views.seat(state, name))


def test_misbehaving_players_are_ejected_not_fatal(game: GameDescriptor) -> None:
    """Every named misbehaving player, alone among built-ins, ends in a finished game."""
    for kind, make in game.misbehaviours.items():
        if "loop" in kind or "time" in kind:
            continue   # costs a time-out each; covered by the games' own tests
        seats = game.seats([next(iter(game.strategies))] * (game.min_players - 1), 1)
        seats.append(guarded_seat("Bad", make("Bad", 1)))
        outcome = game.play(1, seats, limits=game.limits.with_call(2.0))
        assert set(outcome.misbehaved) <= {"Bad"}, (game.name, kind)


def test_the_command_line_plugs_in_from_the_descriptor(game: GameDescriptor) -> None:
    from gameroom.cli.main import load_game

    commands = load_game(game.name)
    assert commands.name == game.name and callable(commands.play)
    assert set(commands.harnesses()) == set(game.harnesses())


def test_the_generic_play_and_benchmark_work_for_any_descriptor(capsys: pytest.CaptureFixture[str]) -> None:
    """A game that brings no command module or benchmark of its own still gets both."""
    import argparse
    from dataclasses import replace

    from gameroom.bench import generic
    from gameroom.cli.common import GameCommands

    bare = replace(registry.game("q"), commands=None, benchmark=None)
    commands = GameCommands.from_descriptor(bare)
    parser = argparse.ArgumentParser()
    commands.add_play_arguments(parser)
    assert commands.play(parser.parse_args(["--players", "3", "--seed", "5"])) == 0
    generic.run(bare, 2)
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith("q in-process") and json.loads(out[-2])[1] == []
