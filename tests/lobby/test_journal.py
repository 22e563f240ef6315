"""The lobby's journal (docs/ARCHITECTURE.md, "The lobby's journal"): a lobby killed with
SIGKILL at random moments and started again from its journal ends every game exactly as
the same games played without a stop; a damaged or torn journal resumes from its last
whole step with one warning; a journal of another format or of an unknown version is
refused with one line; SIGTERM stops cleanly and nothing is replayed twice. Real lobby
processes, real SQLite files, real TCP clients."""

from __future__ import annotations

import contextlib
import json
import os
import random
import socket
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from driver import GAMEROOM, run_gameroom
from tests.lobby.journaled import Person, Restartable

# Every game, with a room of the fewest players: a deterministic person and house bots.
GAMES = ("q", "bazaar", "fish", "evolution", "eriantys")
CONFIG = {"personTimeoutSeconds": 600, "callTimeoutSeconds": 600, "turnTimeoutSeconds": 600,
          "reconnectGraceSeconds": 600, "testHooks": {"roomIds": list(range(2001, 2400))}}
KILL_POINTS = 20   # per game at least (a kill while a room of the game plays: one kill point)
ROOMS = 5   # rooms of each game at once: each kill is a kill point of every one still playing
STALLED = 300   # seconds without a decision or an end in any room: the round hangs


def _entries(lobby: Person) -> dict[str, Any]:
    return {g["name"]: g for g in lobby.client.request({"type": "GET_GAMES"}, "GAMES")["games"]}


def _round(lobby: Restartable, number: int) -> dict[str, Person]:
    """``ROOMS`` rooms of every game, set up one after the other (their seeds and ids
    follow the order), each person then playing in its thread."""
    people = {}
    for copy in range(ROOMS):
        for game in GAMES:
            person = Person(lobby, f"p{number}{copy}{game}", seed=number * 31 + copy * 7 + len(game))
            entry = _entries(person)[game]
            players = max(entry["numberOfPlayers"]) if game == "q" else min(entry["numberOfPlayers"])   # Q's is short
            person.seat(game, players, entry["bots"][0])
            people[f"{game} {copy}"] = person
    for person in people.values():
        person.play()
    return people


def _play(lobby: Restartable, rounds: int, kill_rng: random.Random | None) -> tuple[dict[tuple[int, str], Any],
                                                                                   dict[str, int]]:
    """``rounds`` rounds of every game; with ``kill_rng``, the lobby killed (SIGKILL) and
    started again after a random number of the people's decisions, over and over. Each
    room's record, and the kill points each game met in progress."""
    records: dict[tuple[int, str], Any] = {}
    kills = {game: 0 for game in GAMES}   # kill points per game
    for number in range(rounds):
        people = _round(lobby, number)
        next_kill = sum(p.decisions for p in people.values()) + (kill_rng.randint(1, 4) if kill_rng else 0)
        progress, deadline = -1, 0.0
        while any(p.end is None for p in people.values()):
            # A hang ends the test, slowness does not: the bound is on a time without any
            # decision or end (the round took over seven minutes beside eight busy processes).
            now = sum(p.decisions + (p.end is not None) for p in people.values())
            if now != progress:
                progress, deadline = now, time.monotonic() + STALLED
            assert time.monotonic() < deadline, {g: (p.decisions, p.end) for g, p in people.items()}
            for game, person in people.items():
                assert person.error is None, (game, person.error, lobby.log()[-3000:])
            if kill_rng is not None and sum(p.decisions for p in people.values()) >= next_kill:
                time.sleep(kill_rng.random() * 0.05)   # anywhere in what follows a decision
                in_progress = [room for room, p in people.items() if p.end is None]
                lobby.kill()
                for room in in_progress:
                    kills[room.split()[0]] += 1
                lobby.start()
                next_kill = sum(p.decisions for p in people.values()) + kill_rng.randint(1, 4)
            time.sleep(0.005)
        for game, person in people.items():
            assert person.error is None, (game, person.error)
            records[(number, game)] = person.record()   # game: the game and the room's copy
            person.client.close()
    return records, kills


