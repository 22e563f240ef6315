"""The admission every server shares (``server.admission``): the total, the quota per
address and of unfinished connections, trusted proxies counted apart, places given back
once, the file-handle limit raised and the cap kept under it; and the door of the stream
servers (``Gate``) on real sockets: admitted into a stream, refused with words that are
read, refused at once, and a connection reset before it was accepted."""

from __future__ import annotations

import asyncio
import logging
import os
import resource
import socket
import struct
from typing import Any

import pytest
from tests.driver import read_to_end

from gameroom.server.admission import (FILE_RESERVE, Admission, Connected, Gate, Refusal, TrustedProxies,
                                       connection_cap, file_limit)


def test_an_address_holds_at_most_its_quota_and_fewer_unfinished() -> None:
    admission = Admission(total=100, per_address=5, unfinished_per_address=2,
                          key_name=lambda key: f"--{key.replace('_', '-')}")
    first, second = admission.enter(("127.0.0.2", 1)), admission.enter(("127.0.0.2", 2))
    assert not isinstance(first, str) and not isinstance(second, str)
    refused = admission.enter(("127.0.0.2", 3))
    assert isinstance(refused, str) and "--unfinished-per-address" in refused
    assert not isinstance(admission.enter(("127.0.0.1", 4)), str)   # another address is let in
    first.unfinished = second.unfinished = False
    for port in range(3):   # each completes its request before the next opens
        place = admission.enter(("127.0.0.2", 10 + port))
        assert not isinstance(place, str)
        place.unfinished = False
    over = admission.enter(("127.0.0.2", 20))
    assert isinstance(over, str) and "--connections-per-address" in over and admission.holding(("127.0.0.2", 0)) == 5
    admission.leave(first)
    admission.leave(first)   # once only
    assert admission.holding(("127.0.0.2", 0)) == 4 and admission.open == 5
    assert not isinstance(admission.enter(("127.0.0.2", 21)), str)


def test_the_total_is_for_everyone_and_an_ipv6_client_counts_by_its_64() -> None:
    admission = Admission(total=3, per_address=2, unfinished_per_address=2)
    assert not isinstance(admission.enter(("2001:db8::1", 1, 0, 0)), str)
    assert not isinstance(admission.enter(("2001:db8::2", 1, 0, 0)), str)
    assert "connections_per_address" in str(admission.enter(("2001:db8::3", 1, 0, 0)))   # the same /64
    assert not isinstance(admission.enter(("127.0.0.1", 1)), str)
    full = admission.enter(("127.0.0.9", 1))
    assert isinstance(full, str) and "max_connections" in full


def test_trusted_proxies_are_not_counted_per_address() -> None:
    proxies = TrustedProxies("10.0.0.1, 192.168.0.0/24")
    assert "10.0.0.1" in proxies and "192.168.0.77" in proxies and "::ffff:10.0.0.1" in proxies
    assert "10.0.0.2" not in proxies and "not an address" not in proxies and not TrustedProxies("")
    admission = Admission(total=50, per_address=1, unfinished_per_address=1, trusted=proxies)
    assert all(not isinstance(admission.enter(("10.0.0.1", port)), str) for port in range(10))
    with pytest.raises(ValueError, match="'nonsense' is not an IP address or network"):
        TrustedProxies("10.0.0.1,nonsense")


def test_the_file_limit_is_raised_to_the_hard_one_and_the_cap_stays_under_it() -> None:
    soft = file_limit()
    assert soft == resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    assert hard == resource.RLIM_INFINITY or soft == hard
    assert connection_cap(1_000_000, 1024) == 1024 - FILE_RESERVE
    assert connection_cap(100, 1024) == 100
    assert connection_cap(1_000_000, 100_000) == 90_000


