"""Records that cannot be forged quietly (issue 17, finding 2): each forgery of a real
replay file or a real SQLite results database is reported by ``gameroom replay verify``
with a non-zero exit status, and the line it is on where there is one: a flipped winner,
a changed score, a removed or duplicated result line, an edited call line, two lines
swapped, a line deleted or inserted, a game cut out of a session file, the database's
winner flipped, its replay cut short or its digest cleared. Replays written before digest
chains still verify by re-running, with a note."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from gameroom.league.packing import pack, unpack
from gameroom.core.chain import DigestChain, unseal
from tests.league.conftest import gameroom, league

CHANGED = "digest does not match: the line was changed, or a line before it removed/reordered"


@pytest.fixture(scope="module")
def q_replay(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real replay: `gameroom play q --seed 3 --replay FILE`."""
    path = tmp_path_factory.mktemp("forged") / "q.jsonl"
    run = gameroom("play", "q", "--seed", "3", "--replay", str(path))
    assert run.returncode == 0, run.stderr
    return path


@pytest.fixture(scope="module")
def league_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real SQLite results database of a 3-game Q league."""
    folder = tmp_path_factory.mktemp("forged-db")
    bots = [{"name": "Ann", "builtin": "dag"}, {"name": "Bob", "builtin": "ldasg"}, {"name": "Cyd", "builtin": "dag"}]
    return league(folder, "q", bots, 3, "--workers", "1")[0]


def lines_of(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def resealed(lines: list[str]) -> list[str]:
    """The lines sealed again from scratch: a forger who knows how the chain is made."""
    chain = DigestChain()
    return [chain.seal(unseal(line)[0]) for line in lines]


def edit_json(line: str, change) -> str:
    """``line`` parsed, changed by ``change(row)``, written back as the recorder writes."""
    row = json.loads(line)
    change(row)
    return json.dumps(row, ensure_ascii=False)


def verify(*args: str) -> tuple[int, str]:
    run = gameroom("replay", "verify", *args)
    return run.returncode, run.stdout + run.stderr


def test_an_intact_replay_verifies_with_its_chain(q_replay: Path) -> None:
    status, out = verify(str(q_replay))
    assert status == 0 and "verified (digest chain intact, " in out, out
    assert all(unseal(line)[1] is not None for line in lines_of(q_replay))


def test_a_flipped_winner_is_reported(q_replay: Path, tmp_path: Path) -> None:
    lines = lines_of(q_replay)
    result = json.loads(lines[-1])["result"]
    loser = next(name for group in result["ranking"][1:] for name in group)

    def flip(row: dict) -> None:
        row["result"]["winners"] = [loser]

    forged = write(tmp_path / "flip.jsonl", [*lines[:-1], edit_json(lines[-1], flip)])
    status, out = verify(str(forged))
    assert status == 1, out
    assert f"line {len(lines)}: {CHANGED}" in out
    assert f"winners: rules {json.dumps(result['winners'])} / replay {json.dumps([loser])}" in out
    # A forger who seals the whole file again keeps the chain intact: the re-run still tells.
    status, out = verify(str(write(tmp_path / "flip-sealed.jsonl", resealed([*lines[:-1], edit_json(lines[-1], flip)]))))
    assert status == 1 and "digest does not match" not in out, out
    assert "the recorded result differs from the rules'" in out and f"line {len(lines)}: the result line differs" in out


def test_a_changed_score_is_reported(q_replay: Path, tmp_path: Path) -> None:
    lines = lines_of(q_replay)
    winner = json.loads(lines[-1])["result"]["winners"][0]

    def score(row: dict) -> None:
        row["result"]["scores"][winner] += 30

    status, out = verify(str(write(tmp_path / "score.jsonl", resealed([*lines[:-1], edit_json(lines[-1], score)]))))
    assert status == 1 and "the recorded result differs from the rules' (scores: rules " in out, out


def test_a_result_line_edited_by_seats_or_by_names_only_is_reported(q_replay: Path, tmp_path: Path) -> None:
    """Result lines name players by seat and by name: a forger who edits one side (the
    seats, which the parsed result is built from, or the names, which people read) is
    told both by the line's own disagreement and by the rules' result."""
    lines = lines_of(q_replay)
    result = json.loads(lines[-1])["result"]
    loser = next(seat for group in result["ranking_seats"][1:] for seat in group)

    def seats(row: dict) -> None:
        row["result"]["winner_seats"] = [loser]

    status, out = verify(str(write(tmp_path / "seats.jsonl", resealed([*lines[:-1], edit_json(lines[-1], seats)]))))
    assert status == 1, out
    assert f"line {len(lines)}: the result line's names disagree with its seats" in out
    assert f"winner_seats: rules {json.dumps(result['winner_seats'])} / replay {json.dumps([loser])}" in out

    def both(row: dict) -> None:   # consistent on both sides: only the rules tell
        row["result"]["winner_seats"] = [loser]
        row["result"]["winners"] = [result["names"][loser]]

    forged = [*lines[:-2], edit_json(lines[-2], both), edit_json(lines[-1], both)]
    status, out = verify(str(write(tmp_path / "both.jsonl", resealed(forged))))
    assert status == 1 and "disagree with its seats" not in out, out
    assert (f'end differs (result: rules {{"winners": {json.dumps(result["winners"])}' in out
            and f'/ replay {{"winners": {json.dumps([result["names"][loser]])}' in out), out


def test_a_removed_result_line_is_reported(q_replay: Path, tmp_path: Path) -> None:
    lines = lines_of(q_replay)
    status, out = verify(str(write(tmp_path / "cut.jsonl", lines[:-1])))
    assert status == 1, out
    assert f"line {len(lines)}: no result line after the end event (line {len(lines) - 1}): it was removed" in out
    assert "the replay has no result line" in out


def test_a_duplicated_result_line_is_reported(q_replay: Path, tmp_path: Path) -> None:
    lines = lines_of(q_replay)
    status, out = verify(str(write(tmp_path / "twice.jsonl", [*lines, lines[-1]])))
    assert status == 1, out
    assert f"line {len(lines) + 1}: {CHANGED}" in out
    assert f"line {len(lines) + 1}: a second result line (the first is line {len(lines)})" in out
    # sealed again, the chain holds, the layout still does not
    status, out = verify(str(write(tmp_path / "twice-sealed.jsonl", resealed([*lines, lines[-1]]))))
    assert status == 1 and f"line {len(lines) + 1}: a second result line" in out, out


def test_an_edited_call_line_is_reported_by_its_number(q_replay: Path, tmp_path: Path) -> None:
    """A latency is not something the rules can re-derive: only the chain shows the edit."""
    lines = lines_of(q_replay)
    at = next(i for i, line in enumerate(lines) if '"event": "call"' in line and i > 3)

    def slower(row: dict) -> None:
        row["latency"] = 5.0

    status, out = verify(str(write(tmp_path / "latency.jsonl", [*lines[:at], edit_json(lines[at], slower),
                                                                  *lines[at + 1:]])))
    assert status == 1 and f"line {at + 1}: {CHANGED}" in out, out
    assert out.count(CHANGED) == 1      # one edit, one report


def test_two_swapped_lines_are_reported(q_replay: Path, tmp_path: Path) -> None:
    lines = lines_of(q_replay)
    swapped = [*lines[:5], lines[6], lines[5], *lines[7:]]
    status, out = verify(str(write(tmp_path / "swap.jsonl", swapped)))
    assert status == 1, out
    assert f"line 6: {CHANGED}" in out and f"line 7: {CHANGED}" in out
    assert not re.search(r"line [1-5]: digest", out)


def test_a_deleted_and_an_inserted_line_are_reported(q_replay: Path, tmp_path: Path) -> None:
    lines = lines_of(q_replay)
    status, out = verify(str(write(tmp_path / "deleted.jsonl", [*lines[:9], *lines[10:]])))
    assert status == 1 and f"line 10: {CHANGED}" in out, out
    status, out = verify(str(write(tmp_path / "inserted.jsonl", [*lines[:9], lines[8], *lines[9:]])))
    assert status == 1 and f"line 10: {CHANGED}" in out, out
    bare = unseal(lines[8])[0]
    status, out = verify(str(write(tmp_path / "bare.jsonl", [*lines[:9], bare, *lines[9:]])))
    assert status == 1 and "line 10: no digest: the line was inserted, or its digest removed" in out, out


def test_a_replay_recorded_before_chains_still_verifies(q_replay: Path, tmp_path: Path) -> None:
    old = write(tmp_path / "old.jsonl", [unseal(line)[0] for line in lines_of(q_replay)])
    status, out = verify(str(old))
    assert status == 0, out
    assert "no digest chain (recorded before replays carried digest chains" in out and "verified (" in out
    lines = lines_of(old)   # and an old file is still checked by re-running it

    def flip(row: dict) -> None:
        row["result"]["winners"] = []

    status, out = verify(str(write(tmp_path / "old-flip.jsonl", [*lines[:-1], edit_json(lines[-1], flip)])))
    assert status == 1 and "the recorded result differs from the rules'" in out, out


def test_a_game_cut_out_of_a_tournament_file_is_reported(tmp_path: Path) -> None:
    """A session file holds many games on one chain: cutting one out breaks the chain at the
    next game's header; cutting the last one out leaves a session whose re-run asks for
    calls the file no longer holds."""
    replay = tmp_path / "cup.jsonl"
    run = gameroom("tournament", "fish", "--players", "6", "--seed", "3", "--replay", str(replay))
    assert run.returncode == 0, run.stderr
    lines = lines_of(replay)
    headers = [i for i, line in enumerate(lines) if '"event"' not in line and '"game"' in line]
    assert len(headers) >= 3
    status, out = verify(str(replay))
    assert status == 0, out
    middle = [*lines[:headers[1]], *lines[headers[2]:]]
    status, out = verify(str(write(tmp_path / "middle.jsonl", middle)))
    assert status == 1 and f"line {headers[1] + 1}: {CHANGED}" in out, out
    # the last game (by header) removed: the chain is whole, the session is not
    status, out = verify(str(write(tmp_path / "last.jsonl", lines[:headers[-1]])))
    assert status == 1 and "once more than the replay holds" in out, out


def _db_verify(db: Path) -> tuple[int, str]:
    return verify("--db", f"sqlite:///{db}")


def _copy(db: Path, to: Path) -> Path:
    source = sqlite3.connect(db)
    target = sqlite3.connect(to)
    source.backup(target)
    source.close()
    target.close()
    return to


def test_an_intact_database_verifies(league_db: Path) -> None:
    status, out = _db_verify(league_db)
    assert status == 0 and "3 of 3 replays verified" in out, out


def test_the_databases_winner_flipped_is_reported(league_db: Path, tmp_path: Path) -> None:
    db = _copy(league_db, tmp_path / "flip.sqlite")
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE results SET winner = 1 - winner WHERE game_id = 2")
    status, out = _db_verify(db)
    assert status == 1 and "2 of 3 replays verified, 1 altered" in out, out
    assert re.search(r"game 2 \(league index 1\): database: results row of \w+ says rank 1, .*not a winner, "
                     r"the replay rank 1, .*winner", out), out


def test_database_rows_removed_or_changed_are_reported(league_db: Path, tmp_path: Path) -> None:
    db = _copy(league_db, tmp_path / "rows.sqlite")
    with sqlite3.connect(db) as connection:
        connection.execute("DELETE FROM results WHERE id = (SELECT MIN(id) FROM results WHERE game_id = 1)")
        connection.execute("UPDATE results SET score = 999 WHERE game_id = 3 AND rank = 1")
        connection.execute("UPDATE seats SET position = 7 WHERE game_id = 2 AND position = 0")
    status, out = _db_verify(db)
    assert status == 1 and "0 of 3 replays verified, 3 altered" in out, out
    assert "game 1 (league index 0): database: results has no row of" in out
    assert re.search(r"game 3 \(league index 2\): database: results row of \w+ says rank 1, score 999", out), out
    assert "game 2 (league index 1): database: seats rows" in out


def test_a_stored_replay_cut_short_or_unsealed_is_reported(league_db: Path, tmp_path: Path) -> None:
    db = _copy(league_db, tmp_path / "short.sqlite")
    with sqlite3.connect(db) as connection:
        blob, = connection.execute("SELECT replay FROM games WHERE id = 1").fetchone()
        lines = unpack(blob).splitlines()
        # the last call and the end cut out: chain intact up to there, but not its head
        short = "".join(line + "\n" for line in [*lines[:-3], lines[-1]])
        connection.execute("UPDATE games SET replay = ? WHERE id = 1", (pack(short),))
        connection.execute("UPDATE games SET digest = NULL WHERE id = 2")
    status, out = _db_verify(db)
    assert status == 1, out
    assert f"game 1 (league index 0): line {len(lines) - 2}: {CHANGED}" in out
    assert "game 2 (league index 1): the database keeps no digest for this game although its replay is chained" in out
    with sqlite3.connect(db) as connection:
        blob, = connection.execute("SELECT replay FROM games WHERE id = 3").fetchone()
        lines = unpack(blob).splitlines()
        cut = "".join(line + "\n" for line in lines[:-2])   # the end and the result removed
        connection.execute("UPDATE games SET replay = ? WHERE id = 3", (pack(cut),))
    status, out = _db_verify(db)
    assert status == 1 and f"game 3 (league index 2): line {len(lines) - 2}: the replay's chain ends in " in out, out


def test_games_stored_before_chains_verify_after_the_migration(tmp_path: Path) -> None:
    """A database of schema 0001 (no games.digest) with a game whose replay has no chain:
    opening it migrates it; the old game verifies by re-running, with the note, and games
    written afterwards carry their chain."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine

    from gameroom.league.db import MIGRATIONS

    db = tmp_path / "old.sqlite"
    engine = create_engine(f"sqlite:///{db}")
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0001")
    engine.dispose()
    replay = tmp_path / "q.jsonl"
    assert gameroom("play", "q", "--seed", "5", "--replay", str(replay)).returncode == 0
    old = "".join(unseal(line)[0] + "\n" for line in lines_of(replay))
    rows = [json.loads(line) for line in old.splitlines()]
    header, result = rows[0], rows[-1]["result"]
    with sqlite3.connect(db) as connection:
        for at, name in enumerate(header["seats"], 1):
            connection.execute("INSERT INTO bots (id, name, kind, spec) VALUES (?, ?, 'builtin', ?)",
                               (at, name, json.dumps({"name": name})))
        connection.execute("INSERT INTO games (id, game, seed, config, finished_at, replay) VALUES "
                           "(1, 'q', 5, ?, '2026-01-01 00:00:00', ?)",
                           (json.dumps(header["config"]), pack(old)))
        ranks = {name: rank for rank, group in enumerate(result["ranking"], 1) for name in group}
        for at, name in enumerate(header["seats"], 1):
            connection.execute("INSERT INTO seats (game_id, position, bot_id) VALUES (1, ?, ?)", (at - 1, at))
            connection.execute("INSERT INTO results (game_id, bot_id, rank, score, winner, ejected) "
                               "VALUES (1, ?, ?, ?, ?, 0)",
                               (at, ranks[name], json.dumps(result["scores"][name]), name in result["winners"]))
    status, out = _db_verify(db)
    assert status == 0, out
    assert "game 1: verified (" in out and "game 1: no digest chain (recorded before replays carried" in out
    from gameroom.core.record import MatchRecord
    from gameroom.league.db import open_database, record_game

    engine = open_database(f"sqlite:///{db}")
    record_game(engine, MatchRecord.from_jsonl(old))    # the same game written again, now
    engine.dispose()
    with sqlite3.connect(db) as connection:
        digests = [row[0] for row in connection.execute("SELECT digest FROM games ORDER BY id")]
    assert digests[0] is None and re.fullmatch("[0-9a-f]{64}", digests[1])
    status, out = _db_verify(db)
    assert status == 0 and "2 of 2 replays verified; 1 with no digest chain" in out, out