def _differences(a: Any, b: Any, path: str = "$") -> list[str]:
    """Where two records differ (JSON paths, both values)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b)) for d in _differences(a.get(k), b.get(k), f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {str(a)[:200]} != {str(b)[:200]}"]


def test_games_killed_at_random_steps_end_as_the_uninterrupted_games(tmp_path: Path) -> None:
    rounds = 1
    calm = Restartable(tmp_path / "calm" if (tmp_path / "calm").mkdir() is None else tmp_path, CONFIG)
    try:
        expected, _ = _play(calm, rounds, None)
    finally:
        calm.stop()
    killed = Restartable(tmp_path, CONFIG)
    try:
        got, kills = _play(killed, rounds, random.Random(29))
    except BaseException:
        print(killed.log()[-5000:])
        raise
    finally:
        log = killed.stop()   # a failed round leaves no lobby running after the test
    assert "Traceback" not in log and "internal error" not in log and "cannot be resumed" not in log, log[-5000:]
    for key, record in expected.items():
        assert got[key] == record, (key, _differences(record, got[key]))
    assert all(count >= KILL_POINTS for count in kills.values()), kills


# -- one room, stopped in the middle in every way -------------------------------------------

SINGLE = "fish"   # a game of a dozen decisions or so for the person


def _one_room(lobby: Restartable) -> Person:
    person = Person(lobby, "pf", seed=5)
    entry = _entries(person)[SINGLE]
    person.seat(SINGLE, min(entry["numberOfPlayers"]), entry["bots"][0])
    person.play()
    return person


def _until(person: Person, decisions: int) -> None:
    deadline = time.monotonic() + 120
    while person.decisions < decisions:
        assert person.error is None, person.error
        assert person.end is None, "the game ended before the test stopped the lobby"
        assert time.monotonic() < deadline, "the person was not asked"
        time.sleep(0.005)
    # (what came before the call it answered was committed before the call was sent)


def _finish(person: Person) -> dict[str, Any]:
    assert person.thread is not None
    person.thread.join(timeout=300)
    assert person.error is None, person.error
    return person.record()


@pytest.fixture(scope="module")
def calm_one(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The room's record played without a stop."""
    lobby = Restartable(tmp_path_factory.mktemp("calm"), CONFIG)
    try:
        return _finish(_one_room(lobby))
    finally:
        lobby.stop()


def _rows(path: str, sql: str) -> list[Any]:
    with sqlite3.connect(path) as db:
        return db.execute(sql).fetchall()


def test_a_torn_write_is_not_read_back_and_the_game_resumes_from_the_last_whole_step(
        tmp_path: Path, calm_one: dict[str, Any]) -> None:
    """The lobby is killed; the tail of SQLite's write-ahead log is cut in the middle of a
    frame (a write torn by a crash): the last transaction is not read back, the game
    resumes from the step before and ends as the uninterrupted game."""
    lobby = Restartable(tmp_path, {**CONFIG, "seed": 7})
    person = _one_room(lobby)
    _until(person, 3)
    lobby.kill()
    wal = Path(lobby.state + "-wal")
    assert wal.stat().st_size > 4096, "the journal's last batches are in the write-ahead log"
    with wal.open("r+b") as handle:
        handle.truncate(wal.stat().st_size - 1000)   # mid-frame: its transaction is incomplete
    lobby.start()
    assert _finish(person) == calm_one
    log = lobby.stop()
    assert "cannot be resumed" not in log and "Traceback" not in log, log
    assert _rows(lobby.state, "SELECT COUNT(*) FROM journal_entries") == [(0,)]   # a finished game leaves
    assert _rows(lobby.state, "SELECT COUNT(*) FROM journal_rooms") == [(0,)]


def test_a_damaged_entry_is_found_said_in_one_warning_and_the_game_resumes_before_it(
        tmp_path: Path, calm_one: dict[str, Any]) -> None:
    lobby = Restartable(tmp_path, CONFIG)
    person = _one_room(lobby)
    _until(person, 3)
    lobby.kill()
    with sqlite3.connect(lobby.state) as db:
        (room, seq), = db.execute("SELECT room, seq FROM journal_entries WHERE kind = 'answer' "
                                  "ORDER BY seq LIMIT 1 OFFSET 1").fetchall()
        db.execute("UPDATE journal_entries SET body = replace(body, '\"s\":0', '\"s\":1') WHERE room = ? AND seq = ?",
                   (room, seq))
    lobby.start()
    assert _finish(person) == calm_one
    warnings = [line for line in lobby.log().splitlines() if "warning" in line]
    assert warnings == [f"gameroom: warning: the journal {lobby.state}: room {room}: entry {seq} is damaged or "
                        f"missing; the game resumes from its last whole step ({seq})"], warnings
    lobby.stop()


