"""Slow, silent and many clients of one address against the web room (issue 34, finding 1;
issue 27, finding 7): the attacker's connections come from 127.0.0.2 (a client socket
bound to it), the honest visitor from 127.0.0.1, both real TCP to a real ``gameroom web``.

* a crowd of unfinished requests from one address is refused beyond its few (429 naming
  ``--unfinished-per-address``) while another address is served — checked by being
  served, not by timing;
* a request head that never completes is answered 408 and closed after ``--head-seconds``;
* connections beyond ``--connections-per-address`` are refused, and a closed one frees its
  place;
* a closed page (websocket) frees its place among ``--sockets-per-address`` at once;
* SIGTERM with pages open stops the room within its ``--shutdown-seconds``.
"""

from __future__ import annotations

import contextlib
import json
import signal
import socket
import time
from collections.abc import Iterator

import pytest

from tests.driver import connected_from
from tests.web.conftest import WebServer, client_from, running_web

ATTACKER = "127.0.0.2"


@pytest.fixture(scope="module")
def room() -> Iterator[WebServer]:
    with running_web("--unfinished-per-address", "8", "--connections-per-address", "40", "--head-seconds", "4",
                     "--sockets-per-address", "3", "--shutdown-seconds", "5") as server:
        yield server


def attacker_socket(port: int) -> socket.socket:
    return connected_from(ATTACKER, port)


def answer_of(sock: socket.socket, wait: float) -> bytes:
    """What the server sent on ``sock`` within ``wait`` seconds (b"" when closed unanswered)."""
    sock.settimeout(wait)
    data = b""
    try:
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                return data
            data += chunk
    except TimeoutError:
        return data
    except OSError:
        return data


