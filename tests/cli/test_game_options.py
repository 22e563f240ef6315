"""The game's own options on the command line: ``play --replay`` keeps them (or refuses
one it cannot keep), ``--help`` shows every option's default, and unnamed policies are
named ``policy``, ``policya``, ... in turn."""

from __future__ import annotations

import json
from pathlib import Path

from driver import run_gameroom

from gameroom.cli.arguments import with_default
from gameroom.cli.policies import default_names
from gameroom.core.options import Option, comma_list


def test_play_replay_keeps_the_games_own_options_and_refuses_one_it_cannot_keep(tmp_path: Path) -> None:
    replay = tmp_path / "evolution.jsonl"
    run = run_gameroom(["play", "evolution", "--deck", "shuffled", "--seed", "3", "--replay", str(replay)], b"")
    assert run.returncode == 0, run.stderr
    assert json.loads(replay.read_text().splitlines()[0])["config"]["options"] == {"deck": "shuffled"}
    verify = run_gameroom(["replay", "verify", str(replay)], b"")
    assert verify.returncode == 0 and "verified" in verify.stdout, verify.stdout + verify.stderr
    lost = run_gameroom(["play", "evolution", "--fat-request", "need", "--replay", str(tmp_path / "x.jsonl")], b"")
    assert lost.returncode == 2 and lost.stderr.strip() == (
        "gameroom: error: --fat-request cannot be kept in a replay: it is not among evolution's own options "
        "(--deck), which a replay records")
    assert not (tmp_path / "x.jsonl").exists()


def test_help_shows_each_options_default() -> None:
    assert with_default(Option("cards", int, 13, "cards in a hand")) == "cards in a hand (default 13)"
    assert with_default(Option("deck", str, "sorted", "the deck (default sorted)")) == "the deck (default sorted)"
    assert with_default(Option("mix", comma_list, ("a", "b"), "strategies")) == "strategies (default a,b)"
    assert with_default(Option("fast", flag=True, help="hurry")) == "hurry"
    assert with_default(Option("fish", int, None, "fish a tile")) == "fish a tile"


def test_unnamed_policies_are_policy_then_policya() -> None:
    assert default_names([None]) == ["policy"]
    assert default_names([None, None, None]) == ["policy", "policya", "policyb"]
    assert default_names(["alpha", None]) == ["alpha", "policy"]
    assert default_names([None, "policy"]) == ["policya", "policy"]
    assert default_names([None] * 28)[-1] == "policyaa"
