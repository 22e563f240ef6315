"""The example configurations shipped with Evolution and Eriantys (README, "Running a server
with the example configurations") are read by the games' own readers and say what the
defaults are: each key the file sets holds the default the reader would use without it
(Eriantys's referee-policy example aside, which is the point of it)."""

from __future__ import annotations

import json
from importlib.resources import files

from gameroom.games.evolution.config import Config, decode_config
from gameroom.server.lobby_config import LobbyConfig, decode_lobby_config


def example(game: str, name: str) -> object:
    return json.loads((files(f"gameroom.games.{game}") / "configs" / name).read_text())


def test_evolution_examples_hold_the_defaults() -> None:
    assert decode_config(example("evolution", "server.json")) == Config()
    assert decode_config(example("evolution", "clients.json")) == Config()


def test_eriantys_examples_hold_the_defaults_and_the_referee_policy() -> None:
    assert decode_lobby_config(example("eriantys", "server.json")) == LobbyConfig()
    referee = decode_lobby_config(example("eriantys", "referee-server.json"))
    assert referee.referee and referee.turn_timeout == 10 and referee.login_timeout == 10 and referee.seed == 1
