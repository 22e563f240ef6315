"""The arena end to end, as a course runs it: a real ``gameroom arena`` process on a real
port and SQLite file, real sandboxed bots, and Debian's Chromium (Playwright) for an
administrator and three participants in browser contexts of their own.

The participants sign up, join with invite codes and upload a Python bot (which crashes at
``setup`` in some games, deterministically from the tiles it is dealt), a Node bot and a
command bot (the Perl example); the ladder plays 300 games of Q while the standings page
updates live; the crashing bot's page shows the call and the stderr tail of an ejection;
a replay opens in the viewer and every stored game verifies. Then the arena is SIGKILLed
mid-game and restarted: exactly the games written before are kept, the ladder goes on,
and ``gameroom arena recompute`` finds the standings equal to the games.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import pytest
from tests.arena.running import wait_for
from tests.driver import free_port
from tests.web.conftest import browser  # noqa: F401 - the fixture: Debian's Chromium

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "bots"
GAMEROOM = [sys.executable, "-m", "gameroom"]
LADDER_GAMES = 300
PASSWORD = "correct-horse-9"
CRASH = '''
import zlib as _zlib


def _maybe_crash(method, args):
    """Crash at setup in about one game of six: decided by the tiles dealt (the game's seed)."""
    if method == "setup" and _zlib.crc32(json.dumps(args[1]).encode()) % 6 == 1:
        print("crashing on purpose at setup, hand", json.dumps(args[1])[:60], file=sys.stderr, flush=True)
        raise SystemExit(3)


_answer = answer


def answer(game, method, args):
    _maybe_crash(method, args)
    return _answer(game, method, args)


if __name__ == "__main__":
    main()
'''


def crashing_python_bot() -> bytes:
    source = (EXAMPLES / "python_bot.py").read_text()
    body, _, _ = source.rpartition('if __name__ == "__main__":')
    return (body + CRASH).encode()


class Arena:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.db = folder / "arena.db"
        self.config = folder / "arena.toml"
        self.config.write_text(f'listen = "127.0.0.1:{self.port}"\ndatabase = "sqlite:///arena.db"\n'
                               f'data = "data"\nworkers = 2\n\n[[competitions]]\nname = "course"\ngame = "q"\n'
                               f'seed = 7\nqualification = 2\n')
        self.process: subprocess.Popen[bytes] | None = None
        self.log = folder / "arena.log"

    def command(self, *args: str, stdin: str | None = None, env: dict[str, str] | None = None
                ) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*GAMEROOM, "arena", *args, "--config", str(self.config)], capture_output=True,
                              text=True, input=stdin, timeout=300, env={**os.environ, **(env or {})}, cwd=self.folder)

    def start(self) -> None:
        out = open(self.log, "ab")
        self.process = subprocess.Popen([*GAMEROOM, "arena", "--config", str(self.config)], stdout=out, stderr=out,
                                        cwd=self.folder, env={**os.environ, "GAMEROOM_WEB_SECRET": "s" * 32})
        deadline = time.monotonic() + 120
        while True:
            try:
                self.api("/api/arena")
                return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"the arena did not start: {self.log.read_text()[-2000:]}") from None
                time.sleep(0.3)

    def api(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=30) as reply:
            return json.loads(reply.read())

    def games(self) -> int:
        return self.api("/api/arena")["competitions"][0]["games"]

    def stored(self) -> list[tuple[int, int]]:
        with sqlite3.connect(self.db) as db:
            return db.execute('select id, "index" from games where league_id is not null order by id').fetchall()

    def wait(self, what: str, check: Any, seconds: float = 240) -> Any:
        assert self.process is not None
        return wait_for(what, check, self.process, self.log, seconds)


@pytest.fixture
def arena(tmp_path: Path) -> Iterator[Arena]:
    running = Arena(tmp_path)
    try:
        yield running
    finally:
        if running.process is not None and running.process.poll() is None:
            running.process.kill()
            running.process.wait(30)


def _page(chromium: Any, url: str, mobile: bool = False) -> Any:
    context = chromium.new_context(viewport={"width": 390, "height": 844} if mobile else {"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(120_000)
    page.goto(url)
    return page


def _sign(page: Any, url: str, how: str, name: str) -> None:
    page.goto(f"{url}/{how}?next=/arena")
    page.fill("#username", name)
    page.fill("#password", PASSWORD)
    page.click("#submit")
    page.wait_for_url(f"{url}/arena")
    page.wait_for_selector(f"#me:has-text('{name}')")


def test_a_season_from_sign_up_to_kill_and_restart(arena: Arena, browser: Any, tmp_path: Path) -> None:  # noqa: F811
    made = arena.command("admin", "boss", env={"GAMEROOM_ARENA_PASSWORD": PASSWORD})
    assert made.returncode == 0, made.stderr
    invited = arena.command("invite", "course", "--count", "3")
    assert invited.returncode == 0, invited.stderr
    codes = invited.stdout.split()
    assert len(codes) == 3
    arena.start()

    admin = _page(browser, f"{arena.url}/arena")
    _sign(admin, arena.url, "login", "boss")
    uploads = [("ann", "crashy", "crashy.py", crashing_python_bot(), ""),
               ("ben", "nodey", "node_bot.js", (EXAMPLES / "node_bot.js").read_bytes(), ""),
               ("cat", "perly", "perl_bot.pl", (EXAMPLES / "perl_bot.pl").read_bytes(), "command")]
    pages = []
    for (user, bot, filename, data, language), code in zip(uploads, codes, strict=True):
        page = _page(browser, f"{arena.url}/arena", mobile=user == "ben")
        _sign(page, arena.url, "signup", user)
        page.fill("#code", code)
        page.click("#joinform button")
        page.wait_for_selector("#joined:has-text('joined course')")
        page.wait_for_selector("#uploadform:not(.hidden)")
        (tmp_path / filename).write_bytes(data)
        page.fill("#botname", bot)
        if language:
            page.select_option("#language", language)
        page.set_input_files("#file", str(tmp_path / filename))
        page.click("#uploadform button")
        page.wait_for_selector(f"#uploaded:has-text('{bot} v1: building')")
        pages.append(page)

    # every bot builds and qualifies; the standings page shows it without a reload
    watcher = pages[0]
    for bot in ("crashy", "nodey", "perly"):
        watcher.wait_for_selector(f"tr[data-bot='{bot}'] td:has-text('v1 active')", timeout=180_000)
    first = int(watcher.get_attribute(".gamecount", "data-games") or 0)
    arena.wait("ladder games on the live page", lambda: int(watcher.get_attribute(".gamecount", "data-games") or 0)
               > first + 5)
    # the phone-sized page fits: its table scrolls inside the page, the page itself does not
    assert pages[1].evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")

    # the administrator sees the workers and pauses and resumes the ladder
    admin.goto(f"{arena.url}/arena/admin")
    admin.wait_for_selector("#summary:has-text('workers busy')")
    admin.click("#pause")
    admin.wait_for_selector("#pause[aria-pressed='true']")
    paused_at = arena.games()
    time.sleep(2)
    assert arena.games() <= paused_at + 2   # only the games in flight when paused are written
    admin.click("#pause")
    admin.wait_for_selector("#pause[aria-pressed='false']")

    arena.wait(f"{LADDER_GAMES} ladder games", lambda: len(arena.stored()) >= LADDER_GAMES)

    # the crashing bot's page: the call it failed on and its stderr tail
    bot_page = pages[0]
    bot_page.goto(f"{arena.url}/arena/bots/crashy")
    bot_page.wait_for_selector("#ejections td.stderr:has-text('crashing on purpose')")
    assert bot_page.inner_text("#ejections td.call") == "setup"
    assert "exited with status 3" in bot_page.inner_text("#ejections td.reason")
    # a replay opens in the web room's viewer, and its JSON Lines download is the stored game
    link = bot_page.get_attribute("#games tbody tr a", "href")
    assert link is not None and link.startswith("/results/games/")
    viewer = _page(browser, arena.url + link)
    viewer.wait_for_selector("body")
    game_id = link.rsplit("/", 1)[1]
    with urllib.request.urlopen(f"{arena.url}/api/results/games/{game_id}/replay", timeout=60) as reply:
        assert reply.headers["x-replay-verified"] == "yes"
    with urllib.request.urlopen(f"{arena.url}/api/arena/games/{game_id}/replay.jsonl", timeout=60) as reply:
        assert json.loads(reply.read().splitlines()[0])["game"] == "q"

    # SIGKILL mid-game: exactly the games written so far are kept, and the ladder goes on
    def busy() -> bool:
        with urllib.request.urlopen(f"{arena.url}/metrics", timeout=30) as reply:
            return "gameroom_arena_workers_busy 0" not in reply.read().decode()

    arena.wait("a game in flight", busy)
    os.kill(arena.process.pid, signal.SIGKILL)   # type: ignore[union-attr]
    arena.process.wait(30)   # type: ignore[union-attr]
    kept = arena.stored()
    assert len({index for _, index in kept}) == len(kept)
    arena.start()
    arena.wait("the ladder going on after the restart", lambda: len(arena.stored()) >= len(kept) + 20)
    after = arena.stored()
    assert after[:len(kept)] == kept                    # nothing lost, nothing rewritten
    indices = [index for _, index in after]
    assert len(set(indices)) == len(indices)            # no game counted twice
    assert min(index for _, index in after[len(kept):]) > max(index for _, index in kept)

    arena.process.send_signal(signal.SIGTERM)   # type: ignore[union-attr]
    assert arena.process.wait(120) == 0   # type: ignore[union-attr]
    recomputed = arena.command("recompute")
    assert recomputed.returncode == 0, recomputed.stdout + recomputed.stderr
    assert "exactly the stored games'" in recomputed.stdout
    verified = subprocess.run([*GAMEROOM, "replay", "verify", "--db", f"sqlite:///{arena.db}"], capture_output=True,
                              text=True, timeout=600)
    assert verified.returncode == 0, verified.stdout[-2000:] + verified.stderr[-2000:]
    with sqlite3.connect(arena.db) as db:
        total = db.execute("select count(*) from games").fetchone()[0]
    assert f"{total} of {total} replays verified" in verified.stdout

    # a standing that is not the games' is found, and rebuilt from them
    with sqlite3.connect(arena.db) as db:
        db.execute("update ratings set games = games + 1, mu = mu + 1 where bot_id = "
                   "(select id from bots where name = 'perly-v1')")
    tampered = arena.command("recompute")
    assert tampered.returncode == 1
    assert "perly-v1: games stored" in tampered.stdout and "mu stored" in tampered.stdout
    assert arena.command("recompute", "--write").returncode == 0
    assert arena.command("recompute").returncode == 0

    # the season ends: frozen, a round robin of the standings' top three (every pair once)
    final = arena.command("final", "course", "--format", "round-robin", "--top", "3", "--games", "1", "--json")
    assert final.returncode == 0, final.stderr
    result = json.loads(final.stdout)
    assert sorted(row["bot"] for row in result["table"]) == ["crashy-v1", "nodey-v1", "perly-v1"]
    with sqlite3.connect(arena.db) as db:   # every pair once, and the tie-break games its ties needed
        assert db.execute("select count(*) from games where tournament = 'arena:course:final:1'").fetchone()[0] \
            == result["games"] >= 3
