"""Origins and hosts on a real ``gameroom web``: the finding — a POST from another origin
with ``Content-Type: text/plain`` was accepted (201) and websockets took any origin. Now
every state-changing request and every websocket from another origin is refused (403),
the room's own origin and ``--allow-origin`` ones are let in, a request addressed to a
host other than this machine is refused unless ``--public`` (DNS rebinding), and a page of
another origin in a real Chromium can neither start a match (a fetch or a plain form) nor
open a match's websocket."""

from __future__ import annotations

import http.server
import json
import threading
from typing import Any, Iterator

import httpx
import pytest

from driver import free_port
from tests.web.conftest import WebServer, running_web, signed_up

websockets_client = pytest.importorskip("websockets.sync.client")

BODY = {"game": "q", "seats": ["dag", "dag"], "seed": 1}
EVIL = "http://evil.example:8000"


def started(server: WebServer) -> int:
    return len(server.get("/api/matches"))


@pytest.mark.parametrize("path, body", [
    ("/api/matches", BODY),
    ("/api/signup", {"username": "mallory", "password": "12345678910"}),
    ("/api/login", {"username": "mallory", "password": "12345678910"}),
    ("/api/logout", {}),
])
@pytest.mark.parametrize("content_type", ["text/plain", "application/json"])
def test_a_state_changing_request_from_another_origin_is_refused(web_server: WebServer, path: str, body: Any,
                                                                 content_type: str) -> None:
    before = started(web_server)
    reply = httpx.post(web_server.url + path, content=json.dumps(body),
                       headers={"content-type": content_type, "origin": EVIL})
    assert reply.status_code == 403 and "cross-origin request refused" in reply.json()["error"]
    assert EVIL in reply.json()["error"] and started(web_server) == before


def test_the_rooms_own_origin_may_post_and_a_browsers_cross_site_hint_is_enough(web_server: WebServer) -> None:
    reply = httpx.post(web_server.url + "/api/matches", json=BODY, headers={"origin": web_server.url})
    assert reply.status_code == 201
    reply = httpx.post(web_server.url + "/api/matches", json=BODY, headers={"sec-fetch-site": "cross-site"})
    assert reply.status_code == 403
    reply = httpx.post(web_server.url + "/api/matches", json=BODY, headers={"origin": "null"})
    assert reply.status_code == 403
    # reading needs no origin check: anyone may watch
    assert httpx.get(web_server.url + "/api/matches", headers={"origin": EVIL}).status_code == 200


def test_a_websocket_from_another_origin_is_refused(web_server: WebServer) -> None:
    # paced: the client reads only the hello, and an unread flood of frames would hold up its close
    match_id = httpx.post(web_server.url + "/api/matches", json={**BODY, "pace": 1}).json()["id"]
    url = f"ws://127.0.0.1:{web_server.port}/api/matches/{match_id}/ws"
    with pytest.raises(Exception) as refused:
        websockets_client.connect(url, origin=EVIL)
    assert "403" in str(refused.value)
    with websockets_client.connect(url, origin=web_server.url) as spectator:
        assert json.loads(spectator.recv(timeout=60))["type"] == "hello"


def test_allowed_origins_may_post_and_open_websockets() -> None:
    friend = "https://friend.example:9443"
    with running_web("--allow-origin", friend) as server:
        reply = httpx.post(server.url + "/api/matches", json={**BODY, "pace": 1}, headers={"origin": friend})
        assert reply.status_code == 201
        url = f"ws://127.0.0.1:{server.port}/api/matches/{reply.json()['id']}/ws"
        with websockets_client.connect(url, origin=friend) as spectator:
            assert json.loads(spectator.recv(timeout=60))["type"] == "hello"
        assert httpx.post(server.url + "/api/matches", json=BODY, headers={"origin": EVIL}).status_code == 403


def test_a_request_for_another_host_is_refused_unless_public(web_server: WebServer) -> None:
    reply = httpx.get(web_server.url + "/api/games", headers={"host": "rebound.example:8000"})
    assert reply.status_code == 421 and "--public" in reply.json()["error"]
    for host in ("localhost", f"localhost:{web_server.port}", f"[::1]:{web_server.port}", "127.0.0.1"):
        assert httpx.get(web_server.url + "/api/games", headers={"host": host}).status_code == 200, host
    with running_web("--public") as server:
        assert httpx.get(server.url + "/api/games", headers={"host": "rebound.example:8000"}).status_code == 200


@pytest.fixture
def other_site() -> Iterator[str]:
    """Another origin on this machine: a plain HTTP server of one page (set per test)."""
    pages: dict[str, bytes] = {}

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:   # noqa: N802 (the standard library's name)
            body = pages.get(self.path, b"")
            self.send_response(200 if body else 404)
            self.send_header("content-type", "text/html")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    server.pages = pages   # type: ignore[attr-defined]
    try:
        yield server   # type: ignore[misc]
    finally:
        server.shutdown()
        server.server_close()


def test_a_page_of_another_origin_in_chromium_cannot_start_a_match_or_open_a_socket(
        web_server: WebServer, page: Any, other_site: Any) -> None:
    room = web_server.url
    match_id = httpx.post(room + "/api/matches", json={**BODY, "pace": 1}).json()["id"]
    signed_up(room, "victim")
    before = started(web_server)
    other_site.pages["/attack.html"] = f"""<!doctype html><html><body>
<form id="plain" action="{room}/api/matches" method="post" enctype="text/plain" target="sink">
<input name='{{"game": "q", "seats": ["dag", "dag"], "x": "' value='"}}'></form>
<iframe name="sink"></iframe>
<script>
window.results = {{}};
fetch("{room}/api/matches", {{method: "POST", mode: "no-cors", headers: {{"content-type": "text/plain"}},
      body: JSON.stringify({{"game": "q", "seats": ["dag", "dag"]}})}})
  .then(() => window.results.fetch = "sent", (e) => window.results.fetch = "failed");
const socket = new WebSocket("ws://127.0.0.1:{web_server.port}/api/matches/{match_id}/ws");
socket.onopen = () => window.results.socket = "open";
socket.onclose = () => window.results.socket = window.results.socket || "refused";
document.querySelector("iframe").addEventListener("load", () => window.results.form = "answered");
document.getElementById("plain").submit();
</script></body></html>""".encode()
    page.goto(f"http://127.0.0.1:{other_site.server_address[1]}/attack.html")
    page.wait_for_function("() => window.results.fetch && window.results.socket && window.results.form")
    assert page.evaluate("window.results") == {"fetch": "sent", "socket": "refused", "form": "answered"}
    assert started(web_server) == before
