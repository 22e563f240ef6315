"""Wire envelopes and sign-up policies as parts a protocol declares, over real TCP: a toy
protocol shaped like Evolution's (positional calls told apart by length, a one-way call,
sign-ups answered by "ok", at least 3 then one wait per further player, newest first)
runs through the same server, proxies and clients as the tagged games."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from dataclasses import replace
from typing import Any, Callable, Sequence

from gameroom.core.limits import Limits
from gameroom.core.hosting import ClientSpec, QuorumPolicy, ServerPlan, SignupRules, name_rule
from gameroom.core.match import Match, Seat
from gameroom.core.protocol import TAGGED, Codec, Greeting, Method, Positional, WireProtocol
from gameroom.core.wire import WireError, expect_int
from gameroom.server.clients import run_clients
from gameroom.server.host import host_game
from tests.driver import free_port

INT = Codec(lambda v: v, expect_int, "int")
POSITIONAL = WireProtocol("toy-positional", (
    Method("start", "start", (INT, INT, INT), INT, one_way=True),
    Method("choose", "choose", (INT, INT), INT),
), envelope=Positional(), greeting=Greeting(ack="ok"))

# A further player is awaited 3 s (the next connection of a loaded machine comes sooner);
# a name has 2 s (an honest client sends it at once).
RULES = SignupRules(min_players=3, max_players=5, periods=0, period_seconds=0.0,
                    name_first_byte=2.0, name_complete=2.0, valid_name=name_rule(r"[a-z ]+", 20),
                    policy=QuorumPolicy(extra_wait=3.0), newest_first=True)


class Chooser:
    def __init__(self) -> None:
        self.started: list[tuple[int, int, int]] = []

    def start(self, a: int, b: int, c: int) -> int:
        self.started.append((a, b, c))
        return 99   # ignored: start is one-way

    def choose(self, a: int, b: int) -> int:
        return a + b + len(self.started)


def playing(limit: float) -> Callable[[Sequence[Seat]], Any]:
    """The toy game, every call within ``limit`` seconds."""
    def play(seats: Sequence[Seat]) -> Any:
        match = Match(POSITIONAL, seats, limits=Limits(call=limit))
        for i, seat in enumerate(seats):
            assert match.call(seat, "start", i, 0, 0) is None
        answers = [match.call(seat, "choose", i, 10) for i, seat in enumerate(seats)]
        return [[s.name for s in seats], answers, match.misbehaved]
    return play


# Honest players never miss a 10 s limit; raw peers that never answer miss a 1 s one.
PLAN = ServerPlan(protocol=POSITIONAL, rules=RULES, play=playing(10.0), no_game_result=None, error_result="error")
MUTE_PLAN = replace(PLAN, play=playing(1.0))




def test_envelopes_encode_and_find_methods() -> None:
    choose = POSITIONAL.method("choose")
    assert POSITIONAL.envelope.encode_call(choose, (1, 2)) == [1, 2]
    assert POSITIONAL.envelope.decode_call(POSITIONAL, [1, 2, 3]) == (POSITIONAL.method("start"), (1, 2, 3))
    assert TAGGED.encode_call(choose, (1, 2)) == ["choose", [1, 2]]
    assert TAGGED.decode_call(POSITIONAL, ["choose", [4, 5]]) == (choose, (4, 5))
    for bad in ([1], {"a": 1}, [1, "x"]):
        try:
            POSITIONAL.envelope.decode_call(POSITIONAL, bad)
        except WireError:
            continue
        raise AssertionError(f"{bad} was taken for a call")


def test_positional_one_way_ok_and_quorum_policy_over_tcp() -> None:
    async def main() -> tuple[Any, list[Any]]:
        port = free_port()
        server = asyncio.get_running_loop().create_task(host_game(PLAN, port))
        await asyncio.sleep(0.1)
        specs = [ClientSpec(name=n, player=Chooser(), protocol=POSITIONAL, delay=0.05) for n in ("a", "b", "c", "d")]
        clients = await run_clients(specs, "127.0.0.1", port)
        return await asyncio.wait_for(server, 120), clients

    result, clients = asyncio.run(main())
    # newest first; d came within the extra wait, then nobody for 3 s: the game starts with 4
    assert result == [["d", "c", "b", "a"], [11, 12, 13, 14], []]
    assert all(c.calls == ["start", "choose"] for c in clients)


def test_the_quorum_is_awaited_however_long_and_failed_late_sign_ups_count() -> None:
    """Raw peers: every accepted sign-up is answered "ok"; a bad late sign-up uses up an
    optional place (the reference quirk), so with max 5 only one more player fits."""
    port = free_port()

    def peer(name: Any) -> socket.socket:
        for _ in range(100):
            try:
                sock = socket.create_connection(("127.0.0.1", port))
                break
            except OSError:
                time.sleep(0.05)
        sock.sendall(json.dumps(name).encode())
        return sock

    async def main() -> Any:
        server = asyncio.get_running_loop().create_task(host_game(MUTE_PLAN, port))
        await asyncio.sleep(0.1)
        loop = asyncio.get_running_loop()
        socks = []
        for name in ("a", "b"):
            socks.append(await loop.run_in_executor(None, peer, name))
        await asyncio.sleep(3.5)          # longer than the extra wait: still waiting for 3
        assert not server.done()
        for name in ("c", 17, "e", "f"):  # 17 fails but counts; e fills the 5th place
            socks.append(await loop.run_in_executor(None, peer, name))
            await asyncio.sleep(0.1)
        answers = []
        for sock in socks[:3]:
            sock.settimeout(5)
            answers.append(sock.recv(4).strip())
        result = await asyncio.wait_for(server, 120)
        for sock in socks:
            sock.close()
        return answers, result

    answers, result = asyncio.run(main())
    assert answers == [b'"ok"'] * 3
    # the raw peers answer no calls: all ejected; the seating is newest first
    assert result[0] == ["e", "c", "b", "a"]
    assert sorted(result[2]) == ["a", "b", "c", "e"]