def test_the_gate_admits_into_a_stream_or_refuses_at_the_door() -> None:
    async def main() -> None:
        problems: list[dict[str, Any]] = []
        asyncio.get_running_loop().set_exception_handler(lambda _loop, context: problems.append(context))

        async def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            writer.write(b"hello " + await reader.readline())
            await writer.drain()
            writer.close()

        # in the order they come: admitted; refused, reset by its peer before it was accepted;
        # refused, the first of its address's burst (words longer than one segment); refused,
        # the next of that burst
        said = b"full " * 4000 + b"\n"
        verdicts: list[Refusal | Connected] = [connected, Refusal("a", "full", said), Refusal("b", "full", said),
                                               Refusal("b", "full", said)]
        peers: list[Any] = []

        def admit(peer: object) -> Refusal | Connected:
            peers.append(peer)
            return verdicts.pop(0)

        gate = Gate(admit, logging.getLogger("test.gate"), linger_seconds=600)
        server = await gate.listen("127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"you\n")
        assert await reader.read() == b"hello you\n"   # admitted: the stream's own handler
        assert peers == [writer.get_extra_info("sockname")] and gate.entering == 0
        writer.close()
        gone = socket.create_connection(("127.0.0.1", port))
        gone.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        gone.close()   # reset: refused without an error
        # the first of a burst lingers half-closed: its words and the end are read whole even
        # though it sent what the server never reads (closed at once, the peer would be reset)
        reader, first = await asyncio.open_connection("127.0.0.1", port)
        first.write(b"unread " * 1000)
        assert await reader.read() == said
        assert gate.lingering == 1
        # the next of the burst: written and closed at once
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        assert await reader.read() == said
        assert gate.lingering == 1
        writer.close()
        first.close()   # the lingering one ends when its peer does
        while gate.lingering:
            await asyncio.sleep(0.01)
        server.close()
        assert server.sockets == () and not server.is_serving()
        assert (gate.admitted, gate.refused) == (1, 3)
        assert problems == []

    asyncio.run(main())


def test_the_gate_accepts_a_burst_in_batches_and_serves_between_them() -> None:
    """A burst of 60 connections waiting in the kernel's queue, 2 of them admitted and the
    rest refused, beside an admitted client that asks at the same moment: every one of
    the burst is judged, at most a batch (8) a turn of the loop, and the client is answered
    within two batches, not after the whole burst (asyncio's own server accepted the whole
    queue in one turn); the first refused reads its words whole."""
    async def main() -> None:
        loop = asyncio.get_running_loop()
        turn = 0

        def tick() -> None:   # once a turn of the loop
            nonlocal turn
            turn += 1
            if ticking:
                loop.call_soon(tick)

        judged: list[int] = []   # the turn each connection was judged in
        answered_after: list[int] = []

        async def honest(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            line = await reader.readline()
            answered_after.append(len(judged))
            writer.write(b"hello " + line)
            await writer.drain()

        async def quiet(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await reader.read()

        def admit(peer: object) -> Refusal | Connected:
            judged.append(turn)
            if len(judged) == 1:
                return honest
            return quiet if len(judged) <= 3 else Refusal("127.0.0.2", "over", b"over\n")

        gate = Gate(admit, logging.getLogger("test.gate"), batch=8, linger_seconds=600)
        server = await gate.listen("127.0.0.1", 0, backlog=128)
        port = server.sockets[0].getsockname()[1]
        client = socket.create_connection(("127.0.0.1", port), timeout=60)
        while not judged:   # the client is admitted and its stream made
            await asyncio.sleep(0.01)
        # the burst waits in the kernel's queue (the loop is not running meanwhile), then the client asks
        burst = [socket.create_connection(("127.0.0.1", port), timeout=60) for _ in range(60)]
        client.sendall(b"you\n")
        ticking = True
        tick()
        while len(judged) < 61 or not answered_after:
            await asyncio.sleep(0)
        ticking = False
        assert await loop.run_in_executor(None, client.recv, 100) == b"hello you\n"
        per_turn = [judged[1:].count(t) for t in set(judged[1:])]
        assert max(per_turn) <= 8 and len(per_turn) >= 60 // 8, judged
        # its line was ready with the first batch: answered within two, long before the burst's end
        assert answered_after[0] <= 1 + 2 * 8, answered_after
        assert (gate.admitted, gate.refused) == (3, 58)
        # the refused read their words (the first whole, lingering), the admitted nothing yet
        assert await loop.run_in_executor(None, read_to_end, burst[2]) == b"over\n"
        for sock in burst[3:]:
            assert await loop.run_in_executor(None, read_to_end, sock) in (b"over\n", b"")   # a reset may lose it
        server.close()
        for sock in [client, *burst]:
            sock.close()

    asyncio.run(main())



def test_out_of_file_handles_the_gate_pauses_then_accepts_what_waited(monkeypatch, caplog) -> None:
    """``accept()`` failing for want of file handles (the soft limit lowered to the files
    open): the gate says so once and stops accepting instead of retrying every turn of the
    loop; with handles again, it accepts the connections that waited in the queue."""
    import gameroom.server.admission as admission_module

    monkeypatch.setattr(admission_module, "ACCEPT_PAUSE_SECONDS", 0.05)
    caplog.set_level(logging.WARNING, logger="test.gate")

    async def main() -> None:
        admitted = asyncio.Event()
        served: list[bytes] = []

        async def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            served.append(await reader.readline())
            if len(served) == 3:
                admitted.set()

        gate = Gate(lambda peer: connected, logging.getLogger("test.gate"))
        server = await gate.listen("127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        clients = [socket.create_connection(("127.0.0.1", port), timeout=60) for _ in range(3)]
        for client in clients:
            client.sendall(b"waited\n")
        lowest_free = os.dup(0)   # the descriptor accept() would take: at the limit now
        os.close(lowest_free)
        resource.setrlimit(resource.RLIMIT_NOFILE, (lowest_free, hard))
        try:
            deadline = asyncio.get_running_loop().time() + 60
            while not any("accepting connections" in r.getMessage() for r in caplog.records):   # paused
                assert asyncio.get_running_loop().time() < deadline, "accept() never failed"
                await asyncio.sleep(0.01)
            assert gate.admitted == 0
        finally:
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        await asyncio.wait_for(admitted.wait(), 60)
        assert served == [b"waited\n"] * 3 and gate.admitted == 3
        server.close()
        for client in clients:
            client.close()

    asyncio.run(main())
    warnings = [r.getMessage() for r in caplog.records if "accepting connections" in r.getMessage()]
    assert warnings and "accepting again in 0.05 s" in warnings[0], warnings
