"""Leagues through the real ``gameroom`` command: program bots (the documented example
clients), built-ins and misbehaving programs; the database, ratings, replays, kill and
resume (the Ray backend against the process pool: ``test_ray``)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gameroom.games import registry
from gameroom.bench.processes import marked, started_by
from tests.league.conftest import EXAMPLES, GAMEROOM, MISBEHAVING, bots_file, gameroom, league

# CI plays a short league per game; GAMEROOM_LEAGUE_GAMES=200 runs the acceptance size.
GAMES = int(os.environ.get("GAMEROOM_LEAGUE_GAMES", "10"))


def _count(db: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(db) as connection:
        return connection.execute(sql).fetchall()


def _example_bots(game: str) -> list[dict]:
    descriptor = registry.game(game)
    strategies = list(descriptor.strategies)
    builtins = [strategies[0], strategies[1 % len(strategies)]]
    return [{"name": "py-example", "command": [sys.executable, str(EXAMPLES / "python_bot.py"), "{port}"]},
            {"name": "perl-example", "command": ["perl", str(EXAMPLES / "perl_bot.pl"), "{port}"]},
            {"name": f"{builtins[0]}-1", "builtin": builtins[0]},
            {"name": f"{builtins[1]}-2", "builtin": builtins[1]}]


@pytest.mark.parametrize("game", registry.names())
def test_league_of_example_clients_and_builtins(game: str, tmp_path: Path) -> None:
    """Two program bots (the example clients of docs/bots.md) and two built-ins play a
    league; the database holds every game, the leaderboard lists the four, every replay
    verifies."""
    bots = bots_file(tmp_path, _example_bots(game))
    db = tmp_path / "league.db"
    url = f"sqlite:///{db}"
    run = gameroom("league", game, "--bots", str(bots), "--games", str(GAMES), "--db", url, "--workers", "2",
                   "--seed", "3")
    assert run.returncode == 0, run.stderr
    assert _count(db, "select count(*), count(distinct \"index\") from games") == [(GAMES, GAMES)]
    board = gameroom("ratings", "--game", game, "--db", url)
    assert board.returncode == 0, board.stderr
    for bot in _example_bots(game):
        assert bot["name"] in board.stdout
    assert _count(db, "select count(*) from results") == [(GAMES * min(4, registry.game(game).max_players),)]
    # The example clients play every game legally: never ejected.
    assert _count(db, "select count(*) from ejections e join bots b on b.id = e.bot_id "
                      "where b.name in ('py-example', 'perl-example')") == [(0,)]
    verify = gameroom("replay", "verify", "--db", url)
    assert verify.returncode == 0, verify.stderr
    assert f"{GAMES} of {GAMES} replays verified" in verify.stdout


def test_misbehaving_programs_are_ejected_and_killed_with_their_group(tmp_path: Path) -> None:
    """Programs that spin, eat memory, fork or send garbage are ejected; the league goes on;
    no process of theirs is left behind."""
    game = "bazaar" if "bazaar" in registry.names() else registry.names()[0]
    descriptor = registry.game(game)
    marker = str(tmp_path / "misbehaving.py")
    Path(marker).write_text(MISBEHAVING.read_text())
    bad = [{"name": kind, "command": [sys.executable, marker, kind, "{port}"], "memory_mb": 300}
           for kind in ("spin", "memory", "fork", "garbage")]
    good = {"name": "good", "builtin": next(iter(descriptor.strategies))}
    bots = bots_file(tmp_path, [good, *bad])
    db = tmp_path / "bad.db"
    run = gameroom("league", game, "--bots", str(bots), "--games", "2", "--players", "5", "--db", f"sqlite:///{db}",
                   "--workers", "2", "--quiet")
    assert run.returncode == 0, run.stderr
    assert _count(db, "select count(*) from games") == [(2,)]
    kinds = dict(_count(db, "select b.name, group_concat(distinct e.kind) from ejections e join bots b "
                             "on b.id = e.bot_id group by b.name"))
    assert kinds == {"spin": "time-out", "memory": "disconnect", "fork": "time-out", "garbage": "invalid-reply"}
    assert _count(db, "select b.name, r.ejected from results r join bots b on b.id = r.bot_id "
                      "where b.name = 'good'") == [("good", 0), ("good", 0)]
    assert marked(marker) == []
    verify = gameroom("replay", "verify", "--db", f"sqlite:///{db}")
    assert verify.returncode == 0 and "2 of 2 replays verified" in verify.stdout, verify.stderr


def _children_of(pid: int) -> list[int]:
    """Live processes the league process ``pid`` started (its pool workers carry
    GAMEROOM_LEAGUE_PARENT in their environment)."""
    return started_by(pid, "GAMEROOM_LEAGUE_PARENT")


def _league_rows(db: Path) -> list[tuple]:
    return _count(db, "select g.\"index\", g.seed, b.name, r.rank, r.winner, r.ejected from games g "
                      "join results r on r.game_id = g.id join bots b on b.id = r.bot_id order by g.\"index\", b.name")


def _q_bots(tmp_path: Path) -> Path:
    return bots_file(tmp_path, [{"name": "dag", "builtin": "dag"}, {"name": "ldasg", "builtin": "ldasg"},
                                {"name": "raiser", "builtin": "raise-in-take-turn"},
                                {"name": "cheat", "builtin": "cheat-tile-not-owned"}])


def test_killed_league_resumes_to_exactly_n_games(tmp_path: Path) -> None:
    """SIGKILL the real command mid-run, start it again: exactly N games, the same ones an
    uninterrupted league plays."""
    bots, n = _q_bots(tmp_path), 60
    db = tmp_path / "killed.db"
    args = ["league", "q", "--bots", str(bots), "--games", str(n), "--players", "3", "--seed", "9", "--workers", "2",
            "--quiet"]
    league = subprocess.Popen([*GAMEROOM, *args, "--db", f"sqlite:///{db}"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        time.sleep(0.3)
        if db.exists():
            try:
                if _count(db, "select count(*) from games")[0][0] >= 8:
                    break
            except sqlite3.OperationalError:
                continue
    league.send_signal(signal.SIGKILL)
    league.wait()
    deadline = time.monotonic() + 120   # its pool workers notice and exit (however busy the machine)
    while _children_of(league.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _children_of(league.pid) == []
    before = _count(db, "select count(*) from games")[0][0]
    assert 8 <= before < n
    again = gameroom(*args, "--db", f"sqlite:///{db}")
    assert again.returncode == 0, again.stderr
    assert _count(db, "select count(*), count(distinct \"index\"), min(\"index\"), max(\"index\") from games") == [
        (n, n, 0, n - 1)]
    straight = tmp_path / "straight.db"
    run = gameroom(*args, "--db", f"sqlite:///{straight}")
    assert run.returncode == 0, run.stderr
    assert _league_rows(db) == _league_rows(straight)


def test_league_on_postgresql(postgres_url: str, tmp_path: Path) -> None:
    """The same commands against a real PostgreSQL server: migrations, games, ratings,
    replays, and resuming (a second run adds only the missing games)."""
    bots = _q_bots(tmp_path)
    args = ["league", "q", "--bots", str(bots), "--players", "3", "--db", postgres_url, "--quiet", "--name", "pg"]
    assert gameroom(*args, "--games", "6").returncode == 0
    run = gameroom(*args, "--games", "10")
    assert run.returncode == 0, run.stderr
    board = gameroom("ratings", "--game", "q", "--db", postgres_url)
    assert board.returncode == 0 and "dag" in board.stdout and "ejections" in board.stdout
    verify = gameroom("replay", "verify", "--db", postgres_url, "--league", "pg")
    assert verify.returncode == 0, verify.stderr
    assert "10 of 10 replays verified" in verify.stdout


def test_play_replay_show_and_verify(tmp_path: Path) -> None:
    """``play --replay`` writes the match record; ``replay verify`` accepts it and names the
    first differing step of an altered copy; ``replay show`` prints it."""
    replay = tmp_path / "game.jsonl"
    run = gameroom("play", "q", "--players", "3", "--seed", "4", "--replay", str(replay))
    assert run.returncode == 0, run.stderr
    lines = replay.read_text().splitlines()
    header = json.loads(lines[0])
    assert header["game"] == "q" and header["seed"] == 4 and len(header["seats"]) == 3
    assert "result" in json.loads(lines[-1])
    assert gameroom("replay", "verify", str(replay)).returncode == 0
    show = gameroom("replay", "show", str(replay))
    assert show.returncode == 0 and "call take-turn" in show.stdout and "winners:" in show.stdout
    rows = [json.loads(line) for line in lines]
    at = next(i for i, row in enumerate(rows) if row.get("method") == "take-turn" and i > 8)
    rows[at]["reply"] = "pass"
    altered = tmp_path / "altered.jsonl"
    altered.write_text("".join(json.dumps(row) + "\n" for row in rows))
    bad = gameroom("replay", "verify", str(altered))
    assert bad.returncode == 1
    step = int(bad.stderr.split("at step ")[1].split(":")[0])
    assert step > at   # the altered reply is replayed; the rules part from the file after it


@pytest.mark.parametrize("content, message", [
    ("[[bots]]\nname = 'a'\n", "give exactly one of builtin, python, command"),
    ("[[bots]]\nname = 'a'\nbuiltin = 'nope'\n[[bots]]\nname = 'b'\nbuiltin = 'dag'\n", "no built-in player 'nope'"),
    ("bots = 3", "expected one or more [[bots]] tables"),
    ("[[bots]\n", "is not TOML"),
    ("[[bots]]\nname = 'a'\npython = 'nowhere_at_all:Bot'\n", "cannot import 'nowhere_at_all'"),
])
def test_bad_bots_file_is_one_error_line(tmp_path: Path, content: str, message: str) -> None:
    bots = tmp_path / "bots.toml"
    bots.write_text(content)
    run = gameroom("league", "q", "--bots", str(bots), "--games", "1", "--db", f"sqlite:///{tmp_path / 'x.db'}")
    assert run.returncode == 2
    assert run.stderr.startswith("gameroom: error: ") and message in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1


def test_python_class_bot(tmp_path: Path) -> None:
    """A ``module:Class`` bot plays on a guarded seat beside a built-in."""
    from tests.league.conftest import REPO

    db, run = league(tmp_path, "q", [{"name": "careful", "python": "tests.league.bots.pybot:CarefulBot"},
                                     {"name": "dag", "builtin": "dag"}], 4, cwd=REPO)
    assert _count(db, "select count(*) from results r join bots b on b.id = r.bot_id where b.name = 'careful' "
                      "and not r.ejected") == [(4,)]
    assert "careful" in run.stdout


def test_fish_tournament_writes_to_the_database(tmp_path: Path) -> None:
    """The knock-out tournament (core.tournament) writes each game, result and rating."""
    db = tmp_path / "t.db"
    run = gameroom("tournament", "fish", "--players", "7", "--baddie", "bad-turn-choice", "--db", f"sqlite:///{db}",
                   "--tournament-name", "cup")
    assert run.returncode == 0, run.stderr
    games = _count(db, "select count(*) from games where tournament = 'cup'")[0][0]
    assert games >= 3 and f"{games} games written" in run.stdout
    assert _count(db, "select count(*) from ejections e join bots b on b.id = e.bot_id where b.name = 'Bad0'") == [(1,)]
    assert _count(db, "select count(*) from ratings where game = 'fish'") == [(8,)]
    board = gameroom("ratings", "--game", "fish", "--db", f"sqlite:///{db}")
    assert "Bad0" in board.stdout


def test_a_database_server_that_never_answers_is_an_error_not_a_hang(monkeypatch: pytest.MonkeyPatch) -> None:
    """A PostgreSQL URL whose server accepts the connection and then says nothing: the
    connect time-out turns it into one error naming the URL."""
    import socket

    from gameroom.league import db

    monkeypatch.setattr(db, "CONNECT_TIMEOUT_S", 1)
    with socket.create_server(("127.0.0.1", 0)) as silent:
        url = f"postgresql+psycopg://league@127.0.0.1:{silent.getsockname()[1]}/league"
        with pytest.raises(db.DatabaseError, match="cannot open database") as caught:
            db.open_database(url)
    assert url in str(caught.value)
    assert "timeout" in str(caught.value).lower()
