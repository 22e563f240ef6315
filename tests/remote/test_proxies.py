"""Remote play over real TCP sockets on 127.0.0.1: the proxy player makes a remote player
look local, and every way a client can misbehave becomes a failed call with a reason."""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable

import pytest

from gameroom.core.calls import CallFailed
from gameroom.core.protocol import Codec, Method, WireProtocol, VOID
from gameroom.core.wire import expect_int
from gameroom.remote.connection import Connection, open_connection
from gameroom.remote.proxy_player import ProxyPlayer
from gameroom.remote.proxy_referee import serve_referee
from gameroom.server.host import run_in_thread

INT = Codec(lambda v: v, expect_int, "int")
PROTOCOL = WireProtocol("toy", (
    Method("double", "double", (INT,), INT),
    Method("bye", "bye", (), VOID, final=True),
))


class Doubler:
    def __init__(self) -> None:
        self.calls: list[Any] = []

    def double(self, x: int) -> int:
        self.calls.append(x)
        return 2 * x

    def bye(self) -> None:
        self.calls.append("bye")


def run_session(client: Callable[[int], Awaitable[Any]], script: Callable[[ProxyPlayer], Any],
                max_value_bytes: int = 1 << 20) -> tuple[Any, Any]:
    """Start a server on a free port; run ``client(port)`` against it while ``script``
    drives the proxy player from a referee thread. Returns (script result, client result)."""

    async def main() -> tuple[Any, Any]:
        loop = asyncio.get_running_loop()
        accepted: asyncio.Future[Connection] = loop.create_future()

        async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            accepted.set_result(Connection(reader, writer, max_value_bytes))

        server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        client_task = loop.create_task(client(port))
        connection = await asyncio.wait_for(accepted, 10)
        proxy = ProxyPlayer(PROTOCOL, connection, loop, "P")
        result = await run_in_thread(script, proxy)
        connection.close()
        server.close()
        client_result = await asyncio.wait_for(client_task, 10)
        return result, client_result

    return asyncio.run(main())


def calls(proxy: ProxyPlayer, limit: float = 2.0) -> list[Any]:
    out = []
    for method, args in (("double", (3,)), ("double", (5,)), ("bye", ())):
        try:
            out.append(proxy(method, args, limit))
        except CallFailed as exc:
            out.append(f"failed: {exc.reason}")
            break
    return out


def well_behaved(pad: int = 0, trickle: bool = False) -> Callable[[int], Awaitable[Any]]:
    async def client(port: int) -> Any:
        player = Doubler()
        connection = await open_connection("127.0.0.1", port)
        session = await serve_referee(connection, player, PROTOCOL, pad=pad, trickle=trickle)
        return player.calls, session.ended

    return client


def raw_client(*chunks: bytes, then_wait: float = 3.0) -> Callable[[int], Awaitable[Any]]:
    async def client(port: int) -> Any:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        await reader.readline()  # the first call
        for chunk in chunks:
            writer.write(chunk)
            await writer.drain()
        try:
            await asyncio.wait_for(reader.read(), then_wait)
        except asyncio.TimeoutError:
            pass
        writer.close()

    return client


def test_remote_player_looks_local():
    result, (seen, ended) = run_session(well_behaved(), calls)
    assert result == [6, 10, None]
    assert seen == [3, 5, "bye"] and ended == "finished"


def test_reference_framing_padded_and_trickled():
    result, (seen, _ended) = run_session(well_behaved(pad=5000, trickle=True), calls)
    assert result == [6, 10, None]


@pytest.mark.parametrize("chunks, reason", [
    ((b"@@@ garbage\n",), "not JSON"),
    ((b'[1, 2',), "time limit"),                       # half a value, never completed
    ((b'"six"\n',), "expected an integer"),             # well-formed JSON, wrong kind
    ((b"",), "time limit"),                             # nothing at all
], ids=["garbage", "half-value", "wrong-kind", "silence"])
def test_misbehaving_client_fails_the_call(chunks, reason):
    result, _ = run_session(raw_client(*chunks), lambda proxy: calls(proxy, limit=1.0))
    assert len(result) == 1 and reason in result[0]


