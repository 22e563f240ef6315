"""Hostile users against the lobby (issue 17, findings 1 and 5), beside honest games.

Each attack runs against a fresh ``gameroom serve eriantys`` subprocess with the shipped
defaults. The attackers are other hosts: they connect from 127.0.0.2 and up (Linux routes
the whole of 127/8 to the loopback); the honest players are real bot clients
(``remote.lobby_client``, in a subprocess of their own) from 127.0.0.1, four 2-player
rooms played at once. For each attack :func:`run_attacks` returns the server's peak
resident memory (``VmHWM`` of /proc, so the peak of the whole run, the attack included)
and the honest games' wall time on that server before the attack and while it runs:

* finding 1, ``unread listings``: ten hosts hold 990 public rooms, and one of their
  connections sends 10,000 ``GET_PUBLIC_ROOMS`` without reading a reply (the finding's
  own numbers: 1.17 GB and an honest game 0.21 s -> 14.5 s);
* finding 1, ``unread game states``: one host fills its quota with started rooms and every
  connection of it sends ``GET_GAME_STATE`` requests without reading;
* finding 5, ``room flood``: one host asks for 1,000 rooms on 1,000 connections (it
  once got them all in 0.3 s and honest users got "Too many rooms");
* finding 5, ``private id scan``: one host tries every room id in order on 50
  connections to find a private room (it once took 5,875 tries and 11 s).

``python -m gameroom.bench.hostile_lobby [--quick]`` prints the rows; the lead's
``python -m gameroom.bench hostile`` combines them with the other servers' attacks.
The module also runs the honest clients (``--honest PORT ROOMS``, in their own process).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import select
import socket
import statistics
import subprocess
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gameroom.bench.processes import python_module, status_kb
from gameroom.games import registry

__all__ = ["main", "run_attacks"]

HONEST_ROOMS = 4
_ATTACKERS = [f"127.0.0.{k}" for k in range(2, 12)]


def _lobby_game() -> Any:
    return next(g for g in registry.games().values() if g.lobby is not None)


# -- the server --------------------------------------------------------------------------------------
class _Server:
    """``gameroom serve eriantys`` on a free port of 127.0.0.1, diagnostics to a file."""

    def __init__(self, workdir: Path) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.log_path = workdir / f"lobby-{self.port}.log"
        self.log_file = self.log_path.open("wb")
        self.proc = subprocess.Popen(python_module("gameroom", "serve", _lobby_game().name, "--port", str(self.port)),
                                     stdout=subprocess.DEVNULL,
                                     stderr=self.log_file, cwd=workdir)
        for _ in range(600):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=10).close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"the lobby did not start: {self.log()}") from None
                time.sleep(0.05)
        raise RuntimeError("the lobby did not start")

    def peak_rss_mb(self) -> float:
        peak = status_kb(self.proc.pid, "VmHWM")
        if peak is None:
            raise RuntimeError("no VmHWM in /proc")
        return peak / 1024

    def log(self) -> str:
        self.log_file.flush()
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log_file.close()


# -- the honest players ------------------------------------------------------------------------------
async def _honest_games(port: int, rooms: int) -> float:
    """Play ``rooms`` 2-player rooms at once with bots; the seconds until all ended."""
    from gameroom.remote.lobby_client import RoomPlan, play_room

    game = _lobby_game()
    lobby = game.lobby
    strategy = next(iter(game.strategies))
    loop = asyncio.get_running_loop()
    start = time.perf_counter()
    plans = [RoomPlan(2, {}, False, loop.create_future()) for _ in range(rooms)]
    results = await asyncio.gather(*[play_room(lobby, "127.0.0.1", port, f"honest{r}_{seat}",
                                               lobby.bot(f"honest{r}_{seat}", strategy, r * 2 + seat),
                                               seat == 0, plans[r], lobby.ranking)
                                     for r in range(rooms) for seat in range(2)])
    seconds = time.perf_counter() - start
    unfinished = [res for res in results if res.winners is None]
    if unfinished:
        raise RuntimeError(f"honest games did not finish: {unfinished[0].closed}")
    return seconds


def _honest_seconds(port: int, repeats: int) -> float:
    """The median wall time of ``repeats`` honest runs, each in a process of its own."""
    times = []
    for _ in range(repeats):
        run = subprocess.run(python_module("gameroom.bench.hostile_lobby", "--honest", str(port), str(HONEST_ROOMS)),
                             capture_output=True, text=True, timeout=900, check=False)
        if run.returncode != 0:
            raise RuntimeError(f"the honest games failed: {run.stderr.strip()[-500:]}")
        times.append(float(run.stdout.split()[-1]))
    return statistics.median(times)


# -- attackers ----------------------------------------------------------------------------------------
def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def _open(port: int, source: str, count: int) -> list[socket.socket]:
    socks = []
    for _ in range(count):
        try:
            socks.append(socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(source, 0)))
        except OSError:
            break
    return socks


def _replies(sock: socket.socket, wanted: int, seconds: float = 10.0,
             last: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """Up to ``wanted`` messages from ``sock`` within ``seconds`` (fewer if it closes, or
    once a message of a type in ``last`` came)."""
    decoder, buffer = json.JSONDecoder(), ""
    out: list[Any] = []
    deadline = time.monotonic() + seconds
    while len(out) < wanted and (left := deadline - time.monotonic()) > 0:
        if not select.select([sock], [], [], left)[0]:
            break
        try:
            data = sock.recv(1 << 16)
        except OSError:
            break
        if not data:
            break
        buffer += data.decode("utf-8", "replace")
        while (text := buffer.lstrip()) and len(out) < wanted:
            try:
                value, end = decoder.raw_decode(text)
            except json.JSONDecodeError:
                break
            out.append(value)
            buffer = text[end:]
            if isinstance(value, dict) and value.get("type") in last:
                return out
    return out


def _hold_rooms(port: int, source: str, count: int, prefix: str) -> tuple[list[socket.socket], list[int],
                                                                           Counter[str]]:
    """``count`` connections from ``source`` that log in and create a public 2-player room
    each: the connections, the ids of the rooms they got and the refusals they met."""
    socks = _open(port, source, count)
    for k, sock in enumerate(socks):
        try:
            sock.sendall(_line({"type": "LOGIN", "username": f"{prefix}{k}"})
                         + _line({"type": "CREATE_ROOM", "numberOfPlayers": 2, "expert": False,
                                  "isPrivate": False}))
        except OSError:
            pass   # refused and closed already
    ids: list[int] = []
    refusals: Counter[str] = Counter()
    for sock in socks:
        for reply in _replies(sock, 3, last=("ROOM_ID", "NACK")):
            if reply.get("type") == "ROOM_ID":
                ids.append(reply["id"])
            elif reply.get("type") == "NACK":
                refusals[reply.get("errorMessage", "")] += 1
                break
    return socks, ids, refusals


def _send_in_background(socks: list[socket.socket], data: bytes) -> threading.Thread:
    """Send ``data`` on every socket, as much as the server takes within 20 s each."""
    def send_all() -> None:
        for sock in socks:
            sock.settimeout(20)
            try:
                sock.sendall(data)
            except OSError:
                pass
    thread = threading.Thread(target=send_all, daemon=True)
    thread.start()
    return thread


def _wait_for_drops(server: _Server, expected: int, seconds: float = 30.0) -> int:
    """How many connections the server dropped for not reading, waiting up to ``seconds``
    (its write time-out, 10 s by default) for ``expected`` of them."""
    deadline = time.monotonic() + seconds
    while (dropped := server.log().count("write blocked")) < expected and time.monotonic() < deadline:
        time.sleep(0.2)
    return dropped


class _Attack:
    """One attack: ``prepare`` before the honest games' second run, ``end`` after it."""

    finding = 0
    name = ""

    def __init__(self, port: int, quick: bool) -> None:
        self.port, self.quick = port, quick
        self.socks: list[socket.socket] = []

    def prepare(self) -> None:
        raise NotImplementedError

    def end(self, server: _Server) -> str:
        raise NotImplementedError

    def close(self) -> None:
        for sock in self.socks:
            sock.close()


