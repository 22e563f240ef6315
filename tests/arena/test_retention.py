"""An arena that keeps each bot's latest replays (``[retention] replays_per_bot``) and every
result: two students' bots play the ladder; the games whose bots no longer keep them lose
their replay and nothing else (standings, counts and ``recompute`` agree with the games,
``replay verify --db`` verifies the rest and names those not kept, a download of one says
410). A kept game downloads as the stored bytes themselves to a client that takes
Zstandard, as gzip or as plain JSON Lines to the others. The competition's options are
spelled in the API as arena.toml spells them (``q-bonus``). A sweep applies a smaller
number to the games stored before."""

from __future__ import annotations

import gzip
import os
import signal
import subprocess
import time
from pathlib import Path

import httpx
import pytest

pytest.importorskip("sqlalchemy")

from sqlalchemy import func, select  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402

from gameroom.arena.retention import Retention, qualify_label  # noqa: E402
from gameroom.league.db import BotRow, GameRow, LeagueRow, ResultRow, SeatRow, open_database  # noqa: E402
from gameroom.league.packing import unpack  # noqa: E402
from tests.arena.running import EXAMPLES, GAMEROOM, login, start_arena  # noqa: E402
from tests.driver import free_port  # noqa: E402

KEEP = 2


def _windows(engine: object, keep: int) -> tuple[set[int], set[int], int]:
    """The games whose replay is kept, those that some bot's latest ``keep`` games need,
    and how many games there are (ladder and qualification of competition "r")."""
    with Session(engine) as session:   # type: ignore[arg-type]
        league = session.scalar(select(LeagueRow.id).where(LeagueRow.name.contains("r")))
        scope = (GameRow.league_id == league) | (GameRow.tournament == qualify_label("r"))
        games = session.scalars(select(GameRow).where(scope)).all()
        ids = [g.id for g in games]
        kept = {g.id for g in games if g.replay is not None}
        needed: set[int] = set()
        for bot in session.scalars(select(BotRow.id)).all():
            mine = session.scalars(select(GameRow.id).join(SeatRow, SeatRow.game_id == GameRow.id)
                                   .where(SeatRow.bot_id == bot, scope).distinct().order_by(GameRow.id.desc())
                                   .limit(keep)).all()
            needed.update(game_id for game_id in mine if game_id in ids)
        results = session.scalar(select(func.count()).select_from(ResultRow).where(ResultRow.game_id.in_(ids)))
        assert results == 2 * len(games)   # every result is kept
    return kept, needed, len(games)