def test_oversized_value():
    flood = b"[" + b"1," * 5000
    result, _ = run_session(raw_client(flood), lambda proxy: calls(proxy, limit=2.0), max_value_bytes=1000)
    assert "exceeds 1000 bytes" in result[0]


def test_disconnect_mid_game():
    async def client(port: int) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        await reader.readline()
        writer.write(b"6\n")
        await writer.drain()
        await reader.readline()
        writer.close()

    result, _ = run_session(client, calls)
    assert result[0] == 6 and "closed the connection" in result[1]


def test_wrong_object_key_set_is_an_invalid_reply():
    result, _ = run_session(raw_client(b'{"value": 6, "extra": 1}\n'), calls)
    assert "invalid reply" in result[0]


def test_after_a_failure_the_connection_is_never_read_again():
    def script(proxy: ProxyPlayer) -> list[str]:
        out = []
        for _ in range(2):
            try:
                proxy("double", (1,), 0.5)
            except CallFailed as exc:
                out.append(exc.reason)
        return out

    # the late reply arrives after the time-out and must not answer the second call
    async def client(port: int) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        await reader.readline()
        await asyncio.sleep(1.0)
        writer.write(b"2\n2\n")
        await writer.drain()
        await asyncio.sleep(0.5)
        writer.close()

    reasons, _ = run_session(client, script)
    assert "time limit" in reasons[0] and "earlier failure" in reasons[1]


def test_client_ends_on_unknown_call():
    async def main() -> Any:
        async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            writer.write(b'["explode", []]\n')
            await writer.drain()

        server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        connection = await open_connection("127.0.0.1", port)
        session = await asyncio.wait_for(serve_referee(connection, Doubler(), PROTOCOL), 10)
        server.close()
        return session.ended

    assert "unknown method 'explode'" in asyncio.run(main())


LENIENT = WireProtocol("lenient", (
    Method("double", "double", (INT,), INT, unreadable=lambda: -1),
    Method("bye", "bye", (), VOID, final=True),
))


def test_a_method_may_give_unreadable_replies_a_meaning():
    """Bazaar reads bytes that are not JSON in reply to one call as an answer (spec 6.3):
    the call succeeds with that answer and the connection goes on; a half value still
    times out, and methods without the field still fail."""
    def script(proxy: ProxyPlayer) -> list[Any]:
        proxy.protocol = LENIENT
        out: list[Any] = []
        for method, args in (("double", (3,)), ("double", (5,)), ("bye", ()), ("double", (7,))):
            try:
                out.append(proxy(method, args, 1.0))
            except CallFailed as exc:
                out.append(f"failed: {exc.reason}")
        return out

    # garbage to the first call, a good reply to the second, garbage to "bye", half a value
    result, _ = run_session(raw_client(b" " * 4095 + b"fals\n", b"10\n", b"void\n"), script)
    assert result[0] == -1 and result[1] == 10
    assert result[2].startswith("failed") and "not JSON" in result[2]
    assert "earlier failure" in result[3]

    result, _ = run_session(raw_client(b"[[1,2]\n"), script)
    assert "time limit" in result[0]


def test_bytes_read_before_the_proxy_took_the_socket_are_not_lost():
    """A client that answers before it is asked: its reply is already on the loop's side
    when the proxy takes the socket off the loop, and is still read as the reply."""

    async def main() -> Any:
        loop = asyncio.get_running_loop()
        accepted: asyncio.Future[Connection] = loop.create_future()

        async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            accepted.set_result(Connection(reader, writer))

        server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        _reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"6\n14\n")
        await writer.drain()
        connection = await asyncio.wait_for(accepted, 10)
        await asyncio.sleep(0.2)   # the bytes reach the loop's buffers first
        proxy = ProxyPlayer(PROTOCOL, connection, loop, "P")
        result = await run_in_thread(lambda: [proxy("double", (3,), 2.0), proxy("double", (7,), 2.0)])
        connection.close()
        writer.close()
        server.close()
        return result

    assert asyncio.run(main()) == [6, 14]
