"""The registry's contract, checked for every registered game: what the command line, the
benchmarks, the server and (later) the web page and league rely on a descriptor for."""

from __future__ import annotations

import inspect
import json
import os
import shutil
import subprocess
import sys
import threading
import typing
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

from gameroom.core.context import NO_CONTEXT, MatchContext
from gameroom.core.game import GameDescriptor
from gameroom.core.hosting import Hosting
from gameroom.core.limits import Limits
from gameroom.core.match import guarded_seat
from gameroom.core.options import Option
from gameroom.core.protocol import WireProtocol
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
    assert isinstance(game.protocol, WireProtocol) and isinstance(game.limits, Limits)
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
    plan = server.plan(None, {**option_values(server.options, {}), "seed": 5})
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


def _interface_methods(interface: type) -> dict[str, object]:
    """The methods a ``typing.Protocol`` class declares (its own and its protocol bases')."""
    out: dict[str, object] = {}
    for cls in reversed(interface.__mro__):
        if cls is not interface and not getattr(cls, "_is_protocol", False) or cls is typing.Protocol:
            continue
        out.update({k: v for k, v in vars(cls).items() if not k.startswith("_") and callable(v)})
    return out


def test_the_declared_player_interface_is_the_protocol_table(game: GameDescriptor) -> None:
    """The game's typing.Protocol and its protocol table declare the same calls with the same
    number of arguments (a ``name`` besides, where the game asks a player for one), and the
    built-in players satisfy the interface."""
    interface = game.player_interface
    assert interface is not None and getattr(interface, "_is_protocol", False), f"{game.name}: no typing.Protocol"
    declared = _interface_methods(interface)
    table = {m.name: m for m in game.protocol.methods}
    assert set(table) <= set(declared), f"{game.name}: {sorted(set(table) - set(declared))} not in {interface.__name__}"
    assert set(declared) - set(table) <= {"name"}, f"{game.name}: {interface.__name__} has calls the table lacks"
    for name, method in table.items():
        parameters = list(inspect.signature(declared[name]).parameters)[1:]   # without self
        assert len(parameters) == len(method.args), f"{game.name} {interface.__name__}.{name}"
    checkable = typing.runtime_checkable(interface)
    for kind, make in game.strategies.items():
        assert isinstance(make("Pat", 0), checkable), f"{game.name} {kind} is not a {interface.__name__}"


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


def test_the_view_of_a_seat_no_longer_in_the_game_tells_no_secret(game: GameDescriptor) -> None:
    """An ejected seat's person goes on watching: its view of a state it is not in (Q and
    Bazaar remove an ejected player) must not fail (Q's was a StopIteration that stopped
    the web match) and shows no player's secret."""
    import random

    names = [f"P{i + 1}" for i in range(game.min_players)]
    state = game.deal(3, names)
    gone = game.views.seat(state, "Gone")
    json.dumps(gone)
    if game.views.vary_secret is not None:
        for name in names:
            assert game.views.seat(game.views.vary_secret(state, name, random.Random(5)), "Gone") == gone, name


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

    bare = replace(registry.game("q"), hosting=Hosting(), workloads=(), lineups=(), narrator=None)
    parser = argparse.ArgumentParser()
    parser.add_argument("--observe", default=None)
    add_options(parser, bare.local_play.options, bare.name)
    assert commands.play(bare, parser.parse_args(["--players", "3", "--seed", "5"])) == 0
    generic.run(bare, 2, isolated_games=1)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "q: P1, P2, P3; seed 5" and json.loads(out[-4])[1] == []
    # the default line-up on every kind of seat, the cost of a call on each, one JSON line
    assert out[-3].startswith("q, 4 x ") and all(f"{kind} " in out[-3] for kind in ("trusted", "guarded", "isolated"))
    assert out[-2].startswith("one call")
    summary = json.loads(out[-1])
    for key in ("games_per_s_trusted", "games_per_s_guarded", "games_per_s_isolated", "call_us_direct",
                "call_us_guarded", "call_us_isolated", "pipe_us_round_trip"):
        assert summary[key] > 0, key
    assert summary["game"] == "q" and summary["reference_games_per_s"] is None


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


# -- the installed distribution and broken plug-ins ---------------------------------------------