def test_an_arena_keeps_each_bots_latest_replays_and_every_result(tmp_path: Path) -> None:
    url, process = start_arena(tmp_path, f'listen = "127.0.0.1:{free_port()}"\n'
                                         'database = "sqlite:///arena.db"\n'
                                         f'[retention]\nreplays_per_bot = {KEEP}\n'
                                         '[[competitions]]\nname = "r"\ngame = "q"\nqualification = 1\n'
                                         '[competitions.options]\n"q-bonus" = 0\n',
                               "ann,password-ann-1\nbob,password-bob-1\n", "r")
    config = tmp_path / "arena.toml"
    try:
        for user, name, file in (("ann", "py", "python_bot.py"), ("bob", "pyb", "python_bot.py")):
            client = login(url, user, f"password-{user}-1")
            made = client.post("/api/arena/r/bots", params={"name": name, "filename": file},
                               content=(EXAMPLES / file).read_bytes())
            assert made.status_code == 201, made.text
        deadline = time.monotonic() + 300
        while (state := httpx.get(f"{url}/api/arena", timeout=60).json())["competitions"][0]["games"] < 8:
            assert process.poll() is None and time.monotonic() < deadline, (tmp_path / "arena.log").read_text()[-3000:]
            time.sleep(0.5)
        assert state["competitions"][0]["options"] == {"q-bonus": 0, "finish-bonus": 6}
        # the ladder paused and its games in flight written: what is kept no longer moves
        made = subprocess.run([*GAMEROOM, "arena", "admin", "boss", "--config", str(config)], capture_output=True,
                              text=True, timeout=300, env={**os.environ, "GAMEROOM_ARENA_PASSWORD": "password-boss-1"})
        assert made.returncode == 0, made.stderr
        boss = login(url, "boss", "password-boss-1")
        assert boss.post("/api/arena/admin/pause", json={"paused": True}).status_code == 200
        while boss.get("/api/arena/admin").json()["running"]:
            assert time.monotonic() < deadline + 300
            time.sleep(0.2)
        engine = open_database(f"sqlite:///{tmp_path / 'arena.db'}")
        kept, needed, total = _windows(engine, KEEP)
        assert kept == needed and len(kept) < total
        pruned = min(set(range(1, max(kept))) - kept)
        gone = httpx.get(f"{url}/api/arena/games/{pruned}/replay.jsonl", timeout=60)
        assert gone.status_code == 410 and "its replay was not kept" in gone.json()["error"]
        game_id = max(kept)
        with Session(engine) as session:
            blob = session.scalar(select(GameRow.replay).where(GameRow.id == game_id))
        assert blob is not None
        path = f"/api/arena/games/{game_id}/replay.jsonl"
        # staff download the replay as it is stored: its bytes themselves to a client of zstd
        with boss.stream("GET", path, headers={"accept-encoding": "zstd"}) as reply:
            assert reply.headers["content-encoding"] == "zstd" and b"".join(reply.iter_raw()) == blob
        with boss.stream("GET", path, headers={"accept-encoding": "gzip"}) as reply:
            assert reply.headers["content-encoding"] == "gzip"
            assert gzip.decompress(b"".join(reply.iter_raw())).decode() == unpack(blob)
        plain = boss.get(path, headers={"accept-encoding": "identity"})
        assert "content-encoding" not in plain.headers and plain.text == unpack(blob)
        assert 'filename="game-' in plain.headers["content-disposition"]
        # a visitor gets the public replay (each seat's bot by its name, no server folder),
        # the same in any encoding, with as many lines as the stored one
        with httpx.stream("GET", url + path, headers={"accept-encoding": "zstd"}, timeout=60) as reply:
            assert reply.headers["content-encoding"] == "zstd"
            public = unpack(b"".join(reply.iter_raw()))
        visitor = httpx.get(url + path, headers={"accept-encoding": "identity"}, timeout=60)
        assert visitor.text == public != unpack(blob) and str(tmp_path) not in public
        assert len(public.splitlines()) == len(unpack(blob).splitlines())
        live = subprocess.run([*GAMEROOM, "arena", "recompute", "--config", str(config)], capture_output=True,
                              text=True, timeout=300)
        assert live.returncode == 0, live.stdout + live.stderr
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(120) == 0
    kept, needed, total = _windows(engine, KEEP)
    assert kept == needed
    verified = subprocess.run([*GAMEROOM, "replay", "verify", "--db", f"sqlite:///{tmp_path / 'arena.db'}"],
                              capture_output=True, text=True, timeout=600)
    assert verified.returncode == 0, verified.stdout[-2000:] + verified.stderr[-2000:]
    assert f"{len(kept)} of {total} replays verified, {total - len(kept)} not kept (retention: their results are)" \
        in verified.stdout, verified.stdout
    # one replay a bot: the sweep at start lets go of what a smaller number no longer keeps
    with Session(engine) as session:
        league_id = session.scalar(select(LeagueRow.id).where(LeagueRow.name.contains("r")))
    assert league_id is not None
    assert Retention(engine, 1, {"r": league_id}).sweep() > 0
    kept, needed, _ = _windows(engine, 1)
    assert kept == needed
    assert Retention(engine, None, {"r": league_id}).sweep() == 0
    engine.dispose()
