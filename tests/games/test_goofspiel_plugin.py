"""A plug-in game of secret simultaneous moves, installed editable, through every part of
the plug-in contract that a game author found open.

Goofspiel (``tests/plugins/goofspiel``, a distribution of its own in the flat layout the
game authors' guide shows) is installed with ``pip install -e`` into one temporary
virtual environment shared by the cases: its package is then reached through
setuptools' import hook, not through any ``sys.path`` entry. In that environment, as
separate processes: a league whose Python and policy bots (shipped in the plug-in) play
in bubblewrap's sandbox, the benchmark with isolated seats, PettingZoo's
``parallel_api_test`` on ``rl.parallel_env`` (the game declares simultaneous rounds),
pictures that keep the game's secret unless asked for everything, and ``play --replay``
with the game's own option kept in the replay and verified.
"""

from __future__ import annotations

import json
import sqlite3
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.games.plugin_venv import install_plugin, run

SOURCE = Path(__file__).resolve().parents[1] / "plugins" / "goofspiel"


@pytest.fixture(scope="module")
def goofspiel(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return install_plugin(SOURCE, tmp_path_factory.mktemp("goofspiel"), editable=True)


def gameroom(plugin: dict[str, Any], *args: str) -> Any:
    return run(plugin, "-m", "gameroom", *args)


def test_the_editable_package_is_found_through_an_import_hook(goofspiel: dict[str, Any]) -> None:
    found = run(goofspiel, "-c", textwrap.dedent("""
        import importlib.util, json, os, sys
        spec = importlib.util.find_spec("goofspiel_game")
        home = os.path.dirname(spec.submodule_search_locations[0])
        print(json.dumps([spec.submodule_search_locations[0], any(os.path.abspath(p or ".") == home
                                                                for p in sys.path)]))"""))
    assert found.returncode == 0, found.stderr
    location, on_path = json.loads(found.stdout)
    assert location == str(goofspiel["source"] / "goofspiel_game") and not on_path


def test_a_league_of_python_and_policy_bots_in_the_sandbox(goofspiel: dict[str, Any]) -> None:
    probe = run(goofspiel, "-c", "from gameroom.core.bwrap import probe; print(probe() or '')")
    if probe.stdout.strip():
        pytest.skip(f"no bubblewrap sandbox here: {probe.stdout.strip()}")
    folder = goofspiel["folder"]
    (folder / "bots.toml").write_text(textwrap.dedent("""
        [[bots]]
        name = "lowest"
        python = "goofspiel_game.bots:Lowest"
        [[bots]]
        name = "first"
        policy = "goofspiel_game.bots:first_legal"
        options = {cards = 13, players = 2}
        [[bots]]
        name = "match"
        builtin = "match"
        [sandbox]
        mode = "bwrap"
        """))
    db = folder / "league.db"
    league = gameroom(goofspiel, "league", "goofspiel", "--bots", "bots.toml", "--games", "3", "--players", "2",
                      "--db", f"sqlite:///{db}", "--quiet")
    assert league.returncode == 0, league.stderr
    with sqlite3.connect(db) as connection:
        ejections = connection.execute("select reason from ejections").fetchall()
        games = connection.execute("select count(*) from games").fetchone()[0]
    assert games == 3 and ejections == [], ejections
    verify = gameroom(goofspiel, "replay", "verify", "--db", f"sqlite:///{db}")
    assert verify.returncode == 0 and "3 of 3 replays verified" in verify.stdout, verify.stdout + verify.stderr


def test_the_benchmark_plays_isolated_seats_and_checks_each_game(goofspiel: dict[str, Any]) -> None:
    bench = run(goofspiel, "-m", "gameroom.bench", "goofspiel", "--games", "3", "--isolated-games", "1")
    assert bench.returncode == 0, bench.stderr
    figures = json.loads(bench.stdout.splitlines()[-1])
    assert figures["work"] == "goofspiel, 4 x match" and figures["games_per_s_isolated"] > 0, bench.stdout


PARALLEL = textwrap.dedent("""
    import json
    from gameroom import rl
    from pettingzoo.test import api_test, parallel_api_test

    parallel_api_test(rl.parallel_env("goofspiel", players=3, cards=5), num_cycles=100)
    api_test(rl.env("goofspiel", cards=5), num_cycles=100)
    env = rl.parallel_env("goofspiel", cards=5)
    observations, _ = env.reset(seed=3)
    rounds = 0
    while env.agents:   # both seats bid each round in one step, from their masks
        observations, rewards, *_ = env.step({a: int(observations[a]["action_mask"].argmax()) for a in env.agents})
        rounds += 1
    pictures = {}
    for view in (None, "player_1", "all"):
        pictured = rl.parallel_env("goofspiel", cards=5, render_mode="svg", render_view=view)
        pictured.reset(seed=3)
        pictures[str(view)] = pictured.render()
    print(json.dumps({"rounds": rounds, "rewards": sorted(rewards.values()), "pictures": pictures}))
    """)


def test_parallel_env_of_a_game_of_simultaneous_rounds(goofspiel: dict[str, Any]) -> None:
    checked = run(goofspiel, "-c", PARALLEL)
    assert checked.returncode == 0, checked.stderr
    assert "Passed Parallel API test" in checked.stdout and "Passed API test" in checked.stdout
    found = json.loads(checked.stdout.splitlines()[-1])
    assert found["rounds"] == 5 and sum(found["rewards"]) == 0
    # The order of the prizes face down is nobody's to see: only "all" draws it.
    deck = [svg.split("deck: ")[1].split("<")[0] for svg in found["pictures"].values()]
    assert deck[0] == deck[1] == "1 2 3 4 5" and sorted(deck[2].split()) == list("12345") and deck[2] != deck[0]


def test_play_replay_keeps_the_games_own_options(goofspiel: dict[str, Any]) -> None:
    help_text = " ".join(gameroom(goofspiel, "play", "goofspiel", "--help").stdout.split())
    assert "--cards CARDS cards in every hand and in the prize deck, 3..13 (default 13)" in help_text
    replay = goofspiel["folder"] / "played.jsonl"
    played = gameroom(goofspiel, "play", "goofspiel", "--cards", "5", "--seed", "4", "--replay", str(replay))
    assert played.returncode == 0, played.stderr
    header = json.loads(replay.read_text().splitlines()[0])
    assert header["config"]["options"] == {"cards": 5}
    bids = [json.loads(line) for line in replay.read_text().splitlines() if '"method": "bid"' in line]
    assert len(bids) == 2 * 5 and bids[0]["args"][1] == [1, 2, 3, 4, 5]
    verify = gameroom(goofspiel, "replay", "verify", str(replay))
    assert verify.returncode == 0 and "verified" in verify.stdout, verify.stdout + verify.stderr
