"""Hostile users against sign-up and records (issue 17, findings 6 and 2), with the real
``gameroom serve``/``clients``/``replay`` processes.

* Finding 6, sign-up starvation: silent connections made before the honest clients of a
  Q game, with the shipped example configuration and with a short one (four seats, one
  10 s period, 1 s name limits). Each row gives the server's peak resident memory and the
  honest clients' time from their start to their exit, without and with the attack; an
  honest game that did not happen counts as ``inf``.
* Finding 2, forged records: a real replay file (``play --replay``) and a real SQLite
  results database (``league``), each forged in every way the issue names (and a few
  more); ``replay verify`` must report each (exit non-zero). The rows give the forgeries
  detected out of those made and the verifier's peak memory.

``run_attacks(quick)`` returns the rows; ``python -m gameroom.bench hostile [--quick]``
(every hostile part) or ``python -m gameroom.bench.hostile_signup [--quick]`` (this one)
prints them. Targets: peak memory under 300 MB, honest games at most 1.5x
slower, every forgery detected.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import socket
import sqlite3
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

from gameroom.bench.processes import python_module
from gameroom.league.packing import pack, unpack

__all__ = ["DATABASE_FORGERIES", "REPLAY_FORGERIES", "main", "run", "run_attacks"]

RSS_TARGET_MB = 300.0
SLOWDOWN_TARGET = 1.5
TIMEOUT = 300.0


@dataclass
class Finished:
    status: int
    out: str
    err: str
    peak_mb: float       # the process's peak resident memory (its own, from wait4)
    seconds: float


class Started:
    """A ``gameroom`` process whose peak memory is read when it is reaped (``wait4``)."""

    def __init__(self, args: list[str], stdin: bytes = b"") -> None:
        self._out, self._err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
        self.started = time.perf_counter()
        self.process = subprocess.Popen(python_module("gameroom", *args), stdin=subprocess.PIPE,
                                        stdout=self._out, stderr=self._err)
        assert self.process.stdin is not None
        self.process.stdin.write(stdin)
        self.process.stdin.close()

    def finish(self, timeout: float = TIMEOUT) -> Finished:
        timer = threading.Timer(timeout, self.process.kill)
        timer.start()
        try:
            _pid, status, usage = os.wait4(self.process.pid, 0)
        finally:
            timer.cancel()
        seconds = time.perf_counter() - self.started
        self.process.returncode = os.waitstatus_to_exitcode(status)
        texts = []
        for stream in (self._out, self._err):
            stream.seek(0)
            texts.append(stream.read().decode("utf-8", "replace"))
            stream.close()
        return Finished(self.process.returncode, texts[0], texts[1], usage.ru_maxrss / 1024, seconds)


def _run(args: list[str], stdin: bytes = b"") -> Finished:
    return Started(args, stdin).finish()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _example(game: str, name: str) -> Any:
    return json.loads((files(f"gameroom.games.{game}") / "configs" / name).read_text(encoding="utf-8"))


# -- finding 6: silent connections before honest clients ---------------------------------

def _shipped() -> tuple[dict[str, Any], dict[str, Any]]:
    return _example("q", "server.json"), _example("q", "clients.json")


def _short(period: int = 10) -> tuple[dict[str, Any], dict[str, Any]]:
    """Four seats, one ``period`` (10 s), 1 s name limits: the fourth sign-up starts the game."""
    server, clients = _shipped()
    server.update({"server-wait": period, "server-tries": 1, "wait-for-signup": 1})
    players = server["ref-spec"]["state0"]["players"]
    players.append({**players[-1], "name": "Di"})
    clients["players"] = [*clients["players"], ["Di", "dag"]]
    return server, clients


def _silent(port: int, count: int, server: Started) -> list[socket.socket]:
    """``count`` connections that never send, made the way an attacker makes them: all at
    once (non-blocking), so the server's small listen backlog (30, as the specs say) costs
    the attack retransmitted SYNs, not one connection after the other. Waits until the
    server listens and every connection is established."""
    import select

    end = time.monotonic() + 60
    while True:     # the server may still be starting
        try:
            socket.create_connection(("127.0.0.1", port), timeout=10).close()
            break
        except ConnectionRefusedError:
            if time.monotonic() > end or server.process.poll() is not None:
                raise
            time.sleep(0.05)
    held = []
    for _ in range(count):
        connection = socket.socket()
        connection.setblocking(False)
        connection.connect_ex(("127.0.0.1", port))
        held.append(connection)
    poll = select.poll()
    waiting = {connection.fileno(): connection for connection in held}
    for fileno in waiting:
        poll.register(fileno, select.POLLOUT)
    while waiting and time.monotonic() < end:
        for fileno, _event in poll.poll(1000):
            connection = waiting.pop(fileno)
            poll.unregister(fileno)
            error = connection.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if error:
                raise OSError(error, f"an attacking connection failed: {os.strerror(error)}")
    if waiting:
        raise TimeoutError(f"{len(waiting)} attacking connections were not established within 60 s")
    return held


def _honest_game(config: tuple[dict[str, Any], dict[str, Any]], silent: int) -> tuple[float, float]:
    """One Q game of honest clients after ``silent`` silent connections: the clients' time
    (inf when no game was played for them) and the server's peak memory."""
    server_config, clients_config = config
    for attempt in range(3):
        # a port found free may be taken before the server binds it (it then exits at once)
        port = _free_port()
        server = Started(["serve", "q", "--port", str(port)], json.dumps(server_config).encode())
        try:
            held = _silent(port, silent, server)    # with none, it waits until the server listens
            break
        except ConnectionRefusedError:
            server.finish()
            if attempt == 2:
                raise
    try:
        clients = _run(["clients", "q", "--port", str(port)], json.dumps({**clients_config, "port": port}).encode())
        served = server.finish()
    finally:
        for connection in held:
            connection.close()
    played = served.status == 0 and clients.status == 0 and served.out.strip() not in ("", "[[], []]")
    return (clients.seconds if played else math.inf), served.peak_mb


