"""Hostile users against the web room, beside honest ones (issue 17, finding 3).

A real ``gameroom web`` subprocess with its default limits serves honest users — bots-only
Q matches started through the API from 127.0.0.1, each followed to its end over the
match's websocket, one after another — while an attacker on another address of this
machine (127.0.0.2, .3, ...: a fresh one per attack, in its own process, so its work
does not slow the honest client's interpreter) runs one of finding 3's attacks without
pause:

* ``many matches``  — start matches as fast as the room answers (the finding: 1,000
  matches took the room from 49 MB to 4.7 GB);
* ``huge bodies``   — 50 MB request bodies, 8 at once, half with a declared length and
  half chunked (the finding: 182 MB peak for one, 607 MB for 8);
* ``deep bodies``   — JSON nested 10,000 deep (the finding: HTTP 500, RecursionError);
* ``cross-origin posts`` — ``text/plain`` and JSON posts naming another origin (the
  finding: accepted, 201);
* ``bad websocket messages`` — sockets naming missing seats, bots' seats, wrong tokens,
  and a spectator sending binary frames, garbage, deep JSON and unknown messages (the
  finding: dropped with a ``KeyError``).

:func:`run_attacks` returns per attack the room's peak resident memory during it (the
kernel's ``VmHWM``, reset before each attack, and a sampler's) and the
honest matches' time without and with it (the median of several runs each); the targets
are a peak under 300 MB and honest matches at most 1.5x slower. The attacker's answers
are counted and printed (none of them may be a success). ``python -m
gameroom.bench.hostile_web [--quick]`` prints the figures.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from gameroom.bench.processes import python_module, status_kb

__all__ = ["ATTACKS", "run", "run_attacks"]

HONEST = "127.0.0.1"
ATTACKER = "127.0.0.2"   # each attack's process takes its own: 127.0.0.2, .3, ... (a fresh address each)
MB = 1024 * 1024
HONEST_MATCH = {"game": "q", "seats": ["dag", "ldasg"]}


# -- the attacks (each in a child process, until told to stop) -------------------------

def _going(stop: Any, go: Any) -> bool:
    """Whether to go on attacking: wait while paused (the honest runs without the attack);
    False once told to stop."""
    while not stop.is_set():
        if go.wait(0.05):
            return True
    return False


def _client(url: str) -> Any:
    import httpx

    return httpx.Client(base_url=url, timeout=60, transport=httpx.HTTPTransport(local_address=ATTACKER))


def _many_matches(url: str, stop: Any, go: Any, counts: Counter[str]) -> None:
    with _client(url) as client:
        seed = 0
        while _going(stop, go):
            seed += 1
            reply = client.post("/api/matches", json={"game": "q", "seats": ["dag", "ldasg"], "seed": seed})
            counts[f"start {reply.status_code}"] += 1


def _huge_bodies(url: str, stop: Any, go: Any, counts: Counter[str]) -> None:
    port = int(url.rsplit(":", 1)[1])
    body = b"[" + b"1," * (25 * MB) + b"1]"

    def one(chunked: bool) -> None:
        while _going(stop, go):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=60, source_address=(ATTACKER, 0)) as sock:
                    head = (f"POST /api/matches HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json"
                            f"\r\n{'Transfer-Encoding: chunked' if chunked else f'Content-Length: {len(body)}'}"
                            "\r\n\r\n")
                    sock.sendall(head.encode())
                    for start in range(0, len(body), MB):
                        piece = body[start:start + MB]
                        sock.sendall(f"{len(piece):x}\r\n".encode() + piece + b"\r\n" if chunked else piece)
                    counts["body sent whole"] += 1
                    counts[f"body {_status(sock)}"] += 1
            except OSError:
                counts["body cut off by the room"] += 1

    threads = [threading.Thread(target=one, args=(i % 2 == 0,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _status(sock: socket.socket) -> str:
    data = b""
    while b"\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            return "closed"
        data += chunk
    return data.split(b" ", 2)[1].decode()


def _deep_bodies(url: str, stop: Any, go: Any, counts: Counter[str]) -> None:
    deep = b"[" * 10_000 + b"]" * 10_000
    with _client(url) as client:
        while _going(stop, go):
            reply = client.post("/api/matches", content=deep, headers={"content-type": "application/json"})
            counts[f"deep {reply.status_code}"] += 1


def _cross_origin(url: str, stop: Any, go: Any, counts: Counter[str]) -> None:
    body = json.dumps({"game": "q", "seats": ["dag", "dag"]})
    with _client(url) as client:
        while _going(stop, go):
            for kind in ("text/plain", "application/json"):
                reply = client.post("/api/matches", content=body,
                                    headers={"content-type": kind, "origin": "http://evil.example"})
                counts[f"cross-origin {kind} {reply.status_code}"] += 1


def _bad_sockets(url: str, stop: Any, go: Any, counts: Counter[str]) -> None:
    from websockets.sync.client import connect as connect_from_anywhere

    port = int(url.rsplit(":", 1)[1])

    def connect(uri: str, **options: Any) -> Any:   # from the attacker's address, like its HTTP requests
        return connect_from_anywhere(uri, sock=socket.create_connection(("127.0.0.1", port), timeout=60,
                                                                        source_address=(ATTACKER, 0)), **options)

    ws = url.replace("http://", "ws://")
    with _client(url) as client:   # a match waiting for its person: it costs the room nothing while it waits
        client.post("/api/signup", json={"username": f"mallory{os.getpid()}", "password": "mallory's password"})
        match_id = client.post("/api/matches", json={"game": "q", "seats": ["human", "dag"],
                                                     "time_limit": 3600}).json()["id"]
    refusals = ["?seat=P9", "?seat=P2", "?seat=P1&token=guess"]
    bad = [b"\x00\x01", "{not json", "[" * 5000 + "]" * 5000, '{"type": "chat"}', '{"choice": 0}']
    while _going(stop, go):
        for query in refusals:
            with connect(f"{ws}/api/matches/{match_id}/ws{query}", open_timeout=60) as refused:
                try:
                    while True:
                        frame = json.loads(refused.recv(timeout=60))
                        if frame["type"] == "error":
                            counts[f"socket error frame (fatal={frame['fatal']})"] += 1
                except Exception:   # noqa: BLE001 - the room closed it, as it should
                    counts["socket closed by the room"] += 1
        with connect(f"{ws}/api/matches/{match_id}/ws", open_timeout=60) as spectator:
            for message in bad * 20:
                if stop.is_set() or not go.is_set():
                    break
                spectator.send(message)
                while True:
                    frame = json.loads(spectator.recv(timeout=60))
                    if frame["type"] == "error":
                        counts[f"message error frame (fatal={frame['fatal']})"] += 1
                        break


ATTACKS: dict[str, Callable[[str, Any, Any, Counter[str]], None]] = {
    "many matches": _many_matches,
    "huge bodies": _huge_bodies,
    "deep bodies": _deep_bodies,
    "cross-origin posts": _cross_origin,
    "bad websocket messages": _bad_sockets,
}


def _attacker(name: str, address: str, url: str, stop: Any, go: Any, results: Any) -> None:
    global ATTACKER
    ATTACKER = address
    counts: Counter[str] = Counter()
    try:
        ATTACKS[name](url, stop, go, counts)
    except Exception as exc:   # noqa: BLE001 - reported with the counts, never a hang
        counts[f"attacker stopped: {type(exc).__name__}: {exc}"[:160]] += 1
    results.put(dict(counts))


# -- the honest users and the room ------------------------------------------------------

class Room:
    """A ``gameroom web`` subprocess on a free port, its resident memory sampled."""

    def __init__(self) -> None:
        for _ in range(5):   # a port free a moment ago may be taken by then: another one
            with socket.socket() as probe:
                probe.bind(("127.0.0.1", 0))
                port = probe.getsockname()[1]
            self.process = subprocess.Popen(python_module("gameroom", "web", "--port", str(port)),
                                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            line = self.process.stdout.readline().decode() if self.process.stdout else ""
            if "serving on" in line:
                break
            self.process.wait(timeout=60)
        else:
            raise RuntimeError(f"gameroom web did not start: {line!r}")
        self.url = f"http://127.0.0.1:{port}"
        self.peak = 0.0
        self._sampling = threading.Event()
        self._sampler = threading.Thread(target=self._sample, daemon=True)
        self._sampler.start()

    def _status(self, field: str) -> float:
        return (status_kb(self.process.pid, field) or 0) / 1024

    def rss_mb(self) -> float:
        return self._status("VmRSS")

    def reset_peak(self) -> None:
        """Start a new peak: the kernel's high-water mark (``VmHWM``) is reset by writing 5
        to the process's ``clear_refs`` (where allowed; the sampler covers the rest)."""
        try:
            with open(f"/proc/{self.process.pid}/clear_refs", "w") as refs:
                refs.write("5")
        except OSError:
            pass
        self.peak = self.rss_mb()

    def peak_mb(self) -> float:
        """The peak since :meth:`reset_peak`: the kernel's mark, or the sampled one."""
        return max(self.peak, self._status("VmHWM") if self._hwm_reset() else 0.0)

    def _hwm_reset(self) -> bool:
        return os.access(f"/proc/{self.process.pid}/clear_refs", os.W_OK)

    def _sample(self) -> None:
        while not self._sampling.wait(0.01):
            self.peak = max(self.peak, self.rss_mb())

    def settle(self, sweep: bool = True) -> None:
        """Wait until no match runs (the attacker's last ones end; one waiting for its
        people costs nothing) and, with ``sweep``, the room's sweep ran."""
        import httpx

        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            matches = httpx.get(self.url + "/api/matches", timeout=60).json()
            if all(m["status"] != "running" for m in matches):
                break
            time.sleep(0.2)
        if sweep:
            time.sleep(6)   # one sweep of the room (every 5 s) hands freed memory back

    def stop(self) -> None:
        self._sampling.set()
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()