def test_one_address_unfinished_requests_are_refused_beyond_a_few_while_another_is_served(room: WebServer) -> None:
    crowd = [attacker_socket(room.port) for _ in range(100)]
    try:
        for sock in crowd:
            sock.sendall(b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n")   # and never the blank line
        with client_from(room.url) as honest:
            reply = honest.get("/api/games")
        assert reply.status_code == 200 and reply.json(), reply.text
        answers = [answer_of(sock, 0.2) for sock in crowd]
        refused = [a for a in answers if a.startswith(b"HTTP/1.1 429")]
        assert len(refused) == 100 - 8, [a[:80] for a in answers if not a.startswith(b"HTTP/1.1 429")]
        assert b"--unfinished-per-address" in refused[0]
        # the few held are answered 408 and closed when their head is late (some may be already)
        late = [answer or answer_of(sock, 60) for sock, answer in zip(crowd, answers)
                if not answer.startswith(b"HTTP/1.1 429")]
        assert len(late) == 8 and all(a.startswith(b"HTTP/1.1 408") and b"within 4 s" in a for a in late), late
    finally:
        for sock in crowd:
            sock.close()


def test_connections_beyond_the_address_quota_are_refused_and_a_closed_one_frees_its_place(room: WebServer) -> None:
    held: list[socket.socket] = []
    try:
        for _ in range(40):   # whole requests, answered and kept alive (5 s): not unfinished, but open
            sock = attacker_socket(room.port)
            held.append(sock)
            sock.sendall(b"GET /static/style.css HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert sock.recv(12) == b"HTTP/1.1 200"
        one_more = attacker_socket(room.port)
        refusal = answer_of(one_more, 1)
        one_more.close()
        assert refusal.startswith(b"HTTP/1.1 429") and b"--connections-per-address" in refusal, refusal
        with client_from(room.url) as honest:
            assert honest.get("/api/games").status_code == 200
    finally:
        for sock in held:
            sock.close()
    for _ in range(200):   # the places come back as the room sees the connections close
        again = attacker_socket(room.port)
        again.sendall(b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        if answer_of(again, 10).startswith(b"HTTP/1.1 200"):
            again.close()
            break
        again.close()
        time.sleep(0.05)
    else:
        raise AssertionError("the closed connections' places never came back")


def test_a_closed_page_frees_its_socket_place_at_once(room: WebServer) -> None:
    from websockets.sync.client import connect

    status, started = room.request("POST", "/api/matches", {"game": "q", "seats": ["dag", "dag"], "pace": 5})
    assert status == 201, started
    url = f"ws://127.0.0.1:{room.port}/api/matches/{started['id']}/ws"
    for _ in range(3 * 3):   # three times the quota of three, one page after the other
        with connect(url, origin=room.url) as page:
            hello = json.loads(page.recv(timeout=60))
            assert hello["type"] == "hello", hello


def test_sigterm_with_pages_open_stops_within_the_grace() -> None:
    from websockets.sync.client import connect

    with running_web("--shutdown-seconds", "3") as server, contextlib.ExitStack() as pages:
        status, started = server.request("POST", "/api/matches", {"game": "q", "seats": ["dag", "dag"], "pace": 5})
        assert status == 201, started
        url = f"ws://127.0.0.1:{server.port}/api/matches/{started['id']}/ws"
        for _ in range(3):
            pages.enter_context(connect(url, origin=server.url)).recv(timeout=60)
        with connect(url, origin=server.url) as closed:
            closed.recv(timeout=60)
            closed.socket.close()   # a page closed without a word: the room must not wait for it
        server.process.send_signal(signal.SIGTERM)
        # 3 s of grace: whatever the load, it ends well within a minute (it never ended); the
        # room ends by the signal it was sent, as uvicorn raises it again once it has stopped
        assert server.process.wait(60) in (0, -signal.SIGTERM)


def test_accounts_claiming_one_seat_at_once_one_gets_it(room: WebServer) -> None:
    """Five accounts open a person's seat with its token at the same moment (issue 34,
    finding 2, seat claims): exactly one is seated, the others are told the seat is
    another account's."""
    import threading

    from websockets.sync.client import connect

    from tests.web.conftest import cookie_header, signed_up

    creator = signed_up(room.url, "seat-creator", headers={"origin": room.url})
    started = creator.post("/api/matches", json={"game": "q", "seats": ["human", "human"], "time_limit": 300})
    assert started.status_code == 201, started.text
    match_id, token = started.json()["id"], started.json()["tokens"]["P2"]
    claimants = [signed_up(room.url, f"claimant{i}") for i in range(5)]
    gate = threading.Barrier(len(claimants))
    firsts: list[dict[str, object]] = [{} for _ in claimants]

    def claim(i: int) -> None:
        url = f"ws://127.0.0.1:{room.port}/api/matches/{match_id}/ws?seat=P2&token={token}"
        gate.wait()
        with connect(url, origin=room.url, additional_headers=cookie_header(claimants[i])) as page:
            firsts[i] = json.loads(page.recv(timeout=60))

    threads = [threading.Thread(target=claim, args=(i,)) for i in range(len(claimants))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    seated = [f for f in firsts if f.get("type") == "hello" and f.get("seat") == "P2"]
    refused = [f for f in firsts if f.get("type") == "error"]
    assert len(seated) == 1 and len(refused) == len(claimants) - 1, firsts
    assert all("belongs to another account" in str(f["message"]) for f in refused)


def test_behind_a_trusted_proxy_the_quotas_count_the_forwarded_clients() -> None:
    """``--proxy`` names the reverse proxies whose ``X-Forwarded-For`` is believed: the
    proxy's own connections are not held to one address's quota (all its clients come
    through them), and the quotas per address count the clients it names."""
    with running_web("--proxy", "127.0.0.1,127.0.1.0/24", "--signups-per-address", "1",
                     "--connections-per-address", "4", "--unfinished-per-address", "2") as server:
        held = []
        try:
            for _ in range(8):   # twice one address's quota of connections, all from the proxy
                sock = connected_from("127.0.0.1", server.port)
                held.append(sock)
                sock.sendall(b"GET /static/style.css HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                assert sock.recv(12) == b"HTTP/1.1 200"
        finally:
            for sock in held:
                sock.close()
        import httpx

        def sign_up(name: str, client: str) -> int:
            return httpx.post(server.url + "/api/signup", json={"username": name, "password": "a long password"},
                              headers={"x-forwarded-for": client}, timeout=60).status_code

        assert sign_up("behind-one", "203.0.113.7") == 201
        assert sign_up("behind-two", "203.0.113.8") == 201   # another client of the proxy
        assert sign_up("behind-three", "203.0.113.7") == 429  # the first client's quota