def _signup_row(label: str, config: Callable[[], tuple[dict[str, Any], dict[str, Any]]], silent: int) -> dict[str, Any]:
    without, rss_quiet = _honest_game(config(), 0)
    with_attack, rss = _honest_game(config(), silent)
    return {"finding": 6, "attack": f"{silent} silent connections before the honest clients, {label}",
            "peak_rss_mb": round(max(rss, rss_quiet), 1), "honest_s_without": round(without, 2),
            "honest_s_with": round(with_attack, 2)}


# -- finding 2: forged records ------------------------------------------------------------

def _edit(line: str, change: Callable[[dict[str, Any]], None]) -> str:
    row = json.loads(line)
    change(row)
    return json.dumps(row, ensure_ascii=False)


def _reseal(lines: list[str]) -> list[str]:
    """Sealed again from scratch, as a forger who knows the chain would."""
    from gameroom.core.chain import DigestChain, unseal

    chain = DigestChain()
    return [chain.seal(unseal(line)[0]) for line in lines]


def _flip_winner(row: dict[str, Any]) -> None:
    result = row["result"]
    others = [name for group in result["ranking"] for name in group if name not in result["winners"]]
    result["winners"] = others[:1]


def _raise_score(row: dict[str, Any]) -> None:
    scores = row["result"]["scores"]
    first = next(iter(scores))
    scores[first] += 30


def _slower(row: dict[str, Any]) -> None:
    row["latency"] = 5.0


def _first_call(lines: list[str]) -> int:
    return next(at for at, line in enumerate(lines) if '"event": "call"' in line and at > 2)


REPLAY_FORGERIES: dict[str, Callable[[list[str]], list[str]]] = {
    "winner flipped": lambda ls: [*ls[:-1], _edit(ls[-1], _flip_winner)],
    "winner flipped, chain sealed again": lambda ls: _reseal([*ls[:-1], _edit(ls[-1], _flip_winner)]),
    "score changed": lambda ls: [*ls[:-1], _edit(ls[-1], _raise_score)],
    "score changed, chain sealed again": lambda ls: _reseal([*ls[:-1], _edit(ls[-1], _raise_score)]),
    "result line removed": lambda ls: ls[:-1],
    "result line duplicated": lambda ls: [*ls, ls[-1]],
    "result line duplicated, chain sealed again": lambda ls: _reseal([*ls, ls[-1]]),
    "a call line edited (its latency)": lambda ls: [*ls[:_first_call(ls)], _edit(ls[_first_call(ls)], _slower),
                                                    *ls[_first_call(ls) + 1:]],
    "two lines swapped": lambda ls: [*ls[:5], ls[6], ls[5], *ls[7:]],
    "a line deleted": lambda ls: [*ls[:9], *ls[10:]],
    "a line inserted (a copy)": lambda ls: [*ls[:9], ls[8], *ls[9:]],
    "the end and the result cut off": lambda ls: ls[:-2],
}
"""Each forgery of a replay file's lines."""


