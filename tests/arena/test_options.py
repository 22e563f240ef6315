"""Per-competition game options: arena.toml's ``options`` table is checked against what the
game declares (one line naming the file and key, exit 2), every game of the competition is
dealt with them — program bots and built-in players alike — and the replay keeps them, so
``gameroom replay verify`` deals the same game again and a header whose options were
altered does not verify."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gameroom.arena.config import read_config
from gameroom.core.record import MatchRecord
from gameroom.league.replay import verify
from gameroom.league.table import TableTask, record_table

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "bots"


def _competition(game: str, options: str, players: int = 2) -> str:
    return (f'database = "sqlite:///a.db"\n[[competitions]]\nname = "c"\ngame = "{game}"\nplayers = {players}\n'
            f'[competitions.options]\n{options}\n')


@pytest.mark.parametrize("text, message", [
    (_competition("q", "colour = 1"), "competitions[1].options.colour: q has no such option; its options are "
                                      "q-bonus, finish-bonus"),
    (_competition("q", '"q-bonus" = 99'), "competitions[1].options.q-bonus: q-bonus must lie in 0..10, got 99"),
    (_competition("q", '"q-bonus" = "six"'), "competitions[1].options.q-bonus: expected a whole number"),
    (_competition("eriantys", 'expert = "yes"'), "competitions[1].options.expert: expected true or false"),
    (_competition("fish", "rows = 2\ncolumns = 3"), "competitions[1].options: a 2 x 3 board has 6 tiles, too few "
                                                    "for the 8 penguins of 2 players (players = 2)"),
    ('database = "sqlite:///a.db"\n[[competitions]]\nname = "c"\ngame = "q"\noptions = 3\n',
     "competitions[1].options: must be a table of the game's options"),
])
def test_bad_game_options_are_one_line_naming_the_key_and_exit_2(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "arena.toml"
    path.write_text(text)
    run = subprocess.run([sys.executable, "-m", "gameroom", "arena", "recompute", "--config", str(path)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert message in run.stderr and str(path) in run.stderr, run.stderr
    assert len(run.stderr.strip().splitlines()) == 1


def test_options_are_typed_with_the_games_defaults(tmp_path: Path) -> None:
    path = tmp_path / "arena.toml"
    path.write_text(_competition("fish", "rows = 3\ncolumns = 4")
                    + '[[competitions]]\nname = "plain"\ngame = "q"\n[competitions.options]\n')
    fish, plain = read_config(path).competitions
    assert dict(fish.options) == {"rows": 3, "columns": 4, "fish": None}
    assert plain.options == ()   # an empty table: the game's own deal


def _builtins(strategy: str) -> tuple[dict[str, object], ...]:
    return tuple({"name": f"{strategy}{k}", "builtin": strategy} for k in range(2))


def _programs() -> tuple[dict[str, object], ...]:
    return tuple({"name": f"py{k}", "command": [sys.executable, str(EXAMPLES / "python_bot.py"), "{port}"]}
                 for k in range(2))


@pytest.mark.parametrize("game, bots, options, altered", [
    ("q", _builtins("dag"), {"q_bonus": 0, "finish_bonus": 10}, {"q_bonus": 10, "finish_bonus": 0}),
    ("fish", _programs(), {"rows": 3, "columns": 4, "fish": 2}, {"rows": 4, "columns": 4, "fish": 2}),
    ("eriantys", _builtins("greedy"), {"expert": True}, {"expert": False}),
])
def test_a_game_is_dealt_with_its_competitions_options_and_verifies(
        tmp_path: Path, game: str, bots: tuple[dict[str, object], ...], options: dict[str, object],
        altered: dict[str, object]) -> None:
    task = TableTask(game, 0, 7, bots, options=tuple(options.items()))
    record = record_table(task)
    assert record.result is not None and not record.result.ejections, record.result
    assert record.config["options"] == options
    assert verify(record) is None
    plain = record_table(TableTask(game, 0, 7, bots))
    assert "options" not in plain.config and verify(plain) is None

    text = record.to_jsonl()
    good = tmp_path / "good.jsonl"
    good.write_text(text)
    checked = subprocess.run([sys.executable, "-m", "gameroom", "replay", "verify", str(good)],
                             capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, checked.stdout + checked.stderr

    header, *rest = text.splitlines()
    changed = json.loads(header)
    changed["config"]["options"] = altered
    tampered = MatchRecord.from_jsonl("\n".join([json.dumps(changed), *rest]))
    assert verify(tampered) is not None
    changed["config"]["options"] = {**options, "board": 1}
    unknown = MatchRecord.from_jsonl("\n".join([json.dumps(changed), *rest]))
    divergence = verify(unknown)
    assert divergence is not None and "has no option 'board'" in str(divergence)