class _UnreadListings(_Attack):
    finding, name = 1, "unread listings: 10,000 GET_PUBLIC_ROOMS beside 990 rooms, no reply read"

    def prepare(self) -> None:
        self.rooms = 0
        for host in _ATTACKERS:   # 99 rooms from each of ten hosts, within each one's quota
            socks, ids, _refusals = _hold_rooms(self.port, host, 99, f"l{host.rsplit('.', 1)[1]}_")
            self.socks += socks
            self.rooms += len(ids)
        self.sender = _send_in_background(self.socks[:1], _line({"type": "GET_PUBLIC_ROOMS"}) * 10000)

    def end(self, server: _Server) -> str:
        self.sender.join(timeout=60)
        dropped = _wait_for_drops(server, 1)
        return f"{self.rooms} rooms held; the flooder dropped for not reading: {dropped == 1}"


class _UnreadStates(_Attack):
    finding, name = 1, "unread game states: one host's connections in started rooms, no reply read"

    def prepare(self) -> None:
        creators, ids, _refusals = _hold_rooms(self.port, _ATTACKERS[0], 100, "s")
        joiners = _open(self.port, _ATTACKERS[0], len(ids))
        for k, (sock, room) in enumerate(zip(joiners, ids)):
            sock.sendall(_line({"type": "LOGIN", "username": f"j{k}"}) + _line({"type": "ACCESS_ROOM", "id": room}))
        self.socks = creators + joiners
        self.per_connection = 500 if self.quick else 2000
        self.sender = _send_in_background(self.socks, _line({"type": "GET_GAME_STATE"}) * self.per_connection)

    def end(self, server: _Server) -> str:
        self.sender.join(timeout=120)
        return (f"{len(self.socks)} connections x {self.per_connection} requests; "
                f"dropped for not reading: {_wait_for_drops(server, len(self.socks))}")