def _sql(*statements: str) -> Callable[[sqlite3.Connection], None]:
    def apply(connection: sqlite3.Connection) -> None:
        for statement in statements:
            connection.execute(statement)

    return apply


def _replace_replay(change: Callable[[list[str]], list[str]]) -> Callable[[sqlite3.Connection], None]:
    def apply(connection: sqlite3.Connection) -> None:
        blob, = connection.execute("SELECT replay FROM games WHERE id = 2").fetchone()
        lines = change(unpack(blob).splitlines())
        text = "".join(line + "\n" for line in lines)
        connection.execute("UPDATE games SET replay = ? WHERE id = 2", (pack(text),))

    return apply


DATABASE_FORGERIES: dict[str, Callable[[sqlite3.Connection], None]] = {
    "results: winner flipped": _sql("UPDATE results SET winner = 1 - winner WHERE game_id = 2"),
    "results: score changed": _sql("UPDATE results SET score = 999 WHERE game_id = 2 AND rank = 1"),
    "results: rank changed": _sql("UPDATE results SET rank = rank + 1 WHERE game_id = 2 AND rank = 1"),
    "results: a row removed": _sql("DELETE FROM results WHERE id = (SELECT MIN(id) FROM results WHERE game_id = 2)"),
    "seats: two seats swapped": _sql("UPDATE seats SET position = 1 - position WHERE game_id = 2 AND position < 2"),
    "ejections: an ejection added": _sql("INSERT INTO ejections (game_id, bot_id, position, method, kind, reason) "
                                         "SELECT 2, bot_id, 0, 'take-turn', 'time-out', 'forged' FROM seats "
                                         "WHERE game_id = 2 AND position = 0"),
    "games: digest cleared": _sql("UPDATE games SET digest = NULL WHERE id = 2"),
    "games: replay cut short": _replace_replay(lambda ls: ls[:-2]),
    "games: replay's winner flipped, chain sealed again": _replace_replay(
        lambda ls: _reseal([*ls[:-1], _edit(ls[-1], _flip_winner)])),
}
"""Each forgery of a results database (on its game 2)."""


def _verify_each(targets: list[list[str]]) -> list[Finished]:
    """``gameroom replay verify TARGET`` for each target, a process each (its own verdict,
    exit status and peak memory), all started before the first is awaited: the verifier
    mostly starts up (imports), and two dozen starts one after the other took minutes of
    a loaded machine."""
    started = [Started(["replay", "verify", *target]) for target in targets]
    return [process.finish() for process in started]


def _replay_rows(folder: Path) -> dict[str, Any]:
    original = folder / "q.jsonl"
    made = _run(["play", "q", "--seed", "3", "--replay", str(original)])
    if made.status != 0:
        raise RuntimeError(f"play --replay failed: {made.err[-300:]}")
    lines = original.read_text(encoding="utf-8").splitlines()
    intact = _run(["replay", "verify", str(original)])
    if intact.status != 0:
        raise RuntimeError(f"the intact replay does not verify: {intact.err[-300:]}")
    forged = []
    for at, forge in enumerate(REPLAY_FORGERIES.values()):
        forged.append(folder / f"forged-{at}.jsonl")
        forged[-1].write_text("".join(line + "\n" for line in forge(list(lines))), encoding="utf-8")
    verdicts = _verify_each([[str(path)] for path in forged])
    detected = sum(verdict.status != 0 for verdict in verdicts)
    peak = max([intact.peak_mb, *(verdict.peak_mb for verdict in verdicts)])
    return {"finding": 2, "attack": "forged replay files (" + "; ".join(REPLAY_FORGERIES) + ")",
            "peak_rss_mb": round(peak, 1), "detected": detected, "forgeries": len(REPLAY_FORGERIES)}


