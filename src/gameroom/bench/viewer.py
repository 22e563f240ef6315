"""``python -m gameroom.bench viewer`` (and the end of ``bench arena``): what watching a
stored game costs — its bytes on the wire per stored byte, and the time to its first
picture — for the longest game of a season.

The season: ``games`` games (100) of the game (Q) between four entrants, every pair in
turn: the game's first two built-in players and two *beginners*, seats that always take
the first answer the game offers a person (``descriptor.person_moves``: in Q one tile a
turn, so two beginners play until the pile is empty — 1,080 turns, the shape of the
finding's game). Played on a process pool, stored with ``league.db.record_game`` in a
SQLite file; the longest stored game is watched:

* ``stored``: its packed replay's bytes (and what zlib, the packing before, made of it);
* ``wire``: every page of every step, as a page steps through the whole game, with the
  compression a browser asks for (gzip; zstd), and that over ``stored`` (target: 2);
* ``first page``: a new room (``gameroom web --db``) that has shown another stored game (the
  season's shortest: modules loaded, database open) asked for this game's first page of
  steps, request to last byte; ``first picture``: such a room's page of the game opened in
  Chromium until its picture is drawn (when Chromium and playwright are here; target: under
  1 s). The game is never asked for before in that room: its re-run starts with the
  question. Each measured ``runs`` times, alternated, min / median.

A last line is JSON with the figures.
"""

from __future__ import annotations

import gzip
import json
import os
import statistics
import socket
import subprocess
import sys
import tempfile
import time
import zlib
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import zstandard

from gameroom.core.context import MatchContext
from gameroom.core.match import guarded_seat, trusted_seat
from gameroom.core.protocol import VOID
from gameroom.games import registry
from gameroom.league.packing import pack, unpack
from gameroom.league.replay import ReplayRecorder
from gameroom.league.schedule import game_seed

__all__ = ["run", "FirstOffer"]

BEGINNER = "beginner"


class FirstOffer:
    """A seat that answers every decision with the first answer the game offers a person."""

    def __init__(self, game: Any, name: str) -> None:
        self._name = name
        self._moves = game.person_moves()
        self._specs = {m.name: m for m in game.protocol.methods}

    def __getattr__(self, method: str) -> Any:
        spec = self.__dict__.get("_specs", {}).get(method)
        if spec is None:
            raise AttributeError(method)

        def call(*args: Any) -> Any:
            offered = self._moves(spec.name, args) if self._moves is not None else None
            if not offered or spec.result is VOID:
                return None
            return spec.result.decode(offered[0][1])

        return call

    def name(self) -> str:
        return self._name


def _entrants(game: Any) -> list[str]:
    return [*list(game.strategies)[:2], f"{BEGINNER}-1", f"{BEGINNER}-2"]


def play_one(game_name: str, index: int) -> tuple[int, bytes]:
    """Game ``index`` of the season (in a pool worker): its replay, packed."""
    game = registry.game(game_name)
    entrants = _entrants(game)
    pairs = [(a, b) for i, a in enumerate(entrants) for b in entrants[i + 1:]]
    names = list(pairs[index % len(pairs)])
    if index // len(pairs) % 2:
        names.reverse()
    seed = game_seed(7, index)
    seats = [guarded_seat(name, FirstOffer(game, name)) if name.startswith(BEGINNER)
             else trusted_seat(name, game.strategies[name](name, seed)) for name in names]
    recorder = ReplayRecorder(game_name, seed, {"seats": [{"name": n} for n in names]}, names)
    game.play(seed, seats, MatchContext(observers=[recorder]))
    return index, pack(recorder.record.to_jsonl())


