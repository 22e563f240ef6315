"""A season as staff and students see it, on a real arena process (real sockets, a real
SQLite file, sandboxed bots, the example Python bot as a remote bot in its reconnecting
loop), through the JSON API:

* a bot's page is public for results and games, but its build logs, its programs' stderr
  (a crash's, and an illegal move's, which the referee ejects without one) and its remote
  connection's notes are its owner's and the staff's only, without the arena's folders in
  a student's view; the live page's push is filtered the same way;
* the standings' games, wins and ejections are the bot page's ladder figures of the
  playing version, and the ejections it lists;
* the staff's overview: participants without a bot, failures with why, ejections by
  reason; a disabled bot takes no upload and plays no ladder game; the CSV for grading;
* a ``freeze_at`` that has passed freezes its competition, and a thaw after it stays;
* remote bots (the Perl and Node examples in their loops): the registration says host and port, the standings say connected or not
  and when it was last seen, its page why it dropped out (hung up while waiting, the arena
  stopped), and after a restart the arena listens on the same port, where the bot's loop
  finds it again.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import httpx
import pytest
from tests.arena.running import EXAMPLES, GAMEROOM, login, start_arena, wait_for
from tests.arena.test_end_to_end import crashing_python_bot
from tests.driver import free_port

ACCOUNTS = "username,password\n" + "".join(f"{name},password-{name}-1\n" for name in ("ann", "ben", "cat", "dan",
                                                                                      "eve"))
CHEAT = '''
_fair = answer


def answer(game, method, args):
    if method == "take-turn":   # a placement of a tile it does not hold: an illegal move
        print("cheating now: a tile from nowhere", file=sys.stderr, flush=True)
        return [{"coordinate": {"row": 99, "column": 99}, "1tile": {"color": "red", "shape": "star"}}]
    return _fair(game, method, args)


if __name__ == "__main__":
    main()
'''


def _config(port: int) -> str:
    return (f'listen = "127.0.0.1:{port}"\nremote = "127.0.0.1:0"\ndatabase = "sqlite:///arena.db"\ndata = "data"\n'
            'workers = 2\n[[competitions]]\nname = "course"\ngame = "q"\nseed = 5\nqualification = 1\n'
            '[[competitions]]\nname = "early"\ngame = "q"\nqualification = 0\nfreeze_at = 2000-01-01T00:00:00Z\n')


class Season:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.config_text = _config(free_port())
        self.url, self.process = start_arena(folder, self.config_text, ACCOUNTS, "course")
        self.remote: subprocess.Popen[bytes] | None = None
        self.others: list[subprocess.Popen[bytes]] = []

    def command(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*GAMEROOM, "arena", *args, "--config", str(self.folder / "arena.toml")],
                              capture_output=True, text=True, timeout=300, env={**os.environ, **env})

    def restart(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        assert self.process.wait(120) == 0
        self.url, self.process = start_arena(self.folder, self.config_text, ACCOUNTS, "course")

    def wait(self, what: str, check: Callable[[], Any], seconds: float = 240) -> Any:
        return wait_for(what, check, self.process, self.folder / "arena.log", seconds)


@pytest.fixture
def season(tmp_path: Path) -> Iterator[Season]:
    running = Season(tmp_path)
    try:
        yield running
    finally:
        for process in (*running.others, running.remote, running.process):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait(30)


def _row(client: httpx.Client, bot: str, competition: str = "course") -> dict[str, Any]:
    data = client.get("/api/arena").json()
    table = next(c for c in data["competitions"] if c["name"] == competition)["standings"]
    return next(row for row in table if row["bot"] == bot)


def _status(client: httpx.Client, bot: str) -> str:
    page = client.get(f"/api/arena/bots/{bot}").json()
    return page["versions"][0]["status"]


def test_what_staff_and_students_see_and_remote_bots_that_stay(season: Season) -> None:
    made = season.command("admin", "boss", GAMEROOM_ARENA_PASSWORD="password-boss-1")
    assert made.returncode == 0, made.stderr
    ann, ben, cat, dan = (login(season.url, name, f"password-{name}-1") for name in ("ann", "ben", "cat", "dan"))
    boss = login(season.url, "boss", "password-boss-1")
    guest = httpx.Client(base_url=season.url, timeout=60)
    source = (EXAMPLES / "python_bot.py").read_text()
    for client, name, filename, data in ((ann, "crashy", "crashy.py", crashing_python_bot()),
                                         (ben, "nodey", "node_bot.js", (EXAMPLES / "node_bot.js").read_bytes()),
                                         (cat, "cheater", "cheater.py",
                                          (source.rpartition('if __name__ == "__main__":')[0] + CHEAT).encode())):
        uploaded = client.post("/api/arena/course/bots", params={"name": name, "filename": filename}, content=data)
        assert uploaded.status_code == 201, uploaded.text

    # a remote bot: where it connects, then the example bot's loop plays game after game
    registered = dan.post("/api/arena/course/remote", json={"name": "far"})
    assert registered.status_code == 201, registered.text
    token, port = registered.json()["token"], registered.json()["port"]
    assert registered.json()["host"] == "127.0.0.1"
    assert registered.json()["command"] == f"python3 python_bot.py 127.0.0.1:{port} {token}"

    def run_remote(argv: tuple[str, ...] = ("perl", str(EXAMPLES / "perl_bot.pl")), where: str = "",
                   secret: str = "") -> subprocess.Popen[bytes]:
        """An example bot in its reconnecting loop (the browser's season runs the Python one)."""
        with open(season.folder / "remote.log", "ab") as log:
            return subprocess.Popen([*argv, where or f"127.0.0.1:{port}", secret or token],
                                    env={**os.environ, "GAMEROOM_GAME": "q"}, stdout=subprocess.DEVNULL, stderr=log)

    season.remote = run_remote()
    wide = ben.post("/api/arena/course/remote", json={"name": "wide"}).json()
    season.others.append(run_remote(("node", str(EXAMPLES / "node_bot.js")), f"{wide['host']}:{wide['port']}",
                                    wide["token"]))
    for client, bot, status in ((ann, "crashy", "active"), (ben, "nodey", "active"), (cat, "cheater", "failed"),
                                (dan, "far", "active"), (ben, "wide", "active")):
        season.wait(f"{bot} {status}", lambda client=client, bot=bot, status=status: _status(client, bot) == status)
    season.wait("a crash of crashy on the ladder", lambda: _row(ann, "crashy")["ejections"] >= 1)
    for bot in ("far", "wide"):   # the Perl and the Node examples, each playing game after game
        season.wait(f"{bot} connected", lambda bot=bot: (_row(guest, bot)["connection"] or {}).get("connected"))
        season.wait(f"{bot}'s ladder games", lambda bot=bot: _row(guest, bot)["games"] >= 3)

    # the ladder paused and idle: every figure read below is of one state
    assert boss.post("/api/arena/admin/pause", json={"paused": True}).status_code == 200
    season.wait("no game in flight", lambda: not boss.get("/api/arena/admin").json()["running"])

    # stderr, logs and notes: the owner's and the staff's; the arena's folders are not in a student's view
    data_folder = str(season.folder / "data")
    own = ann.get("/api/arena/bots/crashy").json()
    assert own["private"] and "log" in own["versions"][0]
    crashes = [e for e in own["ejections"] if "crashing on purpose" in e["stderr"]]
    assert crashes and all("\n" in e["stderr"] or " | " not in e["stderr"] for e in crashes)
    assert data_folder not in json.dumps(own) and "[database]" not in json.dumps(own)
    assert "crashing on purpose" in json.dumps(boss.get("/api/arena/bots/crashy").json())
    for client in (ben, guest):
        seen = client.get("/api/arena/bots/crashy").json()
        text = json.dumps(seen)
        assert not seen["private"] and "crashing on purpose" not in text and "/builds/" not in text
        assert all("stderr" not in e for e in seen["ejections"]) and all("log" not in v for v in seen["versions"])
        assert [e["game"] for e in seen["ejections"]] == [e["game"] for e in own["ejections"]]   # results are public
    websockets = pytest.importorskip("websockets.sync.client")
    with websockets.connect(f"{season.url.replace('http', 'ws')}/api/arena/ws?bot=crashy", origin=season.url) as live:
        pushed = json.loads(live.recv(timeout=60))
    assert pushed["kind"] == "bot" and "crashing on purpose" not in json.dumps(pushed)

    # an illegal move's ejection has its stderr too (the referee's reason has none)
    cheated = cat.get("/api/arena/bots/cheater").json()
    ejection = cheated["ejections"][0]
    assert (ejection["kind"], ejection["failure"], ejection["call"]) == ("qualification", "illegal-action",
                                                                         "take-turn")
    assert "cheating now" in ejection["stderr"]
    assert "; stderr:\n    cheating now" in cheated["versions"][0]["log"]   # the log's stderr one line per line
    public = ben.get("/api/arena/bots/cheater").json()
    assert public["versions"][0]["summary"] == "qualification failed: ejected on take-turn (illegal-action)"
    assert "cheating now" not in json.dumps(public)

    # counts that agree: the standings' row, the page's ladder figures and the ejections it lists
    row = _row(guest, "crashy")
    page = guest.get("/api/arena/bots/crashy").json()
    playing = next(v for v in page["versions"] if v["bot"] == row["playing"])
    assert playing["ladder"] == {"games": row["games"], "wins": row["wins"], "ejections": row["ejections"]}
    listed = [e for e in page["ejections"] if e["kind"] == "ladder" and e["version"] == playing["version"]]
    assert len(listed) == row["ejections"] >= 1 and row["ejections"] < 100

    # the staff's overview
    refused = ann.get("/api/arena/admin/overview")
    assert refused.status_code == 403
    overview = boss.get("/api/arena/admin/overview").json()
    course = next(c for c in overview["competitions"] if c["name"] == "course")
    assert course["participants"][0] == {"username": "eve", "bots": []} and course["without_bot"] == 1
    bots = {b["bot"]: b for b in course["bots"]}
    assert "illegal-action" in bots["cheater"]["failures"][0]["reason"]
    assert bots["cheater"]["ejections"] == {"illegal-action": 1}
    total = sum(v["ladder"]["ejections"] + v["qualification"]["ejections"] + v["final"]["ejections"]
                for v in page["versions"])
    assert sum(bots["crashy"]["ejections"].values()) == total
    assert bots["far"]["connection"]["connected"] and bots["far"]["latest"]["language"] == "remote"

    # a disabled bot: no upload, no ladder game; the CSV says why (a formula quoted)
    why = '=HYPERLINK("http://example.invalid")'
    assert boss.post("/api/arena/admin/bots/nodey", json={"disabled": why}).json() == {"bot": "nodey",
                                                                                        "disabled": why}
    again = ben.post("/api/arena/course/bots", params={"name": "nodey", "filename": "b.js"}, content=b"x")
    assert again.status_code == 403 and "disabled by staff" in again.json()["error"]
    assert ben.post("/api/arena/course/remote", json={"name": "nodey"}).status_code == 403
    assert _row(guest, "nodey")["disabled"] is True and guest.get("/api/arena/bots/nodey").json()["disabled"] is True
    assert ben.get("/api/arena/bots/nodey").json()["disabled"] == why
    exported = boss.get("/api/arena/admin/course/standings.csv")
    assert exported.status_code == 200 and exported.headers["content-type"].startswith("text/csv")
    lines = exported.text.splitlines()
    assert lines[0].startswith("place,bot,owner,playing_version,rating,mu,sigma,games,wins,ejections")
    assert any(line.startswith(f"{row['rank']},crashy,ann,") for line in lines)
    assert any(",nodey,ben," in line and "'=HYPERLINK" in line for line in lines)
    assert ann.get("/api/arena/admin/course/standings.csv").status_code == 403
    cli = season.command("export", "course")
    assert cli.returncode == 0 and cli.stdout.splitlines()[0] == lines[0], cli.stderr
    before = guest.get("/api/arena").json()["competitions"][0]["games"]
    assert boss.post("/api/arena/admin/pause", json={"paused": False}).status_code == 200
    season.wait("ladder games without nodey",
                lambda: guest.get("/api/arena").json()["competitions"][0]["games"] >= before + 6)
    recent = [g for g in guest.get("/api/arena/bots/crashy").json()["games"] if g["kind"] == "ladder"]
    assert recent and not any("nodey-v1" in g["seats"] for g in recent[:4])
    assert boss.post("/api/arena/admin/bots/nodey", json={"disabled": None}).json()["disabled"] is None

    # a freeze_at that has passed froze its competition; a thaw after it stays
    early = next(c for c in guest.get("/api/arena").json()["competitions"] if c["name"] == "early")
    assert early["frozen"] and early["frozen_table"] is not None and early["frozen_table"]["by"] == "schedule"
    assert boss.post("/api/arena/admin/early/freeze", json={"frozen": False}).json()["changed"] is True
    time.sleep(3)   # several of the scheduler's looks at the time
    assert not next(c for c in guest.get("/api/arena").json()["competitions"] if c["name"] == "early")["frozen"]

    # the remote bot hangs up while it waits (the ladder paused): its owner's page says so
    assert boss.post("/api/arena/admin/pause", json={"paused": True}).status_code == 200
    season.wait("far waiting", lambda: (_row(guest, "far")["connection"] or {}).get("state") == "waiting")
    season.remote.kill()
    season.remote.wait(30)
    gone = season.wait("far disconnected", lambda: not dan.get("/api/arena/bots/far").json()["remote"]["connected"]
                       and dan.get("/api/arena/bots/far").json()["remote"])
    assert "while waiting for a game" in gone["note"] and gone["seen"] and gone["port"] == port
    assert "note" not in ben.get("/api/arena/bots/far").json()["remote"]
    shown = _row(guest, "far")["connection"]
    assert shown["connected"] is False and shown["seen"]

    # the arena restarts: its remote port stays, the page says the arena stopped, the loop comes back
    season.remote = run_remote()
    season.wait("far waiting again", lambda: (_row(guest, "far")["connection"] or {}).get("state") == "waiting")
    season.restart()
    dan = login(season.url, "dan", "password-dan-1")
    page = dan.get("/api/arena/bots/far").json()
    assert page["remote"]["port"] == port
    assert "the arena stopped" in page["remote"]["note"]
    season.wait("far back on the same port", lambda: dan.get("/api/arena/bots/far").json()["remote"]["connected"],
                seconds=120)
