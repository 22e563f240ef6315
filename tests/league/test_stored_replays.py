"""Stored replays: packed with Zstandard (a long Q game's 27.8 MB of JSON Lines stored in a
small fraction of what zlib made of it), databases of zlib replays repacked by migration
0006 on SQLite and PostgreSQL with every replay still verifying, a retention rule that
lets replays go and keeps every result, replay files put one after the other and packed
files verified, and the streaming re-run (``verify_lines``) judging replays exactly as
``verify`` does.

The long game: two seats that place one tile a turn (the first candidate of Q's own
step), until the pile is empty — 1,080 turns, a map grown to a thousand tiles, the
shape of a beginner's bot that made the finding's 6.5 MB stored game."""

from __future__ import annotations

import json
import shutil
import sqlite3
import zlib
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sqlalchemy")

from alembic import command  # noqa: E402
from alembic.config import Config  # noqa: E402
from sqlalchemy import create_engine, select  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402

from gameroom.core.record import MatchRecord  # noqa: E402
from gameroom.league.db import MIGRATIONS, GameRow, ReplayNotKept, open_database, prune_replays, record_game, replay_of  # noqa: E402
from gameroom.league.packing import is_packed, pack, unpack, unpack_frames, unpack_lines  # noqa: E402
from gameroom.league.replay import verify, verify_lines  # noqa: E402
from gameroom.league.table import TableTask, record_table  # noqa: E402
from tests.league.conftest import gameroom  # noqa: E402
from tests.long_games import long_q_game  # noqa: E402


def short_games(count: int, game: str = "q", first: int = 0) -> list[MatchRecord]:
    strategies = {"q": ("dag", "ldasg"), "fish": ("greedy", "greedy")}[game]
    bots = tuple({"name": f"{s}{k}", "builtin": s} for k, s in enumerate(strategies))
    return [record_table(TableTask(game, i, 1000 + i, bots)) for i in range(first, first + count)]


