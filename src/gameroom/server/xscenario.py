"""The ``xscenario`` harness (eriantys.md 10.2): replay a protocol scenario against a real
lobby server on a free port of 127.0.0.1 and print what every connection received.

The server runs in this process on its own thread and event loop; the scenario's
connections are plain blocking sockets. After each ``send`` the harness reads the sender's
messages up to the reply to that request (or the closing of the connection), then drains
every other logged-in open connection with the **barrier**: ``GET_PUBLIC_ROOMS``, read up
to the ``PUBLIC_ROOMS`` reply, which is dropped. Because the server queues every broadcast
of a request before its reply, this collects exactly the messages the step caused. After a
``close`` the harness waits until the server has seen the connection go, then drains the
others the same way; ``{"wait": s}`` sleeps, then drains every logged-in connection.

Beside ``send`` (a message object), a step may send bytes as they are (for garbage,
invalid UTF-8 and oversized messages): ``"raw": text`` or ``"rawHex": hex``, repeated
``"times": k`` times.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
import time
from typing import Any, Callable, Sequence, TypeVar

from gameroom.core.game import GameDescriptor
from gameroom.core.lobbygame import LobbyGame
from gameroom.core.wire import WireError, describe, expect_int, expect_str
from gameroom.remote import aio
from gameroom.remote.jsonstream import NEED_MORE, JSONStreamDecoder, JSONStreamError, encode
from gameroom.server.lobby import Lobby
from gameroom.server.lobby_config import LobbyConfig, decode_lobby_config, with_overrides

_T = TypeVar("_T")

__all__ = ["xscenario", "LobbyThread"]

logger = logging.getLogger(__name__)

REPLY_TIMEOUT = 15.0       # a reply that takes longer is reported missing, not waited for
_REPLIES = {"LOGIN": ("ACK",), "LOGOUT": ("ACK",), "GET_PUBLIC_ROOMS": ("PUBLIC_ROOMS",),
            "CREATE_ROOM": ("ROOM_ID",), "ACCESS_ROOM": ("ACK",), "LEAVE_ROOM": ("ACK",),
            "GAME_EVENT": ("ACK",), "GET_GAME_STATE": ("GAME_STATE",)}


class LobbyThread:
    """A lobby of ``game`` (a descriptor, several, or a bare ``LobbyGame``) on its own thread and
    event loop (for harnesses, tests and benchmarks)."""

    def __init__(self, game: GameDescriptor[Any, Any] | LobbyGame | Sequence[GameDescriptor[Any, Any]], config: LobbyConfig) -> None:
        self.loop = (aio.loop_factory() or asyncio.new_event_loop)()
        self.lobby = Lobby(game, config)
        started = threading.Event()
        self.port = 0

        def run() -> None:
            asyncio.set_event_loop(self.loop)
            server = self.loop.run_until_complete(self.lobby.start(config.host, config.port))
            self.port = server.sockets[0].getsockname()[1]
            started.set()
            self.loop.run_forever()

        self.thread = threading.Thread(target=run, daemon=True, name="lobby")
        self.thread.start()
        if not started.wait(30):
            raise RuntimeError("the lobby did not start")

    def call(self, function: Callable[[], _T]) -> _T:
        """Run ``function()`` on the lobby's loop and return its result."""
        async def run() -> _T:
            return function()
        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(30)

    def stop(self) -> None:
        try:
            asyncio.run_coroutine_threadsafe(self.lobby.stop(), self.loop).result(10)
        except Exception:   # shutting down: what is left dies with the thread
            logger.debug("stopping the lobby failed", exc_info=True)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)


class _Conn:
    def __init__(self, port: int, max_message_bytes: int) -> None:
        self.sent = JSONStreamDecoder(max_message_bytes)   # what we sent, as the server reads it
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=REPLY_TIMEOUT)
        self.decoder = JSONStreamDecoder(1 << 24)
        self.logged_in = False
        self.open = True
        self.local = "%s:%d" % self.sock.getsockname()[:2]

    def send(self, data: bytes) -> None:
        try:
            self.sock.sendall(data)
        except OSError:
            pass   # the server closed it; reading will tell

    def read_until(self, replies: tuple[str, ...] | None, nack: bool = True) -> tuple[list[Any], dict[str, Any] | None]:
        """Messages up to (and with) the first of ``replies`` or a NACK; all of them up to
        the closing of the connection when ``replies`` is None or the server closes it."""
        got: list[Any] = []
        deadline = time.monotonic() + REPLY_TIMEOUT
        while True:
            try:
                value = self.decoder.next_value()
            except JSONStreamError:
                value = NEED_MORE
            if value is not NEED_MORE:
                got.append(value)
                if replies is not None and isinstance(value, dict) and (
                        value.get("type") in replies or nack and value.get("type") == "NACK"):
                    return got, value
                continue
            left = deadline - time.monotonic()
            if left <= 0:
                return got, None
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(1 << 16)
            except socket.timeout:
                return got, None
            except OSError:
                data = b""
            if not data:
                self.close()
                return got, None
            self.decoder.feed(data)

    def predict(self, data: bytes) -> int | None:
        """How many replies the server owes for ``data`` (sent after what was sent
        before): one per complete message but PONG; None when the server will close the
        connection (garbage, an oversized message)."""
        self.sent.feed(data)
        count = 0
        try:
            while True:
                value = self.sent.next_value()
                if value is NEED_MORE:
                    self.sent.check_prefix()
                    return count
                if not (isinstance(value, dict) and value.get("type") == "PONG" and self.logged_in):
                    count += 1
        except JSONStreamError:
            return None

    def read_replies(self, count: int | None) -> list[Any]:
        """Messages up to the ``count``-th reply (up to the closing when None)."""
        got: list[Any] = []
        if count is None:
            return self.read_until(None)[0]
        for _ in range(count):
            more, reply = self.read_until(("ACK", "ROOM_ID", "PUBLIC_ROOMS", "GAME_STATE"))
            got += more
            if reply is None:
                break
        return got

    def close(self) -> None:
        if self.open:
            self.open = False
            self.logged_in = False
            self.sock.close()


