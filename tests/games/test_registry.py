"""The registry's contract, checked for every registered game: what the command line, the
benchmarks, the server and (later) the web page and league rely on a descriptor for."""

from __future__ import annotations

import inspect
import threading
import json
import xml.etree.ElementTree as ET

import pytest

from gameroom.core.context import NO_CONTEXT, MatchContext
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
    assert first.to_record() == again.to_record()
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
        outcome = game.play(1, seats, context=MatchContext(limits=game.limits.with_call(2.0)))
        assert set(outcome.misbehaved) <= {"Bad"}, (game.name, kind)


def test_the_command_line_plugs_in_from_the_descriptor(game: GameDescriptor) -> None:
    from gameroom.cli.main import load_game

    commands = load_game(game.name)
    assert commands.name == game.name and callable(commands.play)
    # a game served by the lobby also gets the lobby's scenario harness
    assert set(commands.harnesses()) == set(game.harnesses()) | ({"xscenario"} if game.lobby is not None else set())


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


def test_a_running_match_can_be_cancelled(game: GameDescriptor) -> None:
    """Another thread sets the match's cancel event (here: an observer, after a few
    events); the game stops at its next call, and no player is blamed."""
    from gameroom.core.match import MatchCancelled

    cancel = threading.Event()
    seen: list[object] = []

    def watcher(event: object) -> None:
        seen.append(event)
        if len(seen) == 5:
            threading.Thread(target=cancel.set).start()

    seats = game.seats([next(iter(game.strategies))] * game.min_players, 2)
    with pytest.raises(MatchCancelled):
        while True:   # the cancelling thread may need a moment: the game is fast
            game.play(2, seats, context=MatchContext(observers=[watcher], cancel=cancel))
            cancel.wait(1.0)
    assert all(seat.ejected is None for seat in seats)


ROLE_MODULES = ("descriptor", "referee", "harness", "render")


def test_every_game_names_its_modules_and_referee_the_same_way(game: GameDescriptor) -> None:
    """One module name per role, and one referee entry point: ``run_game(seats, state,
    context=NO_CONTEXT, *, <the game's own options>)`` and ``play(seed, seats,
    context=NO_CONTEXT, ...)``, the game's own LIMITS applying when the context has none."""
    import importlib
    from pathlib import Path

    package = importlib.import_module(f"gameroom.games.{game.name}")
    modules = {p.stem for p in Path(package.__file__).parent.glob("*.py")}
    assert set(ROLE_MODULES) <= modules
    assert not modules & {"wire", "player", "strategy", "games_harness", "game", "silly", "baddies", "lobby",
                          "tiles"}, "a module under a name another game uses differently"
    referee = importlib.import_module(f"gameroom.games.{game.name}.referee")
    parameters = inspect.signature(referee.run_game).parameters
    positional = [p.name for p in parameters.values() if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
    assert positional[0] == "seats" and positional[2] == "context" and len(positional) == 3
    assert parameters["context"].default is NO_CONTEXT and referee.LIMITS == game.limits
    keywords = {p.name for p in parameters.values() if p.kind is inspect.Parameter.KEYWORD_ONLY}
    assert not {"limits", "observers", "log", "cancel"} & keywords
    play = inspect.signature(game.play).parameters
    assert list(play)[:3] == ["seed", "seats", "context"] and play["context"].default is NO_CONTEXT


def test_codec_functions_are_named_encode_and_decode(game: GameDescriptor) -> None:
    """One naming scheme for codecs in every game: ``encode_X`` / ``decode_X``."""
    import importlib
    import re
    from pathlib import Path

    package = importlib.import_module(f"gameroom.games.{game.name}")
    for path in Path(package.__file__).parent.glob("*.py"):
        odd = re.findall(r"^def (\w+_(?:to|from)_json)\(", path.read_text(), re.M)
        assert not odd, f"{path.name}: {odd}"