def honest_matches(url: str, count: int) -> float:
    """Seconds for ``count`` bots-only matches, each started over the API and followed
    over its websocket to its end frame, one after another."""
    import httpx
    from websockets.sync.client import connect

    ws = url.replace("http://", "ws://")
    began = time.perf_counter()
    with httpx.Client(base_url=url, timeout=120,
                      transport=httpx.HTTPTransport(local_address=HONEST)) as client:
        for seed in range(count):
            while True:
                reply = client.post("/api/matches", json={**HONEST_MATCH, "seed": seed})
                if reply.status_code == 201:
                    break
                if reply.status_code not in (429, 503):
                    raise RuntimeError(f"an honest match was refused: {reply.text}")
                time.sleep(0.05)   # the room is full: its answer says so; wait like a person would
            with connect(f"{ws}/api/matches/{reply.json()['id']}/ws", open_timeout=120) as watcher:
                while json.loads(watcher.recv(timeout=300))["type"] != "end":
                    pass
    return time.perf_counter() - began


def run_attacks(quick: bool = False, only: list[str] | None = None) -> list[dict[str, Any]]:
    """Every attack (or those named in ``only``) beside honest matches on one room: per
    attack the room's peak RSS (MB) and the honest matches' seconds without and with it
    (medians). The runs without and with an attack alternate (the attacker paused, then
    going), so that each pair meets the same load of a shared machine."""
    matches, runs = (3, 1) if quick else (10, 5)
    context = multiprocessing.get_context("spawn")
    room = Room()
    report: list[dict[str, Any]] = []
    try:
        honest_matches(room.url, 2)   # warm up: every import and cache of the room
        for number, name in enumerate(ATTACKS, 2):
            if only and name not in only:
                continue
            stop, go, results = context.Event(), context.Event(), context.Queue()
            attacker = context.Process(target=_attacker,
                                       args=(name, f"127.0.0.{number}", room.url, stop, go, results))
            attacker.start()
            without, with_attack = [], []
            room.reset_peak()
            for _ in range(runs):
                go.clear()
                room.settle(sweep=False)   # the attacker's last matches over
                without.append(honest_matches(room.url, matches))
                go.set()
                time.sleep(0.5 if quick else 1)   # the attack in full swing before the honest users come
                with_attack.append(honest_matches(room.url, matches))
            stop.set()
            counts = results.get(timeout=600)
            attacker.join(timeout=120)
            if room.process.poll() is not None:
                raise RuntimeError(f"the room died under {name!r}")
            report.append({"finding": 3, "attack": name, "peak_rss_mb": round(room.peak_mb(), 1),
                           "honest_s_without": round(statistics.median(without), 3),
                           "honest_s_with": round(statistics.median(with_attack), 3)})
            print(f"  {name}: the attacker's answers {dict(sorted(counts.items()))}; honest runs without "
                  f"{[round(t, 2) for t in without]}, with {[round(t, 2) for t in with_attack]}",
                  file=sys.stderr, flush=True)
            if not quick:
                room.settle()   # the next attack starts from a swept room
    finally:
        room.stop()
    return report