def test_sigterm_stops_cleanly_and_nothing_is_replayed_twice(tmp_path: Path, calm_one: dict[str, Any]) -> None:
    lobby = Restartable(tmp_path, CONFIG)
    person = _one_room(lobby)
    _until(person, 3)
    assert lobby.terminate() == 0
    assert "lobby stopping (SIGTERM): 1 room(s) kept in the journal" in lobby.log()
    assert dict(_rows(lobby.state, "SELECT key, value FROM journal_meta"))["clean"] == "1"
    before = _rows(lobby.state, "SELECT seq, kind, body FROM journal_entries ORDER BY seq")
    lobby.start()
    assert _finish(person) == calm_one
    log = lobby.stop()
    second = log.split("resumed 1 room(s)", 1)[1]
    assert "game over" in second and second.count("game over") == 1, second
    assert before, "the steps before the stop were journaled"
    assert _rows(lobby.state, "SELECT COUNT(*) FROM journal_entries") == [(0,)]


def test_a_journal_of_another_format_or_an_unknown_version_is_refused_in_one_line(tmp_path: Path) -> None:
    lobby = Restartable(tmp_path, CONFIG)
    lobby.stop()
    with sqlite3.connect(lobby.state) as db:
        db.execute("UPDATE journal_meta SET value = '0' WHERE key = 'format'")
    run = run_gameroom(["lobby", "--port", str(lobby.port), "--config", str(lobby.config_path), "--state",
                        lobby.state], b"", timeout=120)
    assert run.returncode == 2, run
    assert run.stderr.strip().splitlines()[-1] == (
        f"gameroom: error: the journal {lobby.state} is of format 0, this gameroom reads format 1: its games cannot "
        "be resumed; move it aside to start afresh")
    with sqlite3.connect(lobby.state) as db:
        db.execute("UPDATE journal_meta SET value = '1' WHERE key = 'format'")
        db.execute("UPDATE journal_version SET version_num = 'j9999'")
    run = run_gameroom(["lobby", "--port", str(lobby.port), "--config", str(lobby.config_path), "--state",
                        lobby.state], b"", timeout=120)
    assert run.returncode == 2, run
    assert run.stderr.strip().splitlines()[-1] == (
        f"gameroom: error: the journal {lobby.state} is of version j9999, which this gameroom does not know (its "
        "newest is j0002): a newer gameroom wrote it; run that one, or move the journal aside to start afresh")