class _RoomFlood(_Attack):
    finding, name = 5, "room flood: one host asks for 1,000 rooms on 1,000 connections"

    def prepare(self) -> None:
        self.socks, self.ids, self.refusals = _hold_rooms(self.port, _ATTACKERS[0], 1000, "r")

    def end(self, server: _Server) -> str:
        return f"{len(self.ids)} rooms got; refused: " + ", ".join(f"{n} {text!r}" for text, n in self.refusals.items())


class _IdScan(_Attack):
    finding, name = 5, "private id scan: one host tries room ids in order on 50 connections"

    def prepare(self) -> None:
        self.victim = socket.create_connection(("127.0.0.1", self.port), timeout=30)
        self.victim.sendall(_line({"type": "LOGIN", "username": "victim"})
                            + _line({"type": "CREATE_ROOM", "numberOfPlayers": 2, "expert": False,
                                     "isPrivate": True}))
        self.room = next(r["id"] for r in _replies(self.victim, 3, last=("ROOM_ID",)) if r.get("type") == "ROOM_ID")
        self.socks = _open(self.port, _ATTACKERS[0], 50)
        ids = list(range(1000, 9999))
        for k, sock in enumerate(self.socks):
            share = ids[k::len(self.socks)]
            sock.sendall(_line({"type": "LOGIN", "username": f"scan{k}"})
                         + b"".join(_line({"type": "ACCESS_ROOM", "id": i}) for i in share))
        self.started = time.monotonic()

    def end(self, server: _Server) -> str:
        seconds = time.monotonic() - self.started
        answered = found = 0
        for sock in self.socks:
            replies = _replies(sock, 10**6, seconds=0.2)[1:]   # after the log-in's ACK
            answered += sum(1 for reply in replies if reply.get("type") in ("ACK", "NACK"))
            found += sum(1 for reply in replies if reply.get("type") == "ACK")
        self.victim.close()
        return f"{answered} of 8,999 ids answered in {seconds:.1f} s; the private room found: {found > 0}"


ATTACKS: list[Callable[[int, bool], _Attack]] = [_UnreadListings, _UnreadStates, _RoomFlood, _IdScan]


def run_attacks(quick: bool = False) -> list[dict[str, Any]]:
    """Every attack against a fresh lobby, beside honest games: one row each."""
    repeats = 1 if quick else 3
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for make in ATTACKS:
            server = _Server(Path(workdir))
            attack = make(server.port, quick)
            try:
                without = _honest_seconds(server.port, repeats)
                attack.prepare()
                with_attack = _honest_seconds(server.port, repeats)
                detail = attack.end(server)
                rows.append({"finding": attack.finding, "attack": attack.name,
                             "peak_rss_mb": round(server.peak_rss_mb(), 1),
                             "honest_s_without": round(without, 3), "honest_s_with": round(with_attack, 3),
                             "detail": detail, "server_alive": server.proc.poll() is None})
            finally:
                attack.close()
                server.stop()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gameroom.bench.hostile_lobby",
                                     description="Hostile users against the lobby beside honest games.")
    parser.add_argument("--quick", action="store_true", help="fewer requests, one honest run each")
    parser.add_argument("--honest", nargs=2, type=int, metavar=("PORT", "ROOMS"),
                        help="(internal) play honest rooms on PORT and print their seconds")
    args = parser.parse_args(argv)
    if args.honest is not None:
        print(f"{asyncio.run(_honest_games(*args.honest)):.4f}")
        return 0
    print(f"hostile users against the lobby ({HONEST_ROOMS} honest 2-bot rooms at once, median of "
          f"{1 if args.quick else 3} runs)")
    for row in run_attacks(args.quick):
        ratio = row["honest_s_with"] / row["honest_s_without"] if row["honest_s_without"] else float("nan")
        print(f"  finding {row['finding']}: {row['attack']}\n"
              f"    peak RSS {row['peak_rss_mb']:.0f} MB; honest games {row['honest_s_without']:.2f} s alone, "
              f"{row['honest_s_with']:.2f} s beside it ({ratio:.2f}x); {row['detail']}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