def test_a_long_game_packs_small_and_unpacks_the_same() -> None:
    text = long_q_game().record.to_jsonl()
    assert len(text) > 20_000_000   # the finding's download was 27.8 MB
    packed, old = pack(text), zlib.compress(text.encode(), 1)
    assert is_packed(packed) and not is_packed(old)
    assert len(packed) * 8 < len(old)   # zlib's 32 KB window never reaches the map a call repeated
    assert unpack(packed) == text == unpack(old)
    assert list(unpack_lines(packed)) == text.splitlines() == list(unpack_lines(old))
    assert unpack_frames(packed + pack("one more line\n")) == text + "one more line\n"
    for broken in (packed[:len(packed) // 2], b"\x28\xb5\x2f\xfd" + b"\x00" * 20, b"not a replay"):
        with pytest.raises(ValueError):
            unpack(broken)
        with pytest.raises(ValueError):
            list(unpack_lines(broken))


def test_the_streaming_re_run_judges_every_replay_as_verify_does() -> None:
    records = short_games(3) + short_games(1, "fish")
    texts = [r.to_jsonl() for r in records]
    lines = texts[0].splitlines()
    reply = next(at for at, line in enumerate(lines) if '"take-turn"' in line)
    changed = json.loads(lines[reply])
    changed["reply"] = "pass"
    forged = [
        texts[1].replace('"score": 0', '"score": 1', 1),                       # an argument edited
        "\n".join([*lines[:reply], json.dumps(changed), *lines[reply + 1:]]),   # a reply edited
        "\n".join(lines[:reply]),                                               # cut short
        "\n".join(lines[:-1] + [lines[-1].replace('"winners": [', '"winners": ["nobody", ', 1)]),
        "\n".join(lines + lines[1:3]),                                          # calls after the end
    ]
    for text in texts + forged:
        expected = verify(MatchRecord.from_jsonl(text))
        assert verify_lines(text.splitlines()) == expected
    assert all(verify_lines(text.splitlines()) is None for text in texts)
    assert all(verify_lines(text.splitlines()) is not None for text in forged)
    # the observers see the re-run's states as verify's do
    seen: dict[str, list[Any]] = {"verify": [], "lines": []}
    verify(records[3], [lambda e: seen["verify"].append(e.data) if e.kind == "state" else None])
    verify_lines(texts[3].splitlines(), [lambda e: seen["lines"].append(e.data) if e.kind == "state" else None])
    assert seen["verify"] == seen["lines"] and seen["lines"]


def test_replay_files_put_together_or_packed_verify(tmp_path: Path) -> None:
    records = short_games(2)
    one, two = (tmp_path / "one.jsonl", tmp_path / "two.jsonl")
    one.write_text(records[0].to_jsonl())
    two.write_text(records[1].to_jsonl())
    both = tmp_path / "both.jsonl"
    both.write_text(one.read_text() + two.read_text())
    run = gameroom("replay", "verify", str(both))
    assert run.returncode == 0 and "2 of 2 replays verified" in run.stdout, run.stdout + run.stderr
    packed = tmp_path / "both.jsonl.zst"
    packed.write_bytes(pack(one.read_text()) + pack(two.read_text()))
    run = gameroom("replay", "verify", str(packed))
    assert run.returncode == 0 and "2 of 2 replays verified" in run.stdout, run.stdout + run.stderr
    # a header whose chain follows neither the line before it nor nothing is still a break
    lines = both.read_text().splitlines()
    second = next(at for at, line in enumerate(lines) if at and line.startswith('{"game"'))
    forged = tmp_path / "forged.jsonl"
    forged.write_text("\n".join(lines[:second - 1] + lines[second:]) + "\n")   # the first game's result cut
    run = gameroom("replay", "verify", str(forged))
    assert run.returncode == 1 and "altered" in run.stdout + run.stderr, run.stdout + run.stderr
    broken = tmp_path / "broken.jsonl.zst"
    broken.write_bytes(pack(one.read_text())[:-9])
    run = gameroom("replay", "verify", str(broken))
    assert run.returncode == 2 and "packed but cannot be unpacked" in run.stderr, run.stderr


def _zlib_database(url: str, records: list[MatchRecord]) -> None:
    """A results database at migration 0004 whose replays are zlib blobs, as written before."""
    engine = create_engine(url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0004")
    for record in records:
        text = record.to_jsonl()
        record_game(engine, record, tournament="old", replay=zlib.compress(text.encode(), 1))
    engine.dispose()


def _check_migrated(url: str, records: list[MatchRecord], command_line: bool) -> None:
    engine = open_database(url)
    with Session(engine) as session:
        rows = session.scalars(select(GameRow).order_by(GameRow.id)).all()
        assert [is_packed(row.replay or b"") for row in rows] == [True] * len(records)
        assert [replay_of(row) for row in rows] == [r.to_jsonl() for r in records]
        assert all(verify(MatchRecord.from_jsonl(replay_of(row))) is None for row in rows)
    if not command_line:   # (what replay verify --db says is the same on either database: once is enough)
        engine.dispose()
        return
    run = gameroom("replay", "verify", "--db", url)
    assert run.returncode == 0 and f"{len(records)} of {len(records)} replays verified" in run.stdout, run.stderr
    # a replay may now be let go (retention): its game is listed as not kept, nothing altered
    with Session(engine) as session, session.begin():
        session.get(GameRow, 1).replay = None   # type: ignore[union-attr]
    run = gameroom("replay", "verify", "--db", url)
    assert run.returncode == 0, run.stderr
    assert f"{len(records) - 1} of {len(records)} replays verified, 1 not kept" in run.stdout, run.stdout
    run = gameroom("replay", "verify", "--db", url, "--id", "1")
    assert run.returncode == 1 and "its replay was not kept" in run.stderr, run.stderr
    with Session(engine) as session:
        with pytest.raises(ReplayNotKept):
            replay_of(session.get(GameRow, 1))   # type: ignore[arg-type]
    engine.dispose()


def test_migration_0006_repacks_the_zlib_replays_of_a_sqlite_database(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    records = short_games(3)
    _zlib_database(url, records)
    before = (tmp_path / "old.db").stat().st_size
    _check_migrated(url, records, command_line=True)
    with sqlite3.connect(tmp_path / "old.db") as connection:
        head = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    assert head is not None and head[0] >= "0006"   # migrated at least through the repacking
    assert before > 0


def fresh_database(server_url: str, name: str) -> str:
    """The URL of a new, empty database ``name`` on the tests' PostgreSQL server."""
    from sqlalchemy.engine import make_url

    base = make_url(server_url)
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f"DROP DATABASE IF EXISTS {name}")
        connection.exec_driver_sql(f"CREATE DATABASE {name}")
    admin.dispose()
    return base.set(database=name).render_as_string(hide_password=False)


def test_migration_0006_on_postgresql(postgres_url: str) -> None:
    url = fresh_database(postgres_url, "migration_0006")
    records = short_games(3)
    _zlib_database(url, records)
    _check_migrated(url, records, command_line=False)


@pytest.mark.parametrize("where", ["sqlite", "postgresql"])
def test_a_retention_rule_keeps_each_bots_latest_replays_and_every_result(where: str, tmp_path: Path,
                                                                          request: pytest.FixtureRequest) -> None:
    url = (f"sqlite:///{tmp_path / 'kept.db'}" if where == "sqlite"
           else fresh_database(request.getfixturevalue("postgres_url"), "retention"))
    engine = open_database(url)
    # three bots, every pair in turn: a0-b1, b1-c2, c2-a0, ...
    names = ["a0", "b1", "c2"]
    played = []
    for i in range(9):
        pair = (names[i % 3], names[(i + 1) % 3])
        bots = tuple({"name": n, "builtin": "dag"} for n in pair)
        record = record_table(TableTask("q", i, 500 + i, bots))
        game_id = record_game(engine, record, tournament="kept", bots={n: {"name": n, "builtin": "dag"} for n in pair})
        played.append((game_id, pair))
        with Session(engine) as session, session.begin():
            prune_replays(session, pair, 2, GameRow.tournament == "kept")
    with Session(engine) as session:
        kept = {row.id for row in session.scalars(select(GameRow).where(GameRow.replay.is_not(None)))}
        assert session.scalar(select(GameRow.id).where(GameRow.replay.is_(None))) is not None
        total = len(session.scalars(select(GameRow)).all())
    assert total == 9
    for name in names:   # each bot's two latest games kept their replays
        latest = [game_id for game_id, pair in played if name in pair][-2:]
        assert set(latest) <= kept
    # a game none of whose bots keeps it went
    for game_id, pair in played:
        needed = any(game_id in [g for g, p in played if n in p][-2:] for n in pair)
        assert (game_id in kept) == needed
    if where == "sqlite":
        run = gameroom("replay", "verify", "--db", url)
        assert run.returncode == 0 and f"{len(kept)} of 9 replays verified, {9 - len(kept)} not kept" in run.stdout, \
            run.stdout + run.stderr
    engine.dispose()
    if where == "sqlite":
        shutil.rmtree(tmp_path, ignore_errors=True)


def test_a_headers_options_may_be_spelled_as_arena_toml_spells_them() -> None:
    bots = tuple({"name": f"{s}{k}", "builtin": s} for k, s in enumerate(("dag", "ldasg")))
    record = record_table(TableTask("q", 0, 21, bots, options=(("q_bonus", 0), ("finish_bonus", 10))))
    assert record.config["options"] == {"q_bonus": 0, "finish_bonus": 10} and verify(record) is None
    record.config["options"] = {"q-bonus": 0, "finish-bonus": 10}   # arena.toml's and the API's spelling
    assert verify(record) is None
    record.config["options"] = {"q-bonus": 10, "finish-bonus": 0}
    assert verify(record) is not None
