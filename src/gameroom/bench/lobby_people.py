"""What people cost the lobby (docs/lobby.md, "Rooms played by calls"): checks and pictures.

Two figures of ``python -m gameroom.bench lobby``, each against a lobby of every game on a
thread of this process, its clients in other processes (so their work does not share the
lobby's interpreter):

* **checks**: another client's round trips (``GET_PUBLIC_ROOMS``, one at a time) quiet,
  then while 8 persons, each at its first Q decision in a room of its own, flood ``CHECK``
  requests of 256 two-tile answers, 4 in flight each — the issue's finding (others' p50
  0.6 -> 187 ms). Printed: p50/p99 quiet and beside the flood, and the answers judged per
  second.
* **pictures**: 64 spectators of one Q room (a person thinking, so the state stays) ask
  ``GET_GAME_STATE`` with ``pictures: true`` again and again, 2 in flight each. Printed:
  states served per second and how many pictures the lobby drew for them (counted around
  ``GameDescriptor.picture``): once per step is the aim, not once per request.

The module also runs those clients (``python -m gameroom.bench.lobby_people flood|probe|
watch ...``). Figures only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import socket
import subprocess
import sys
import time
from typing import Any

from gameroom.core.game import GameDescriptor
from gameroom.games import registry
from gameroom.remote.jsonstream import NEED_MORE, JSONStreamDecoder, encode
from gameroom.server.lobby_config import LobbyConfig
from gameroom.server.xscenario import LobbyThread

__all__ = ["measure_checks", "measure_pictures", "run"]

GAME = "q"
FLOODERS = 8
CHECK_ANSWERS = 256
IN_FLIGHT = 4
WATCHERS = 64


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


# -- clients (in their own processes) ----------------------------------------------------------
class _Client:
    """One lobby connection over asyncio streams: messages out, messages in."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.decoder = JSONStreamDecoder(1 << 24)

    @classmethod
    async def login(cls, port: int, name: str) -> "_Client":
        client = cls(*await asyncio.open_connection("127.0.0.1", port, limit=1 << 20))
        await client.ask({"type": "LOGIN", "username": name}, "ACK")
        return client

    def send(self, message: dict[str, Any]) -> None:
        self.writer.write(encode(message))

    async def recv(self) -> dict[str, Any]:
        while True:
            value = self.decoder.next_value()
            if value is not NEED_MORE:
                if value.get("type") == "PING":
                    self.send({"type": "PONG"})
                    continue
                return dict(value)
            data = await self.reader.read(1 << 16)
            if not data:
                raise ConnectionError("the lobby closed the connection")
            self.decoder.feed(data)

    async def until(self, *kinds: str) -> dict[str, Any]:
        while True:
            message = await self.recv()
            if message.get("type") in kinds:
                return message
            if message.get("type") == "NACK":
                raise RuntimeError(f"refused: {message.get('errorMessage')}")

    async def ask(self, message: dict[str, Any], *kinds: str) -> dict[str, Any]:
        self.send(message)
        return await self.until(*kinds)


async def _person_at_a_decision(port: int, name: str) -> tuple[_Client, dict[str, Any]]:
    """A person in a Q room of its own against a house bot, at its first decision: the
    connection and the CALL."""
    person = await _Client.login(port, name)
    await person.ask({"type": "CREATE_ROOM", "game": GAME, "numberOfPlayers": 2, "isPrivate": True,
                      "person": True}, "ROOM_ID")
    await person.ask({"type": "ADD_BOT", "strategy": "dag"}, "ACK")
    while True:
        call = await person.until("CALL")
        if not call.get("oneWay"):
            return person, call


def _two_tile_answers(call: dict[str, Any]) -> list[Any]:
    """256 answers of two placements each, made of the single placements offered."""
    singles = [m["action"] for m in call["moves"] if isinstance(m["action"], list)]
    pairs = [a + b for a, b in itertools.permutations(singles, 2)] or [singles[0] * 2]
    return [pairs[k % len(pairs)] for k in range(CHECK_ANSWERS)]