def _step_bytes(step: dict[str, Any], where: str) -> tuple[bytes, tuple[str, ...] | None, Any]:
    """The bytes a step sends, the replies that end it, and the message (or None)."""
    times = expect_int(step.get("times", 1), f"{where}.times", 1, 1 << 24)
    if "send" in step:
        message = step["send"]
        kind = message.get("type") if isinstance(message, dict) else None
        replies = _REPLIES.get(kind, ()) if isinstance(kind, str) else ()
        return encode(message) * times, (None if kind == "PONG" else replies), message
    if "raw" in step:
        return expect_str(step["raw"], f"{where}.raw").encode("utf-8") * times, (), None
    try:
        return bytes.fromhex(expect_str(step["rawHex"], f"{where}.rawHex")) * times, (), None
    except ValueError:
        raise WireError(f"not hexadecimal: {describe(step['rawHex'])}", f"{where}.rawHex") from None


def _check(value: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    if not isinstance(value, dict) or not isinstance(value.get("steps"), list):
        raise WireError("expected an object with \"steps\" (a list) and optionally \"config\"", "$")
    unknown = sorted(set(value) - {"config", "steps"})
    if unknown:
        raise WireError(f"unexpected key(s) {', '.join(unknown)}", "$")
    config = value.get("config") or {}
    for k, step in enumerate(value["steps"]):
        where = f"$.steps[{k}]"
        if not isinstance(step, dict):
            raise WireError(f"expected an object, got {describe(step)}", where)
        actions = [a for a in ("send", "raw", "rawHex", "close", "wait") if a in step]
        if len(actions) != 1:
            raise WireError("expected exactly one of send, raw, rawHex, close, wait", where)
        if actions[0] != "wait":
            expect_str(step.get("conn"), f"{where}.conn")
        elif isinstance(step["wait"], bool) or not isinstance(step["wait"], (int, float)) or step["wait"] < 0:
            raise WireError(f"expected seconds >= 0, got {describe(step['wait'])}", f"{where}.wait")
    return config, value["steps"]


def xscenario(game: LobbyGame, inputs: list[Any]) -> list[Any]:
    """The harness: one scenario document in, one line per (step, connection) out."""
    if len(inputs) != 1:
        raise WireError(f"expected one scenario document, got {len(inputs)} JSON values", "$")
    config_json, steps = _check(inputs[0])
    config = decode_lobby_config(config_json, game.decode_hooks)
    server = LobbyThread(game, with_overrides(config, host="127.0.0.1", port=0, debug=False))
    conns: dict[str, _Conn] = {}
    out: list[Any] = []
    try:
        for k, step in enumerate(steps):
            received: dict[str, list[Any]] = {}
            label: Any = step.get("conn")   # a scenario's JSON: a connection's name, or none
            if "wait" in step:
                time.sleep(step["wait"])
                _barrier(conns, None, received)
            elif "close" in step:
                conn = conns.get(label)
                if conn is not None and conn.open:
                    conn.close()
                    _wait_gone(server, conn.local)
                _barrier(conns, label, received)
            else:
                if label not in conns:
                    conns[label] = _Conn(server.port, config.max_message_bytes)
                conn = conns[label]
                data, replies, message = _step_bytes(step, f"$.steps[{k}]")
                if conn.open:
                    conn.send(data)
                    if message is None:
                        got = conn.read_replies(conn.predict(data))
                    elif replies is None:   # PONG: no reply; the barrier on the sender itself
                        conn.predict(data)
                        got = _drain(conn) if conn.logged_in else conn.read_until(())[0]
                    else:
                        conn.predict(data)
                        got, reply = conn.read_until(replies)
                        kind = message.get("type") if isinstance(message, dict) else None
                        if reply is not None and reply.get("type") == "ACK" and kind == "LOGIN":
                            conn.logged_in = True
                        if kind == "LOGOUT" and reply is not None and reply.get("type") == "ACK":
                            got += conn.read_until(None)[0]
                    if not conn.open:
                        _wait_gone(server, conn.local)
                    received.setdefault(label, []).extend(got)
                _barrier(conns, label, received)
            for name in sorted(received):
                if received[name]:
                    out.append({"step": k, "conn": name, "received": received[name]})
    finally:
        for conn in conns.values():
            conn.close()
        server.stop()
    return out


def _drain(conn: _Conn) -> list[Any]:
    """The barrier on one connection: what it received before the PUBLIC_ROOMS reply."""
    conn.send(encode({"type": "GET_PUBLIC_ROOMS"}))
    got, reply = conn.read_until(("PUBLIC_ROOMS",), nack=False)
    if reply is not None and reply.get("type") == "PUBLIC_ROOMS":
        got.pop()
    return got


def _barrier(conns: dict[str, _Conn], sender: str | None, received: dict[str, list[Any]]) -> None:
    for label in sorted(conns):
        conn = conns[label]
        if label != sender and conn.open and conn.logged_in:
            received.setdefault(label, []).extend(_drain(conn))


def _wait_gone(server: LobbyThread, local: str) -> None:
    """Until the server has handled the end of the connection from ``local``."""
    deadline = time.monotonic() + REPLY_TIMEOUT
    while time.monotonic() < deadline:
        if not server.call(lambda: any(c.peer == local for c in server.lobby.clients)):
            return
        time.sleep(0.01)
