"""The season's pieces on their own: the finals' seeding and tie-breaks (pure rules, with
the games' winners scripted), the readable result, ``freeze_at`` in arena.toml, what a
visitor may read of an ejection, the CSV's cells, and the migration that keeps the one
final an old database had as final 1."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from gameroom.arena.final import (REMOTE_LEFT_OUT, TIEBREAK_ROUNDS, Seed, describe, knock_out, round_robin,
                                  seed_field)
from gameroom.arena.staff import _cell
from gameroom.arena.views import log_lines, public_reason, stderr_lines


def _scripted(decide: Callable[[Sequence[str], str], list[str]]) -> tuple[Any, list[tuple[str, list[str]]]]:
    """A ``play`` whose winners ``decide(seats, stage)`` gives; the tables it was asked to play."""
    asked: list[tuple[str, list[str]]] = []

    def play(tables: Sequence[Sequence[str]], stage: str) -> list[list[str]]:
        out = []
        for seats in tables:
            asked.append((stage, list(seats)))
            out.append(decide(seats, stage))
        return out

    return play, asked


def _field(*bots: str) -> list[Seed]:
    return [Seed(at, bot, bot.removesuffix("-v1"), at + 1, 10.0 - at) for at, bot in enumerate(bots, 1)]


def _draws(seats: Sequence[str], stage: str) -> list[str]:
    return list(seats)   # every game a draw: every seat wins


def test_a_knock_out_decided_by_its_games_needs_no_tie_break() -> None:
    strength = {"a": 1, "b": 2, "c": 3, "d": 4}
    play, asked = _scripted(lambda seats, stage: [max(seats, key=strength.get)])
    result = knock_out(_field("a", "b", "c", "d"), 2, play)
    first = result["rounds"][0]["matches"]
    assert [m["bots"] for m in first] == [["a", "d"], ["b", "c"]]          # 1 meets the last, 2 the last but one
    assert all(m["decided_by"] == "games" for m in first)
    assert result["champion"] == "d" and result["champion_text"].startswith("champion: d (d beat c 2-0")
    assert not any("tie-break" in stage for stage, _ in asked)


def test_a_level_knock_out_match_plays_tie_break_pairs_until_one_leads() -> None:
    def decide(seats: Sequence[str], stage: str) -> list[str]:
        if stage.endswith("tie-break 1"):
            return list(seats)               # the first pair is drawn too
        if "tie-break" in stage:
            return ["b"]                     # b wins the second pair's games
        return [seats[0]]                    # the first mover wins: 1-1 after two games
    play, asked = _scripted(decide)
    result = knock_out(_field("a", "b"), 2, play)
    match = result["rounds"][0]["matches"][0]
    assert match["wins"] == [1, 1] and match["tiebreak"] == [2, 4] and match["tiebreak_games"] == 4
    assert match["decided_by"] == "tie-break games" and match["winner"] == "b"
    assert match["text"] == "b beat a: 1-1 in 2 games, then 4-2 in 4 tie-break games"
    assert [seats for stage, seats in asked if "tie-break" in stage] == [["a", "b"], ["b", "a"]] * 2


def test_a_knock_out_still_level_after_its_tie_breaks_goes_to_the_better_seed() -> None:
    play, asked = _scripted(_draws)
    result = knock_out(_field("a", "b", "c"), 1, play)
    first = result["rounds"][0]
    assert first["byes"] == ["a"] and first["bye_texts"] == ["a (seed 1) has a bye"]
    match = first["matches"][0]
    assert match["decided_by"] == "seed" and match["winner"] == "b"
    assert match["tiebreak_games"] == 2 * TIEBREAK_ROUNDS
    assert "still level: the better seed goes through (b is seed 2, c seed 3)" in match["text"]
    assert result["champion"] == "a"
    lines = describe({"number": 2, "competition": "c", "format": "knock-out", **result})
    assert lines[0] == f"final 2 of c: knock-out, {result['games']} games"
    assert any("has a bye" in line for line in lines) and lines[-1].startswith("champion: a (")
    assert not any(line.lstrip().startswith(("{", "[")) for line in lines)   # text to read, not JSON


def test_round_robin_ties_go_to_head_to_head_then_tie_break_games_then_the_seed() -> None:
    # a beats b; b beats c; c beats a: all level on 3 wins (2 games a pair, seats rotated, the
    # other game of each pair drawn); head-to-head among the three is the same, so tie-break
    # games: c wins every one, then a and b are level and go by their seeds
    beats = {frozenset("ab"): "a", frozenset("bc"): "b", frozenset("ac"): "c"}

    def decide(seats: Sequence[str], stage: str) -> list[str]:
        if "tie-break" in stage:
            return ["c"] if "c" in seats else list(seats)
        return [beats[frozenset(seats)]] if seats[0] < seats[1] else list(seats)
    play, _ = _scripted(decide)
    result = round_robin(_field("a", "b", "c"), 2, 2, play)
    rows = {row["bot"]: row for row in result["table"]}
    assert [row["bot"] for row in result["table"]] == ["c", "a", "b"]
    assert {bot: row["wins"] for bot, row in rows.items()} == {"a": 3, "b": 3, "c": 3}
    assert rows["c"]["decided_by"] == "tie-break games"
    assert rows["a"]["decided_by"] == rows["b"]["decided_by"] == "seed"
    assert "placed by the frozen table (place 2)" in rows["a"]["text"]
    assert result["winner"] == "c"


def test_round_robin_head_to_head_decides_before_more_games() -> None:
    # one game a pair: a and b win two each (b beat a), c and d one each (c beat d)
    wins = {frozenset("ab"): "b", frozenset("ac"): "a", frozenset("ad"): "a", frozenset("bc"): "b",
            frozenset("bd"): "d", frozenset("cd"): "c"}
    play, asked = _scripted(lambda seats, stage: [wins[frozenset(seats)]])
    result = round_robin(_field("a", "b", "c", "d"), 2, 1, play)
    assert [(row["bot"], row["wins"], row["decided_by"]) for row in result["table"]] == [
        ("b", 2, "head-to-head"), ("a", 2, "head-to-head"), ("c", 1, "head-to-head"), ("d", 1, "head-to-head")]
    assert result["table"][0]["text"] == "1. b: 2 wins (level on 2 wins with a; 1 wins in the games among them)"
    assert not any("tie-break" in stage for stage, _ in asked)


def test_the_field_is_exactly_the_frozen_tables_order_and_who_cannot_play_is_named() -> None:
    rows = [{"rank": 1, "bot": "far", "playing": "far-v1", "rating": 9.0, "remote": True, "disabled": None},
            {"rank": 2, "bot": "x", "playing": "x-v3", "rating": 8.0, "remote": False, "disabled": None},
            {"rank": 3, "bot": "copy", "playing": "copy-v1", "rating": 7.0, "remote": False, "disabled": "copied"},
            {"rank": 4, "bot": "y", "playing": "y-v1", "rating": 6.0, "remote": False, "disabled": None},
            {"rank": 5, "bot": "z", "playing": "z-v2", "rating": 5.0, "remote": False, "disabled": None},
            {"rank": 6, "bot": "new", "playing": None, "rating": None, "remote": False, "disabled": None}]
    field, left_out = seed_field(rows, 2)
    assert [(s.seed, s.bot, s.place) for s in field] == [(1, "x-v3", 2), (2, "y-v1", 4)]
    assert left_out == [{"bot": "far", "place": 1, "reason": REMOTE_LEFT_OUT},
                        {"bot": "copy", "place": 3, "reason": "disabled by staff: copied"}]
    field, left_out = seed_field(rows, 10)
    assert [s.bot for s in field] == ["x-v3", "y-v1", "z-v2"]
    assert left_out[-1] == {"bot": "new", "place": 6, "reason": "no playing version"}


@pytest.mark.parametrize("value, problem", [
    ("2025-06-01T18:00:00", "give its offset from UTC"),
    ("2025-06-01", "got a date without a time"),
    ('"soon"', "got 'soon'"),
    ("3", "got 3"),
])
def test_freeze_at_must_be_a_date_and_time_with_its_offset(tmp_path: Path, value: str, problem: str) -> None:
    from gameroom.arena.config import ArenaConfigError, read_config

    path = tmp_path / "arena.toml"
    path.write_text(f'[[competitions]]\nname = "c"\ngame = "q"\nfreeze_at = {value}\n')
    with pytest.raises(ArenaConfigError, match=f"competitions\\[1\\].freeze_at: .*{problem}"):
        read_config(path)
    path.write_text('[[competitions]]\nname = "c"\ngame = "q"\nfreeze_at = 2025-06-01T18:00:00+02:00\n')
    assert read_config(path).competitions[0].freeze_at.isoformat() == "2025-06-01T18:00:00+02:00"  # type: ignore


def test_a_visitor_reads_an_ejection_without_stderr_or_paths() -> None:
    reason = ("connection closed; program exited with status 3; stderr: Traceback (most recent call last): | "
              'File "/srv/arena-data/builds/crashy/v1/bot.py", line 9 | SystemExit: 3')
    assert public_reason(reason) == "connection closed; program exited with status 3"
    assert public_reason("program could not start: [Errno 2] No such file: '/srv/data/builds/a/v1/x'") == \
        "program could not start: [Errno 2] No such file: '[path]'"
    assert public_reason("illegal placement: tile red star is not in the hand") == \
        "illegal placement: tile red star is not in the hand"
    assert stderr_lines("Traceback (most recent call last): | File x | ValueError: y").splitlines() == \
        ["Traceback (most recent call last):", "File x", "ValueError: y"]
    log = "main: bot.py\n$ python3 -I -c ...\nexited with status 1 after 0.1 s; stderr: Traceback (most recent " \
          "call last): | File \"bot.py\", line 1 | SyntaxError: invalid syntax"
    assert log_lines(log).splitlines() == ["main: bot.py", "$ python3 -I -c ...", "exited with status 1 after 0.1 s; "
                                           "stderr:", "    Traceback (most recent call last):",
                                           "    File \"bot.py\", line 1", "    SyntaxError: invalid syntax"]


def test_a_csv_cell_a_spreadsheet_would_run_is_quoted() -> None:
    assert _cell("=HYPERLINK(\"http://x\")") == "'=HYPERLINK(\"http://x\")"
    assert _cell("+1") == "'+1" and _cell("@x") == "'@x" and _cell("-2") == "'-2"
    assert _cell(-2.5) == -2.5 and _cell(None) == "" and _cell("ann") == "ann"


def test_the_one_final_of_an_old_database_is_kept_as_final_1(tmp_path: Path) -> None:
    from alembic import command
    from alembic.config import Config

    from gameroom.league.db import MIGRATIONS, open_database

    url = f"sqlite:///{tmp_path / 'old.db'}"
    from sqlalchemy import create_engine

    engine = create_engine(url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0004")
    old = {"format": "knock-out", "games": 2, "rounds": [], "champion": "a-v1"}
    with sqlite3.connect(tmp_path / "old.db") as db:
        db.execute("insert into arena_state (competition, paused, frozen, final) values (?, 0, 1, ?)",
                   ("course", json.dumps(old)))
    open_database(url)   # migrates to the newest revision
    with sqlite3.connect(tmp_path / "old.db") as db:
        kept = db.execute("select competition, number, format, status, result from arena_finals").fetchall()
        columns = [row[1] for row in db.execute("pragma table_info(arena_state)")]
    assert [(c, n, f, s, json.loads(r)) for c, n, f, s, r in kept] == [("course", 1, "knock-out", "done", old)]
    assert "final" not in columns and "season" in columns


def test_the_remote_port_chosen_once_is_kept_and_a_taken_one_is_said(tmp_path: Path) -> None:
    import socket

    from gameroom.arena.remote import PORT_SETTING, Hall, HallError
    from gameroom.arena.tables import set_setting, setting
    from gameroom.league.db import open_database

    engine = open_database(f"sqlite:///{tmp_path / 'a.db'}")
    hall = Hall(engine, lambda competition: None, lambda: None)
    chosen = hall.listen("127.0.0.1", 0)
    hall.close()
    assert setting(engine, PORT_SETTING) == str(chosen)
    again = Hall(engine, lambda competition: None, lambda: None)
    assert again.listen("127.0.0.1", 0) == chosen   # port 0: the one chosen before
    again.close()
    with socket.socket() as taker:
        taker.bind(("127.0.0.1", 0))
        taker.listen(1)
        set_setting(engine, PORT_SETTING, str(taker.getsockname()[1]))
        with pytest.raises(HallError, match=f"the port chosen for remote bots before, {taker.getsockname()[1]} .*"
                                            "is in use by another program"):
            Hall(engine, lambda competition: None, lambda: None).listen("127.0.0.1", 0)


def test_a_final_whose_process_was_killed_reads_interrupted_and_a_live_one_playing(tmp_path: Path) -> None:
    """A real process starts a final's row as ``play_final`` does and is killed with
    SIGKILL mid-final: the next reader marks it interrupted, saying why; a final whose
    process is alive (this one's) stays playing."""
    import signal
    import subprocess
    import sys

    from sqlalchemy import select
    from sqlalchemy.orm import Session

    from gameroom.arena.final import settle_interrupted
    from gameroom.arena.tables import FinalRow
    from gameroom.league.db import open_database

    url = f"sqlite:///{tmp_path / 'a.db'}"
    engine = open_database(url)
    start = ("from gameroom.arena.final import _this_process\n"
             "from gameroom.arena.tables import FinalRow, now\n"
             "from gameroom.league.atomic import write_transaction\n"
             "from gameroom.league.db import open_database\n"
             "import sys\n"
             "with write_transaction(open_database(sys.argv[1])) as session:\n"
             "    session.add(FinalRow(competition='q', number=int(sys.argv[2]), format='round-robin',\n"
             "                         status='playing', result=_this_process(), started_at=now()))\n"
             "print('playing', flush=True)\n"
             "sys.stdin.read()\n")
    killed = subprocess.Popen([sys.executable, "-c", start, url, "1"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    alive = subprocess.Popen([sys.executable, "-c", start, url, "2"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)
    try:
        assert killed.stdout is not None and killed.stdout.readline() == "playing\n"
        assert alive.stdout is not None and alive.stdout.readline() == "playing\n"
        assert settle_interrupted(engine, "q") == 0                 # both processes still play
        killed.send_signal(signal.SIGKILL)
        killed.wait()
        assert settle_interrupted(engine, "q") == 1
        assert settle_interrupted(engine, "q") == 0                 # said once
        with Session(engine) as session:
            rows = {row.number: row for row in session.scalars(select(FinalRow))}
        assert rows[1].status == "interrupted" and f"pid {killed.pid}" in rows[1].result["error"]
        assert rows[2].status == "playing"
    finally:
        for process in (killed, alive):
            process.kill()
            process.wait()