async def _flood(port: int, persons: int) -> None:
    """``persons`` persons at a decision; "ready" on stdout, then each keeps IN_FLIGHT
    CHECKs of 256 answers in flight until standard input closes; then the answers judged."""
    people = await asyncio.gather(*(_person_at_a_decision(port, f"flood{k}") for k in range(persons)))
    print("ready", flush=True)
    stop = asyncio.Event()
    judged = [0]

    async def flood(person: _Client, call: dict[str, Any]) -> None:
        request = {"type": "CHECK", "call": call["call"], "results": _two_tile_answers(call)}
        for _ in range(IN_FLIGHT):
            person.send(request)
        while not stop.is_set():
            answer = await person.until("CHECKED")
            judged[0] += len(answer["problems"])
            person.send(request)

    tasks = [asyncio.create_task(flood(person, call)) for person, call in people]
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    stop.set()
    started = time.perf_counter()
    for task in tasks:
        task.cancel()
    print(json.dumps({"judged": judged[0], "at": started}), flush=True)


async def _probe(port: int, seconds: float) -> None:
    """Round trips of GET_PUBLIC_ROOMS, one at a time, for ``seconds``: their times (s)."""
    client = await _Client.login(port, "prober")
    times: list[float] = []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        start = time.perf_counter()
        await client.ask({"type": "GET_PUBLIC_ROOMS", "game": "*"}, "PUBLIC_ROOMS")
        times.append(time.perf_counter() - start)
    print(json.dumps(times), flush=True)


async def _watch(port: int, room: int, watchers: int, seconds: float) -> None:
    """``watchers`` spectators of ``room`` with pictures, each with 2 GET_GAME_STATEs in
    flight for ``seconds``: the states served (with a picture)."""
    clients = await asyncio.gather(*(_Client.login(port, f"watcher{k}") for k in range(watchers)))
    for client in clients:
        await client.ask({"type": "WATCH_ROOM", "id": room, "pictures": True}, "ACK")
    served = [0]
    deadline = time.perf_counter() + seconds

    async def ask(client: _Client) -> None:
        for _ in range(2):
            client.send({"type": "GET_GAME_STATE"})
        while time.perf_counter() < deadline:
            state = await client.until("GAME_STATE")
            served[0] += bool(state.get("svg"))
            client.send({"type": "GET_GAME_STATE"})

    start = time.perf_counter()
    await asyncio.gather(*(ask(client) for client in clients))
    print(json.dumps({"served": served[0], "seconds": time.perf_counter() - start}), flush=True)


# -- the measurements (the lobby here) ---------------------------------------------------------
def _lobby() -> LobbyThread:
    """Every game's lobby on a thread: no quotas per address (every client is 127.0.0.1),
    a person's decision that waits as long as the measurement."""
    return LobbyThread(list(registry.games().values()),
                       LobbyConfig(host="127.0.0.1", port=0, seed=1, max_connections_per_address=0,
                                   max_rooms_per_address=0, person_timeout=3600.0))


def _module(*args: str, **popen: Any) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "gameroom.bench.lobby_people", *args], text=True,
                            stdout=subprocess.PIPE, **popen)


def _probe_times(port: int, seconds: float) -> list[float]:
    out, _ = _module("probe", "--port", str(port), "--seconds", str(seconds)).communicate()
    return list(json.loads(out))


def measure_checks(seconds: float = 5.0, persons: int = FLOODERS) -> dict[str, float]:
    """Another client's round trips quiet, then beside ``persons`` flooding checks."""
    server = _lobby()
    try:
        quiet = _probe_times(server.port, seconds)
        flood = _module("flood", "--port", str(server.port), "--persons", str(persons), stdin=subprocess.PIPE)
        assert flood.stdout is not None and flood.stdin is not None
        if flood.stdout.readline().strip() != "ready":
            raise RuntimeError("the flooding persons did not reach a decision")
        start = time.perf_counter()
        loud = _probe_times(server.port, seconds)
        flood.stdin.close()
        judged = json.loads(flood.stdout.readline())
        flood.wait(60)
        took = judged["at"] - start if judged.get("at") else time.perf_counter() - start
    finally:
        server.stop()
    return {"quiet_p50_ms": _percentile(quiet, 0.5) * 1000, "quiet_p99_ms": _percentile(quiet, 0.99) * 1000,
            "flood_p50_ms": _percentile(loud, 0.5) * 1000, "flood_p99_ms": _percentile(loud, 0.99) * 1000,
            "round_trips_quiet": len(quiet), "round_trips_flood": len(loud),
            "judged_per_second": judged["judged"] / max(took, 1e-9)}


