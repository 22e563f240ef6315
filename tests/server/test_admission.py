"""The admission every server shares (``server.admission``): the total, the quota per
address and of unfinished connections, trusted proxies counted apart, places given back
once, the file-handle limit raised and the cap kept under it; and the door of the stream
servers (``Gate``) on real sockets: admitted into a stream, refused with words that are
read, refused at once, and a connection reset before it was accepted."""

from __future__ import annotations

import asyncio
import logging
import resource
import socket
import struct
from typing import Any

import pytest

from gameroom.server.admission import (FILE_RESERVE, Admission, Gate, Refusal, TrustedProxies, connection_cap,
                                       file_limit)


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
        # in the order they come: admitted; refused, reset by its peer before it was accepted;
        # refused, the first of its address's burst; refused, the next of that burst
        verdicts: list[Refusal | None] = [None, Refusal("a", "full", b"full\n"), Refusal("b", "full", b"full\n"),
                                          Refusal("b", "full", b"full\n")]

        def admit(transport: asyncio.Transport) -> Refusal | None:
            return verdicts.pop(0)

        async def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            writer.write(b"hello " + await reader.readline())
            await writer.drain()
            writer.close()

        gate = Gate(admit, connected, logging.getLogger("test.gate"), linger_seconds=600)
        server = await gate.listen("127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"you\n")
        assert await reader.read() == b"hello you\n"   # admitted: the stream's own handler
        writer.close()
        gone = socket.create_connection(("127.0.0.1", port))
        gone.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        gone.close()   # reset: refused without an error
        # the first of a burst lingers half-closed: its words and the end are read even
        # though it sent what the server never reads (closed at once, the peer would be reset)
        reader, first = await asyncio.open_connection("127.0.0.1", port)
        first.write(b"unread " * 1000)
        assert await reader.read() == b"full\n"
        assert gate.lingering == 1
        # the next of the burst: written and closed at once
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        assert await reader.read() == b"full\n"
        assert gate.lingering == 1
        writer.close()
        first.close()
        server.close()
        assert (gate.admitted, gate.refused) == (1, 3)
        assert problems == []

    asyncio.run(main())
