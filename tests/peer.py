"""A hand-written TCP peer for wire tests, written against the wire format alone: it
writes the way the reference client does (leading spaces, the value trickled in small
chunks with 5 ms pauses) and reads the newline-terminated JSON our programs write."""

from __future__ import annotations

import json
import socket
import time
from typing import Any


class Peer:
    """One TCP connection, reference-style writes, newline-framed reads."""

    def __init__(self, sock: socket.socket, pad: int = 5000, trickle: bool = True) -> None:
        self.sock = sock
        self.file = sock.makefile("rb")
        self.pad, self.trickle = pad, trickle

    @classmethod
    def connect(cls, port: int, pad: int = 5000, trickle: bool = True, tries: int = 600) -> "Peer":
        """Connect to 127.0.0.1:port, retrying every 0.1 s while the server is not up yet (up to
        a minute: a server process starting on a loaded 2-core machine took over 10 s)."""
        for _ in range(tries - 1):
            try:
                return cls(socket.create_connection(("127.0.0.1", port)), pad, trickle)
            except OSError:
                time.sleep(0.1)
        return cls(socket.create_connection(("127.0.0.1", port)), pad, trickle)

    def send_raw(self, data: bytes, pad: int | None = None, trickle: bool | None = None) -> None:
        trickle = self.trickle if trickle is None else trickle
        self.sock.sendall(b" " * (self.pad if pad is None else pad))
        size = max(len(data) // 100, 10) if trickle else len(data)
        for i in range(0, len(data), size):
            self.sock.sendall(data[i:i + size])
            if trickle:
                time.sleep(0.005)

    def send(self, value: Any, pad: int | None = None, trickle: bool | None = None) -> None:
        self.send_raw(json.dumps(value).encode() + b"\n", pad, trickle)

    def recv(self) -> Any:
        """The next newline-terminated value, or None once the connection is closed."""
        try:
            line = self.file.readline()
        except OSError:
            return None
        return json.loads(line) if line.strip() else None
