"""Per-competition game options: arena.toml's ``options`` table is typed against what the
game declares (its errors: ``test_pieces``), every game of the competition is
dealt with them — program bots and built-in players alike — and the replay keeps them, so
``gameroom replay verify`` deals the same game again and a header whose options were
altered does not verify."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.arena.running import competition_text

from gameroom.arena.config import read_config
from gameroom.core.record import MatchRecord
from gameroom.league.replay import verify
from gameroom.league.table import TableTask, record_table

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "bots"


def test_options_are_typed_with_the_games_defaults(tmp_path: Path) -> None:
    path = tmp_path / "arena.toml"
    path.write_text(competition_text("fish", "rows = 3\ncolumns = 4")
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