@contextmanager
def _room(url: str) -> Iterator[str]:
    """A new ``gameroom web --db url`` (nothing of the games seen yet): its address."""
    with socket.socket() as probe:   # a free port of this machine's loopback
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([sys.executable, "-m", "gameroom", "web", "--port", str(port), "--db", url],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        line = process.stdout.readline().decode() if process.stdout else ""
        if "serving on" not in line:
            raise RuntimeError(f"gameroom web did not start: {line!r}")
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(30)


def _first_page(base: str, game_id: int, other: int) -> float:
    import httpx

    with httpx.Client(base_url=base, timeout=120) as client:
        # a room that has shown a stored game already (its modules loaded, its database
        # open): only this game's first page is timed, never asked for before
        client.get(f"/api/results/games/{other}/steps?from=0")
        client.get(f"/api/results/games/{other}")
        started = time.perf_counter()
        with client.stream("GET", f"/api/results/games/{game_id}/steps?from=0",
                           headers={"accept-encoding": "gzip"}) as reply:
            reply.read()
        return time.perf_counter() - started


def _wire(base: str, game_id: int, encoding: str) -> tuple[int, int, str | None]:
    """Bytes of every page of every step as they come over the wire; steps; the verdict."""
    import httpx

    total = at = 0
    with httpx.Client(base_url=base, timeout=300, headers={"accept-encoding": encoding}) as client:
        while True:
            with client.stream("GET", f"/api/results/games/{game_id}/steps?from={at}") as reply:
                raw = b"".join(reply.iter_raw())
                coding = reply.headers.get("content-encoding")
            total += len(raw)
            if coding == "gzip":
                raw = gzip.decompress(raw)
            elif coding == "zstd":
                raw = zstandard.ZstdDecompressor().decompressobj().decompress(raw)
            page = json.loads(raw)
            at = page["next"]
            if page["done"] and at >= page["total"]:
                return total, page["total"], page["verified"]


def _browser_first_picture(base: str, game_id: int, other: int) -> float | None:
    """Seconds from opening the stored game's page to its first picture drawn, in Chromium."""
    import shutil

    path = os.environ.get("GAMEROOM_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    if path is None:
        return None
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page()
            page.goto(f"{base}/results/games/{other}")   # the browser and the room have shown a stored game
            page.wait_for_selector("#picture[data-step='1']", timeout=120_000)
            started = time.perf_counter()
            page.goto(f"{base}/results/games/{game_id}")
            page.wait_for_selector("#picture[data-step='1'] svg", timeout=120_000)
            return time.perf_counter() - started
        finally:
            browser.close()


def _spread(values: list[float]) -> str:
    return f"{min(values):.3f} / {statistics.median(values):.3f}" if values else "-"


def run(games: int | None, *, game_name: str = "q", workers: int = 2, runs: int = 3) -> dict[str, Any]:
    from gameroom.league.db import GameRow, open_database, record_game
    from gameroom.core.record import MatchRecord
    from sqlalchemy import select
    from sqlalchemy.orm import Session

    games = games or 100
    load = os.getloadavg()[0]
    print(f"viewer bench: a season of {games} {game_name} games ({', '.join(_entrants(registry.game(game_name)))}, "
          f"every pair in turn), {workers} workers, load {load:.2f}", flush=True)
    folder = Path(tempfile.mkdtemp(prefix="gameroom-bench-viewer-"))
    url = f"sqlite:///{folder / 'season.db'}"
    engine = open_database(url)
    started = time.perf_counter()
    with ProcessPoolExecutor(workers) as pool:
        played = sorted(pool.map(play_one, [game_name] * games, range(games)))
    longest = (0, 0, 0)   # (text bytes, id, stored bytes)
    shortest = (1 << 62, 0)
    for index, blob in played:
        text = unpack(blob)
        game_id = record_game(engine, MatchRecord.from_jsonl(text), tournament="viewer bench", index=index,
                              replay=blob)
        if len(text) > longest[0]:
            longest = (len(text), game_id, len(blob))
        if len(text) < shortest[0]:
            shortest = (len(text), game_id)
    with Session(engine) as session:
        text = unpack(session.scalar(select(GameRow.replay).where(GameRow.id == longest[1])) or b"")
    engine.dispose()
    size, game_id, stored = longest
    before = len(zlib.compress(text.encode("utf-8"), 1))
    print(f"season played and stored in {time.perf_counter() - started:.1f} s; database "
          f"{(folder / 'season.db').stat().st_size / 1e6:.1f} MB", flush=True)
    print(f"longest game: #{game_id}, {text.count(chr(10))} lines, {size / 1e6:.1f} MB of JSON Lines; stored "
          f"{stored / 1e3:.1f} KB (zlib, before: {before / 1e3:.1f} KB)", flush=True)
    pages: list[float] = []
    pictures: list[float] = []
    wire: dict[str, int] = {}
    steps, verdict = 0, None
    for turn in range(runs):
        with _room(url) as base:
            pages.append(_first_page(base, game_id, shortest[1]))
            if turn == 0:
                for encoding in ("gzip", "zstd"):
                    wire[encoding], steps, verdict = _wire(base, game_id, encoding)
        with _room(url) as base:
            picture = _browser_first_picture(base, game_id, shortest[1])
            if picture is not None:
                pictures.append(picture)
    ratio = {encoding: round(bytes_ / stored, 3) for encoding, bytes_ in wire.items()}
    print(f"wire, every step: gzip {wire['gzip'] / 1e3:.1f} KB ({ratio['gzip']:.2f} x stored), zstd "
          f"{wire['zstd'] / 1e3:.1f} KB ({ratio['zstd']:.2f} x stored); {steps} steps, verified: {verdict}", flush=True)
    print(f"first page of steps, never asked for before: {_spread(pages)} s (min / median of {len(pages)})",
          flush=True)
    if pictures:
        print(f"first picture in Chromium, never asked for before: {_spread(pictures)} s (min / median of "
              f"{len(pictures)})", flush=True)
    else:
        print("first picture in Chromium: not measured (no Chromium or playwright here)", flush=True)
    figures = {"bench": "viewer", "game": game_name, "games": games, "load": [round(load, 2),
                                                                              round(os.getloadavg()[0], 2)],
               "longest": {"lines": text.count("\n"), "json_bytes": size, "stored_bytes": stored,
                           "zlib_bytes_before": before, "steps": steps, "verified": verdict},
               "wire_bytes": wire, "wire_per_stored": ratio,
               "first_page_s": [round(v, 4) for v in pages], "first_picture_s": [round(v, 4) for v in pictures]}
    print(json.dumps(figures), flush=True)
    import shutil

    shutil.rmtree(folder, ignore_errors=True)
    return figures