def test_a_bot_seated_twice_has_its_rows_compared_seat_by_seat(tmp_path: Path) -> None:
    """Names may repeat (a bot seated twice): its two results rows are compared with its
    two seats in order, so flipping one of them is reported, and an intact game verifies."""
    from gameroom.core.context import MatchContext
    from gameroom.games import registry
    from gameroom.league.db import open_database, record_game
    from gameroom.league.replay import ReplayRecorder

    game = registry.game("q")
    names = ["twin", "twin", "solo"]
    seats = game.seats([next(iter(game.strategies))] * 3, 3, names)
    recorder = ReplayRecorder("q", 3, {"seats": [{"name": n, "bot": {"name": n}} for n in names]}, names)
    game.play(3, seats, MatchContext(observers=[recorder]))
    db = tmp_path / "twins.sqlite"
    engine = open_database(f"sqlite:///{db}")
    record_game(engine, recorder.record, tournament="twins")
    engine.dispose()
    status, out = _db_verify(db)
    assert status == 0 and "game 1: verified (digest chain intact, " in out, out
    with sqlite3.connect(db) as connection:
        second = connection.execute("SELECT MAX(r.id) FROM results r JOIN bots b ON b.id = r.bot_id "
                                    "WHERE b.name = 'twin'").fetchone()[0]
        connection.execute("UPDATE results SET winner = 1 - winner WHERE id = ?", (second,))
    status, out = _db_verify(db)
    assert status == 1 and "database: results row of twin (its seat 2 of 2) says " in out, out
