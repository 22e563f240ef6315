"""The registry's contract, checked for every registered game: what the command line, the
benchmarks, the server and (later) the web page and league rely on a descriptor for."""

from __future__ import annotations

import inspect
import threading
import json
import xml.etree.ElementTree as ET

import pytest

from gameroom.core.game import GameDescriptor
from gameroom.core.hosting import Hosting
from gameroom.core.limits import Limits
from gameroom.core.match import guarded_seat
from gameroom.core.options import Option
from gameroom.core.protocol import Protocol
from gameroom.core.workload import Workload
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
    hosting = game.hosting
    assert isinstance(hosting, Hosting)
    for part, fields in ((hosting.play, ("options", "match")), (hosting.server, ("options", "plan", "configure")),
                         (hosting.clients, ("options", "plan")), (hosting.tournament, ("options", "plan"))):
        assert part is None or all(hasattr(part, f) for f in fields)
    assert all(isinstance(option, Option) for option in game.local_play.options)
    assert all(isinstance(w, Workload) for w in game.workloads)
    # a game is served by the lobby or by the referee server, never both
    assert game.lobby is None or hosting.server is None


def test_every_game_is_registered_through_the_entry_point_group(game: GameDescriptor) -> None:
    """The built-in games are found exactly as a plug-in is: an entry point of the
    ``gameroom.games`` group in gameroom's own metadata."""
    from importlib.metadata import entry_points

    points = {p.name: p for p in entry_points(group=registry.GROUP) if p.dist is not None and p.dist.name == "gameroom"}
    assert game.name in points and points[game.name].load() is game


def test_every_game_builds_its_server_plan_without_a_configuration(game: GameDescriptor) -> None:
    """Typed options in, a server plan out: nothing of the command line involved."""
    from gameroom.core.hosting import ServerPlan
    from gameroom.core.options import option_values

    server = game.hosting.server
    if server is None:
        return
    lines: list[str] = []
    plan = server.plan(None, {**option_values(server.options, {}), "seed": 5}, lines.append)
    assert isinstance(plan, ServerPlan) and plan.protocol is game.protocol
    assert plan.rules.min_players >= 1 and server.defaults({"seed": 5})


def test_every_example_configuration_is_a_file_of_the_package(game: GameDescriptor) -> None:
    from importlib.resources import files

    hosting = game.hosting
    for name in hosting.examples:
        assert (files(hosting.configs) / "configs" / name).is_file(), (game.name, name)


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
        outcome = game.play(1, seats, limits=game.limits.with_call(2.0))
        assert set(outcome.misbehaved) <= {"Bad"}, (game.name, kind)


def test_the_command_line_plugs_in_from_the_descriptor(game: GameDescriptor) -> None:
    from gameroom.cli.commands import harnesses
    from gameroom.cli.main import build_parser, load_game

    assert load_game(game.name) is game
    # a game served by the lobby also gets the lobby's scenario harness
    assert set(harnesses(game)) == set(game.harnesses()) | ({"xscenario"} if game.lobby is not None else set())
    args = build_parser(["play", game.name]).parse_args(["play", game.name])
    assert {option.key for option in game.local_play.options} <= set(vars(args))


def test_the_generic_play_and_benchmark_work_for_any_descriptor(capsys: pytest.CaptureFixture[str]) -> None:
    """A game that brings no hosting or workloads of its own still gets both."""
    import argparse
    from dataclasses import replace

    from gameroom.bench import generic
    from gameroom.cli import commands
    from gameroom.cli.arguments import add_options

    bare = replace(registry.game("q"), hosting=Hosting(), workloads=())
    parser = argparse.ArgumentParser()
    parser.add_argument("--observe", default=None)
    add_options(parser, bare.local_play.options, bare.name)
    assert commands.play(bare, parser.parse_args(["--players", "3", "--seed", "5"])) == 0
    generic.run(bare, 2)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "q: P1, P2, P3; seed 5" and json.loads(out[-2])[1] == []
    assert out[-1].startswith("q in-process")


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
            game.play(2, seats, observers=[watcher], cancel=cancel)
            cancel.wait(1.0)
    assert all(seat.ejected is None for seat in seats)


ROLE_MODULES = ("descriptor", "referee", "harness", "render")


def test_every_game_names_its_modules_and_referee_the_same_way(game: GameDescriptor) -> None:
    """One module name per role, and one referee entry point: ``run_game(seats, state, *,
    limits, observers, log, cancel, ...)`` with the game's own LIMITS as the default."""
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
    assert positional[0] == "seats" and len(positional) == 2
    keywords = {p.name for p in parameters.values() if p.kind is inspect.Parameter.KEYWORD_ONLY}
    assert {"limits", "observers", "log", "cancel"} <= keywords
    assert parameters["limits"].default is referee.LIMITS == game.limits


def test_codec_functions_are_named_encode_and_decode(game: GameDescriptor) -> None:
    """One naming scheme for codecs in every game: ``encode_X`` / ``decode_X``."""
    import importlib
    import re
    from pathlib import Path

    package = importlib.import_module(f"gameroom.games.{game.name}")
    for path in Path(package.__file__).parent.glob("*.py"):
        odd = re.findall(r"^def (\w+_(?:to|from)_json)\(", path.read_text(), re.M)
        assert not odd, f"{path.name}: {odd}"
