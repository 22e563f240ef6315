"""Request bodies on a real ``gameroom web`` over raw sockets: the finding — a 50 MB body
was read and parsed whole (182 MB peak, 607 MB with 8 at once) and a body nested 10,000
deep gave HTTP 500 (RecursionError). Now a declared length beyond ``--max-body`` is
refused with 413 before a byte of the body is read, a chunked body is refused as soon as
it passes the limit (the rest never read: the answer comes while the client still holds
the body back), 8 such bodies at once leave the room's memory where it was, and a deep
body is a 400 saying how deep it may be."""

from __future__ import annotations

import socket
import threading
from typing import Any

import pytest

from tests.web.conftest import WebServer, rss_mb

MB = 1024 * 1024
LIMIT = 64 * 1024   # --max-body's default


def raw(server: WebServer) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=60)
    return sock


def head(path: str, port: int, headers: dict[str, str]) -> bytes:
    lines = [f"POST {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Content-Type: application/json",
             *(f"{k}: {v}" for k, v in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def status_of(sock: socket.socket) -> tuple[int, str]:
    """The status and body of the answer waiting on ``sock``."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"closed without an answer: {data!r}"
        data += chunk
    header, _, body = data.partition(b"\r\n\r\n")
    length = next((int(line.split(b":")[1]) for line in header.split(b"\r\n")
                   if line.lower().startswith(b"content-length:")), 0)
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return int(header.split()[1]), body.decode()


def test_a_declared_50_mb_body_is_refused_before_it_is_read(web_server: WebServer) -> None:
    with raw(web_server) as sock:
        sock.sendall(head("/api/matches", web_server.port, {"Content-Length": str(50 * MB)}) + b"[" * 1000)
        status, body = status_of(sock)   # the other 49.99 MB are never sent
    assert status == 413 and "is 52428800 bytes, more than the 65536 this room reads" in body


def test_a_chunked_body_is_refused_once_past_the_limit_without_reading_the_rest(web_server: WebServer) -> None:
    chunk = b"x" * 8192
    with raw(web_server) as sock:
        sock.sendall(head("/api/matches", web_server.port, {"Transfer-Encoding": "chunked"}))
        try:
            # One chunk past the limit, then the client waits: no last chunk. The room may
            # answer and hang up while the client is still sending; what it sent stays
            # readable (the kernel keeps received bytes after a reset).
            for _ in range(LIMIT // len(chunk) + 2):
                sock.sendall(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
        except (ConnectionResetError, BrokenPipeError):
            pass
        status, body = status_of(sock)
    assert status == 413 and "more than the 65536 bytes this room reads" in body


def test_eight_50_mb_bodies_at_once_leave_the_memory_where_it_was(web_server: WebServer) -> None:
    before = rss_mb(web_server.process.pid)
    peak = [before]
    answers: list[Any] = []
    done = threading.Event()

    def watch() -> None:
        while not done.wait(0.02):
            peak[0] = max(peak[0], rss_mb(web_server.process.pid))

    def flood(chunked: bool) -> None:
        body = b"[" + b"1," * (25 * MB) + b"1]"
        with raw(web_server) as sock:
            if chunked:   # everything, as fast as the server takes it
                sock.sendall(head("/api/matches", web_server.port, {"Transfer-Encoding": "chunked"}))
                try:
                    for start in range(0, len(body), MB):
                        piece = body[start:start + MB]
                        sock.sendall(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                    sock.sendall(b"0\r\n\r\n")
                except OSError:   # the server answered and closed: it reads no more
                    pass
                try:
                    answers.append(status_of(sock)[0])
                except OSError:   # reset under our writes: the answer went with it
                    answers.append("reset")
            else:
                sock.sendall(head("/api/matches", web_server.port, {"Content-Length": str(len(body))}))
                answers.append(status_of(sock)[0])
                try:
                    sock.sendall(body)
                except OSError:
                    pass

    watcher = threading.Thread(target=watch)
    watcher.start()
    floods = [threading.Thread(target=flood, args=(i % 2 == 0,)) for i in range(8)]
    for thread in floods:
        thread.start()
    for thread in floods:
        thread.join(timeout=300)
    done.set()
    watcher.join()
    print(f"\n8 bodies of 50 MB: answers {answers}, RSS {before:.0f} -> peak {peak[0]:.0f} MB")
    assert answers.count(413) >= 4 and set(answers) <= {413, "reset"}, answers
    assert peak[0] < before + 50, f"RSS {before:.0f} MB -> peak {peak[0]:.0f} MB (the finding: 607 MB)"
    assert web_server.get("/api/games")   # the room still serves


@pytest.mark.parametrize("body, message", [
    (b"[" * 10_000 + b"]" * 10_000, "nests deeper than 64 levels"),
    (b'{"game": ' * 5_000 + b"1" + b"}" * 5_000, "nests deeper than 64 levels"),
    (b"\xff\xfe", "not UTF-8"),
    (b"9" * 5000, "not JSON"),
])
def test_a_deep_or_unreadable_body_is_a_400_with_the_reason(web_server: WebServer, body: bytes, message: str) -> None:
    status, answer = web_server.request("POST", "/api/matches", body)
    assert status == 400 and message in answer["error"], answer


def test_json_endpoints_take_json_only(web_server: WebServer) -> None:
    with raw(web_server) as sock:
        body = b'{"game": "q", "seats": ["dag", "dag"]}'
        sock.sendall(head("/api/matches", web_server.port, {"Content-Length": str(len(body))})
                     .replace(b"application/json", b"text/plain") + body)
        status, answer = status_of(sock)
    assert status == 415 and "application/json" in answer