REPOSITORY = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def built_wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    """gameroom built as a wheel, from a copy of its sources (the build leaves nothing in
    the checkout), offline: no index, the installed setuptools."""
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPOSITORY / name, source / name)
    shutil.copytree(REPOSITORY / "src", source / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    out = tmp_path_factory.mktemp("wheel")
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                            "--quiet", "--wheel-dir", str(out), str(source)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    return zipfile.ZipFile(next(out.glob("gameroom-*.whl")))


def test_the_wheel_holds_every_games_configurations_and_entry_point(built_wheel: zipfile.ZipFile,
                                                                     game: GameDescriptor) -> None:
    """Package data declared once (a wildcard) reaches the built distribution, not only an
    editable install: every example the game names and every file of its configs folder."""
    names = set(built_wheel.namelist())
    hosting = game.hosting
    folder = hosting.configs.replace(".", "/") + "/configs/" if hosting.configs else None
    for example in hosting.examples:
        assert folder + example in names, (game.name, example)
    if folder is not None:
        on_disk = sorted(p.name for p in (REPOSITORY / "src" / folder).glob("*.json"))
        assert on_disk and all(folder + name in names for name in on_disk), game.name
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    text = built_wheel.read(entry_points).decode()
    assert "[gameroom.games]" in text and f"{game.name} = " in text


BROKEN_ENTRY_POINTS = {
    "crash": "brokengames.crash:GAME",       # its module raises on import
    "notagame": "brokengames.wrong:GAME",    # not a GameDescriptor
    "misnamed": "brokengames.misnamed:GAME",  # a descriptor of another name
    "q": "brokengames.wrong:GAME",           # a name gameroom already registers
}


@pytest.fixture(scope="module")
def broken_plugins(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """An installed distribution (metadata and modules on the path) of broken plug-ins."""
    site = tmp_path_factory.mktemp("site")
    package = site / "brokengames"
    package.mkdir()
    (package / "__init__.py").write_text('"""Broken game plug-ins."""\n')
    (package / "crash.py").write_text('raise ImportError("no module named nowhere")\n')
    (package / "wrong.py").write_text("GAME = 42\n")
    (package / "misnamed.py").write_text("from dataclasses import replace\nfrom gameroom.games.q.descriptor import GAME as Q\n"
                                         "GAME = replace(Q, name='other')\n")
    info = site / "brokengames-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: brokengames\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[gameroom.games]\n" + "".join(f"{k} = {v}\n"
                                                                          for k, v in BROKEN_ENTRY_POINTS.items()))
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}


def _gameroom(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gameroom", *args], capture_output=True, text=True, env=env,
                          timeout=120)


def test_broken_plugins_are_reported_in_one_line_each_and_skipped(broken_plugins: dict[str, str]) -> None:
    listing = _gameroom(broken_plugins, "--help")
    assert listing.returncode == 0, listing.stderr
    warnings = listing.stderr.strip().splitlines()
    assert len(warnings) == len(BROKEN_ENTRY_POINTS), listing.stderr
    for name, value in BROKEN_ENTRY_POINTS.items():
        line = next(w for w in warnings if f"{name} = {value!r}" in w)
        assert line.startswith("gameroom: warning: game plug-in ") and "brokengames" in line
    assert "ImportError: no module named nowhere" in listing.stderr and "is a int, not a GameDescriptor" in listing.stderr
    assert "describes a game named 'other'" in listing.stderr and "already registered" in listing.stderr
    games = listing.stdout.split("games:")[1]
    assert all(f"  {g} " in games for g in registry.names()) and "misnamed" not in games


def test_a_broken_plugin_breaks_no_other_command(broken_plugins: dict[str, str]) -> None:
    """The built-in q stays gameroom's own (a plug-in cannot take its name: every command
    says so, the other broken plug-ins are not even loaded); a command naming a broken
    game fails with one line naming its entry point."""
    play = _gameroom(broken_plugins, "play", "q", "--players", "2", "--seed", "4")
    warnings = play.stderr.strip().splitlines()
    assert play.returncode == 0 and len(warnings) == 1 and "already registered" in warnings[0], play.stderr
    assert play.stdout.startswith("Q: Ada (dag), Bo (ldasg); seed 4")
    crash = _gameroom(broken_plugins, "play", "crash")
    lines = crash.stderr.strip().splitlines()
    assert crash.returncode == 2 and len(lines) == 1, crash.stderr
    assert "game plug-in crash = 'brokengames.crash:GAME'" in lines[0] and "cannot be loaded" in lines[0]