def run(quick: bool = False, only: list[str] | None = None) -> list[dict[str, Any]]:
    """Run the attacks and print their table (``python -m gameroom.bench hostile`` calls
    this for the web room's part); the rows."""
    load = os.getloadavg()[0]
    print(f"hostile users against gameroom web (load average {load:.1f} on {os.cpu_count()} cores)"
          + (" [quick]" if quick else ""), file=sys.stderr, flush=True)
    report = run_attacks(quick, only)
    print(f"{'attack':24} {'peak RSS':>9} {'honest without':>15} {'honest with':>12} {'slower':>7}")
    for row in report:
        ratio = row["honest_s_with"] / row["honest_s_without"] if row["honest_s_without"] else float("nan")
        print(f"{row['attack']:24} {row['peak_rss_mb']:7.1f} MB {row['honest_s_without']:13.3f} s "
              f"{row['honest_s_with']:10.3f} s {ratio:6.2f}x")
    print("targets: peak RSS under 300 MB, honest matches at most 1.5x slower; the finding: 4.7 GB after "
          "1,000 matches, 182 MB / 607 MB peaks for one / eight 50 MB bodies")
    print(json.dumps(report), flush=True)
    return report


def main() -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m gameroom.bench.hostile_web", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 honest matches, one run each (a smoke run)")
    parser.add_argument("--attack", action="append", choices=list(ATTACKS), default=None,
                        help="run this attack only (repeatable; default: every attack)")
    args = parser.parse_args()
    run(args.quick, args.attack)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