def _database_rows(folder: Path, games: int) -> dict[str, Any]:
    bots = folder / "bots.toml"
    bots.write_text("".join(f'[[bots]]\nname = "{name}"\nbuiltin = "{kind}"\n'
                            for name, kind in (("Ann", "dag"), ("Bob", "ldasg"), ("Cyd", "dag"))))
    original = folder / "results.sqlite"
    league = _run(["league", "q", "--bots", str(bots), "--games", str(games), "--db", f"sqlite:///{original}",
                   "--quiet", "--workers", "1"])
    if league.status != 0:
        raise RuntimeError(f"the league failed: {league.err[-300:]}")
    intact = _run(["replay", "verify", "--db", f"sqlite:///{original}"])
    if intact.status != 0:
        raise RuntimeError(f"the intact database does not verify: {intact.err[-300:]}")
    copies = []
    for at, forge in enumerate(DATABASE_FORGERIES.values()):
        copies.append(folder / f"forged-{at}.sqlite")
        with sqlite3.connect(original) as source, sqlite3.connect(copies[-1]) as target:
            source.backup(target)
        with sqlite3.connect(copies[-1]) as connection:
            forge(connection)
    verdicts = _verify_each([["--db", f"sqlite:///{copy}"] for copy in copies])
    detected = sum(verdict.status != 0 and bool(re.search(r"\bgame 2\b", verdict.err)) for verdict in verdicts)
    peak = max([intact.peak_mb, *(verdict.peak_mb for verdict in verdicts)])
    return {"finding": 2, "attack": f"forged database rows of a {games}-game league ("
                                    + "; ".join(DATABASE_FORGERIES) + ")",
            "peak_rss_mb": round(peak, 1), "detected": detected, "forgeries": len(DATABASE_FORGERIES)}


def run_attacks(quick: bool = False, period: int = 10) -> list[dict[str, Any]]:
    """Every attack of findings 6 and 2 (see the module); ``quick`` runs the short
    configuration's attack only with 20 silent connections and a smaller database.
    ``period`` is the short configuration's one sign-up period in seconds (a test gives a
    generous one: on a loaded machine the honest clients' own start can take 10 s)."""
    short = f"short configuration (4 seats, one {period} s period)"
    rows = [_signup_row(short, lambda: _short(period), 20)]
    if not quick:
        rows.append(_signup_row("shipped example configuration", _shipped, 20))
        rows.append(_signup_row(short, lambda: _short(period), 500))
    with tempfile.TemporaryDirectory(prefix="gameroom-hostile-") as folder:
        rows.append(_replay_rows(Path(folder)))
        rows.append(_database_rows(Path(folder), 3 if quick else 50))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gameroom.bench.hostile_signup",
                                     description="Sign-up starvation and forged records, with the real programs.")
    parser.add_argument("--quick", action="store_true", help="fewer and smaller attacks")
    return run(parser.parse_args(argv).quick)


def run(quick: bool = False) -> int:
    """Print each attack's row (a line and its JSON), as ``python -m gameroom.bench hostile``
    does for every hostile part; 1 when one misses its target."""
    failed = False
    for row in run_attacks(quick):
        if row["finding"] == 6:
            ratio = row["honest_s_with"] / row["honest_s_without"]
            ok = row["peak_rss_mb"] < RSS_TARGET_MB and ratio <= SLOWDOWN_TARGET
            print(f"finding 6: {row['attack']}: server peak {row['peak_rss_mb']:.0f} MB, honest clients "
                  f"{row['honest_s_without']:.2f} s without, {row['honest_s_with']:.2f} s with ({ratio:.2f}x)"
                  + ("" if ok else "  <- misses the target"), flush=True)
        else:
            ok = row["detected"] == row["forgeries"] and row["peak_rss_mb"] < RSS_TARGET_MB
            print(f"finding 2: {row['attack'].split(' (')[0]}: {row['detected']} of {row['forgeries']} forgeries "
                  f"detected, verifier peak {row['peak_rss_mb']:.0f} MB" + ("" if ok else "  <- misses the target"),
                  flush=True)
        failed |= not ok
        print(json.dumps(row), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