def test_a_journal_shares_a_results_database_each_with_its_own_migrations(tmp_path: Path) -> None:
    """The web room's --db: the journal's tables and version beside the results', both
    migrated to their newest revisions, neither touching the other's."""
    from gameroom.league.db import open_database
    from gameroom.server.journal_store import JournalStore

    path = tmp_path / "results.db"
    open_database(f"sqlite:///{path}").dispose()
    JournalStore(str(path)).close()
    open_database(f"sqlite:///{path}").dispose()   # the results' history is still its own
    tables = {name for (name,) in _rows(str(path), "SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"journal_meta", "journal_rooms", "journal_entries", "journal_version", "games", "alembic_version"} <= tables
    assert _rows(str(path), "SELECT version_num FROM journal_version") == [("j0002",)]


def _journal_at_j0001(path: Path) -> None:
    """An empty journal made by the first revision of the migrations only, as a gameroom of
    that revision made its users' files."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine

    from gameroom.server.journal_store import MIGRATIONS

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "j0001")
    engine.dispose()


def _as_j0001_wrote_it(journal: str, old: Path, secrets: dict[str, str]) -> None:
    """The rows of the lobby's ``journal`` written into ``old`` (a journal at j0001) as that
    revision wrote them: no scope, and each held seat's reconnect secret in plain text
    (``secrets``: by the seat's name; j0001 kept the secret itself)."""
    from gameroom.server.journal_store import checksum

    with sqlite3.connect(journal) as new, sqlite3.connect(old) as db:
        db.executemany("INSERT INTO journal_meta (key, value) VALUES (?, ?)",
                       new.execute("SELECT key, value FROM journal_meta WHERE scope = 'lobby'").fetchall())
        for room, body in new.execute("SELECT room, body FROM journal_rooms WHERE scope = 'lobby'").fetchall():
            row = json.loads(body)
            for seat in row["seats"]:
                if "secret_sha256" in seat:
                    del seat["secret_sha256"]
                    seat["secret"] = secrets.get(seat["name"])
            text = json.dumps(row, ensure_ascii=False, separators=(",", ":"))
            db.execute("INSERT INTO journal_rooms (room, body, crc) VALUES (?, ?, ?)", (room, text, checksum(room, text)))
        db.executemany("INSERT INTO journal_entries (room, seq, at, kind, body, crc) VALUES (?, ?, ?, ?, ?, ?)",
                       new.execute("SELECT room, seq, at, kind, body, crc FROM journal_entries "
                                   "WHERE scope = 'lobby'").fetchall())


def test_a_journal_of_the_first_revision_is_migrated_on_start_and_its_rooms_resume(
        tmp_path: Path, calm_one: dict[str, Any]) -> None:
    """A lobby of the first revision killed mid-game: its journal (the j0001 tables, a held
    seat's secret in plain text) is migrated when the lobby starts again, the game resumes
    and ends as the uninterrupted one, and the file no longer holds the secret."""
    lobby = Restartable(tmp_path, CONFIG)
    person = _one_room(lobby)
    _until(person, 3)
    lobby.kill()
    old = tmp_path / "old-journal.db"
    _journal_at_j0001(old)
    assert _rows(str(old), "SELECT version_num FROM journal_version") == [("j0001",)]
    _as_j0001_wrote_it(lobby.state, old, {person.name: person.secret})
    assert person.secret.encode() in old.read_bytes()
    lobby.state = str(old)
    lobby.start()
    assert _finish(person) == calm_one
    assert person.returns >= 1
    log = lobby.stop()
    assert "resumed 1 room(s)" in log and "Traceback" not in log and "warning" not in log, log
    assert _rows(str(old), "SELECT version_num FROM journal_version") == [("j0002",)]
    _no_secret_in(old, person.secret)


def _no_secret_in(path: Path, secret: str) -> None:
    """Neither the database nor its write-ahead log holds ``secret``: only its digest was
    ever written, or the migration overwrote it (not even a free page keeps it)."""
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")   # as the lobby's last connection leaves it
    for file in (path, Path(f"{path}-wal")):
        if file.exists():
            assert secret.encode() not in file.read_bytes(), file


def test_the_journal_keeps_no_reconnect_secret_only_its_digest(tmp_path: Path, calm_one: dict[str, Any]) -> None:
    """A held seat's secret is journaled as its digest: the lobby killed mid-game, the
    journal holds no byte of the secret the person was handed, and the person comes back
    with it all the same."""
    from gameroom.server.lobby_identity import secret_digest

    lobby = Restartable(tmp_path, CONFIG)
    person = _one_room(lobby)
    _until(person, 3)
    lobby.kill()
    for file in (Path(lobby.state), Path(lobby.state + "-wal")):
        if file.exists():
            assert person.secret.encode() not in file.read_bytes(), file
    seats = [seat for (body,) in _rows(lobby.state, "SELECT body FROM journal_rooms") for seat in json.loads(body)["seats"]]
    assert [seat["secret_sha256"] for seat in seats if seat["name"] == person.name] == [secret_digest(person.secret)]
    lobby.start()
    assert _finish(person) == calm_one and person.returns >= 1
    lobby.stop()
    _no_secret_in(Path(lobby.state), person.secret)


@pytest.mark.parametrize("game", ["fish", "eriantys"])   # a room played by calls, one played by events
def test_a_lobby_killed_after_journaling_a_start_tells_a_returning_player_start_game(
        tmp_path: Path, calm_one: dict[str, Any], game: str) -> None:
    """The lobby dies (SIGKILL, ``GAMEROOM_JOURNAL_STOP_AFTER``) right after it committed a
    game's start, before it wrote ``START_GAME`` or the ``ACK`` of the ``ADD_BOT`` that
    filled the room: the person never heard that the game started. Back with its secret,
    it is told ``START_GAME``, then its state (and call), and plays the game to its end —
    the same game as without the stop."""
    from gameroom.server.journal import STOP_VARIABLE
    from tests.lobby.rooms import RoomClient

    lobby = Restartable(tmp_path, CONFIG)
    lobby.env = {**os.environ, STOP_VARIABLE: "start"}
    lobby.kill()
    lobby.start()
    person = Person(lobby, "pf", seed=5)
    entry = _entries(person)[game]
    c = person.client
    c.request({"type": "CREATE_ROOM", "game": game, "numberOfPlayers": min(entry["numberOfPlayers"]),
               "isPrivate": True, "person": True, "views": True}, "ROOM_ID")
    c.send({"type": "ADD_BOT", "strategy": entry["bots"][0]})
    heard = []
    while (m := c.recv()) is not None:
        heard.append(m["type"])
    assert lobby.proc is not None and lobby.proc.wait(timeout=60) == -9, "the lobby stopped itself"
    assert "START_GAME" not in heard and "ACK" not in heard, heard
    lobby.env = None
    lobby.start()
    back = RoomClient(socket.create_connection(("127.0.0.1", lobby.port), timeout=120))
    assert back.request({"type": "LOGIN", "username": "pf", "secret": person.secret}, "ACK")["type"] == "ACK"
    start = back.recv()
    assert start["type"] == "START_GAME" and start["players"][0] == "pf", start
    person.client, person.kept = back, []
    person.play()
    record = _finish(person)
    assert person.end is not None and person.end["type"] == "END_GAME", person.end
    if game == SINGLE:
        assert record == calm_one
    log = lobby.stop()
    assert "resumed 1 room(s)" in log and "Traceback" not in log, log


def test_the_journal_knows_its_newest_revision() -> None:
    """A journal at ``HEAD`` opens without Alembic: ``HEAD`` is the migrations' head."""
    from gameroom.server.journal_store import HEAD, newest_revision

    assert newest_revision() == HEAD


def test_a_journal_on_postgresql_resumes_a_killed_game(tmp_path: Path, postgres_url: str,
                                                       calm_one: dict[str, Any]) -> None:
    lobby = Restartable(tmp_path, CONFIG, state=postgres_url)
    person = _one_room(lobby)
    _until(person, 3)
    lobby.kill()
    lobby.start()
    assert _finish(person) == calm_one
    log = lobby.stop()
    assert "resumed 1 room(s)" in log and "Traceback" not in log, log


def _clients(lobby: Restartable, game: str, *flags: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([*GAMEROOM, "clients", game, "--port", str(lobby.port), "--rooms", "4", "--quiet",
                             *flags], stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _outcome(clients: subprocess.Popen[bytes]) -> list[Any]:
    out, err = clients.communicate(timeout=600)
    assert clients.returncode == 0, err.decode()
    return sorted((line["room"], line["winners"], line["consistent"])
                  for line in map(json.loads, out.decode().splitlines()))


@pytest.mark.parametrize(("game", "flags"), [("q", ("--lobby", "--players", "2")), ("eriantys", ("--players", "2"))])
def test_remote_bots_log_in_again_and_get_their_seats_back(tmp_path: Path, game: str, flags: tuple[str, ...]) -> None:
    """``gameroom clients --reconnect``: bots of the spec (no secret: their address proves
    them) whose lobby is killed mid-game log in again by themselves and finish every room,
    each bot's winners those of the final position it saw — in a room played by events
    (Eriantys) too, where a bot back in its seat sees whose turn it is from the GAME_STATE
    it is sent. (Four rooms start at once, so which seed each gets is the order they fill
    in: the exact games are the property test's, with rooms set up one after the other.)"""
    config = {**CONFIG, "maxConnectionsPerAddress": 0, "maxRoomsPerAddress": 0}
    lobby = Restartable(tmp_path, config)
    clients = _clients(lobby, game, *flags, "--reconnect", "120")
    deadline, playing = time.monotonic() + 120, set()
    while len(playing) < 4:   # every room's game under way: a step of each journaled
        assert time.monotonic() < deadline and clients.poll() is None, lobby.log()
        with contextlib.suppress(sqlite3.OperationalError):   # the lobby is making its tables
            playing |= {room for (room,) in _rows(lobby.state, "SELECT DISTINCT room FROM journal_entries")}
        time.sleep(0.005)
    lobby.kill()
    lobby.start()
    got = _outcome(clients)
    log = lobby.stop()
    assert "resumed" in log and "Traceback" not in log, log
    assert len(got) == 4 and all(consistent for _room, _winners, consistent in got), got