def measure_pictures(seconds: float = 5.0, watchers: int = WATCHERS) -> dict[str, float]:
    """States per second to ``watchers`` picture watchers of one still room, and the
    pictures drawn for them."""
    drawings = [0]
    original = GameDescriptor.picture

    def counted(self: GameDescriptor, *args: Any, **kwargs: Any) -> Any:
        drawings[0] += 1
        return original(self, *args, **kwargs)

    server = _lobby()
    person = socket.create_connection(("127.0.0.1", server.port), timeout=60)
    try:
        decoder = JSONStreamDecoder(1 << 24)

        def until(kind: str) -> dict[str, Any]:
            while (value := decoder.next_value()) is NEED_MORE or value.get("type") != kind:
                if value is NEED_MORE:
                    decoder.feed(person.recv(1 << 16))
            return dict(value)

        person.sendall(encode({"type": "LOGIN", "username": "thinker"}))
        until("ACK")
        person.sendall(encode({"type": "CREATE_ROOM", "game": GAME, "numberOfPlayers": 2, "isPrivate": True,
                               "person": True}))
        room = until("ROOM_ID")["id"]
        person.sendall(encode({"type": "ADD_BOT", "strategy": "dag"}))
        until("ACK")
        while until("CALL").get("oneWay"):
            pass   # the person thinks from now on: the state stays
        def step() -> int:
            referee = server.lobby.rooms[room].referee
            return referee.step if referee is not None else 0

        steps_before = server.call(step)
        GameDescriptor.picture = counted   # type: ignore[method-assign]
        try:
            out, _ = _module("watch", "--port", str(server.port), "--room", str(room), "--watchers", str(watchers),
                             "--seconds", str(seconds)).communicate()
        finally:
            GameDescriptor.picture = original   # type: ignore[method-assign]
        steps = server.call(step) - steps_before + 1
        watched = json.loads(out)
    finally:
        person.close()
        server.stop()
    return {"states_per_second": watched["served"] / watched["seconds"], "served": watched["served"],
            "drawings": drawings[0], "steps": steps}


def run(seconds: float = 5.0) -> None:
    checks = measure_checks(seconds)
    print(f"lobby: another client's round trips (GET_PUBLIC_ROOMS), quiet and beside {FLOODERS} persons flooding "
          f"CHECKs of {CHECK_ANSWERS} two-tile {GAME} answers ({IN_FLIGHT} in flight each)")
    print(f"  quiet p50 {checks['quiet_p50_ms']:.2f} ms, p99 {checks['quiet_p99_ms']:.2f} ms "
          f"({checks['round_trips_quiet']} round trips); flood p50 {checks['flood_p50_ms']:.2f} ms, "
          f"p99 {checks['flood_p99_ms']:.2f} ms ({checks['round_trips_flood']}); p99 flood/quiet "
          f"{checks['flood_p99_ms'] / checks['quiet_p99_ms']:.2f}x; {checks['judged_per_second']:.0f} answers "
          "judged/s", flush=True)
    pictures = measure_pictures(seconds)
    print(f"lobby: {WATCHERS} spectators of one {GAME} room asking GET_GAME_STATE with pictures (2 in flight each)")
    print(f"  {pictures['states_per_second']:.0f} states/s ({pictures['served']} served); pictures drawn "
          f"{pictures['drawings']} for {pictures['steps']} step(s)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m gameroom.bench.lobby_people")
    parser.add_argument("role", choices=["flood", "probe", "watch"])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--persons", type=int, default=FLOODERS)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--room", type=int, default=0)
    parser.add_argument("--watchers", type=int, default=WATCHERS)
    args = parser.parse_args()
    if args.role == "flood":
        asyncio.run(_flood(args.port, args.persons))
    elif args.role == "probe":
        asyncio.run(_probe(args.port, args.seconds))
    else:
        asyncio.run(_watch(args.port, args.room, args.watchers, args.seconds))


if __name__ == "__main__":
    main()
