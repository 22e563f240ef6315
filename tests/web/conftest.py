"""Fixtures of the web room's tests: a real ``gameroom web`` server on a free port, and a
real Chromium (Debian's package, found on PATH or at $GAMEROOM_CHROMIUM) driven by
playwright; accounts made over the real API (:func:`signed_up`) for the tests that take a
person's seat. Screenshots go to ``artifacts/screenshots`` (ignored by git)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import pytest

from driver import GAMEROOM, free_port
from gameroom.bench.processes import status_kb

REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "artifacts" / "screenshots"


PASSWORD = "correct horse battery"
SESSION_COOKIE = "gameroom_session"


def sign_up(page: Any, url: str, name: str) -> None:
    """Make an account on the sign-up page (the browser is then logged in) and come back."""
    page.goto(f"{url}/signup?next=/")
    page.fill("#username", name)
    page.fill("#password", PASSWORD)
    page.click("#submit")
    page.wait_for_selector(f"#username-shown:has-text('{name}')")


def signed_up(url: str, name: str, password: str = PASSWORD, **client: Any) -> Any:
    """An httpx client of the room at ``url`` logged in as a new account ``name``."""
    import httpx

    session = httpx.Client(base_url=url, timeout=60, **client)
    reply = session.post("/api/signup", json={"username": name, "password": password})
    assert reply.status_code == 201, reply.text
    return session


def cookie_header(session: Any) -> dict[str, str]:
    """The session cookie of an httpx client, as a header for a websocket client."""
    return {"Cookie": f"{SESSION_COOKIE}={session.cookies[SESSION_COOKIE]}"}


def rss_mb(pid: int) -> float:
    """A process's resident memory in MB, from /proc."""
    rss = status_kb(pid, "VmRSS")
    assert rss is not None, f"no VmRSS for process {pid}"
    return rss / 1024


def client_from(url: str, address: str = "127.0.0.1", **options: Any) -> Any:
    """An httpx client of ``url`` whose connections come from ``address`` (any 127.x.y.z
    is this machine: the room sees another address, as quotas per address need)."""
    import httpx

    return httpx.Client(base_url=url, timeout=60, transport=httpx.HTTPTransport(local_address=address), **options)


class WebServer:
    """A running ``gameroom web`` and a small JSON client for its API."""

    def __init__(self, port: int, process: subprocess.Popen[bytes], stderr: Any = None) -> None:
        self.port = port
        self.process = process
        self.url = f"http://127.0.0.1:{port}"
        self._stderr = stderr

    def stop(self) -> str:
        """Stop the server; what it wrote on standard error."""
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=20)
        return self._stderr() if self._stderr is not None else ""

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as reply:
                text = reply.read().decode()
                status = reply.status
        except urllib.error.HTTPError as exc:
            text, status = exc.read().decode(), exc.code
        try:
            return status, json.loads(text)
        except ValueError:
            return status, text

    def get(self, path: str) -> Any:
        status, value = self.request("GET", path)
        assert status == 200, value
        return value

    def wait_over(self, match_id: str, timeout: float = 300) -> dict[str, Any]:
        """The match's summary once it is over (generous: the machine may be loaded)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            summary = self.get(f"/api/matches/{match_id}")
            if summary["status"] == "over":
                return summary
            time.sleep(0.2)
        raise AssertionError(f"match {match_id} not over: {summary}")


@contextlib.contextmanager
def running_web(*options: str, env: dict[str, str] | None = None) -> Iterator[WebServer]:
    """``gameroom web`` with these options on a free port, until the block ends. A port
    taken between ``free_port`` and the server's bind (other test runs share this
    machine) is one error line of the server: another port is tried. Its standard error
    is read as it comes (a full pipe would stop the server) and kept for
    :meth:`WebServer.stop`."""
    for attempt in range(5):
        port = free_port()
        process = subprocess.Popen([*GAMEROOM, "web", "--port", str(port), *options], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, env=None if env is None else {**os.environ, **env})
        line = process.stdout.readline().decode()   # type: ignore[union-attr]
        if "serving on" in line:
            break
        err = process.communicate(timeout=120)[1].decode()
        if "cannot serve on" not in err or attempt == 4:
            raise AssertionError(f"gameroom web did not start: {line!r} {err!r}")
    errors: list[bytes] = []
    reader = threading.Thread(target=lambda: errors.append(process.stderr.read()), daemon=True)  # type: ignore[union-attr]
    reader.start()
    server = WebServer(port, process, lambda: (reader.join(timeout=60), b"".join(errors).decode())[1])
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                server.get("/api/games")
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def web_server() -> Iterator[WebServer]:
    with running_web() as server:
        yield server


def stored_league(where: Path, url: str, game: str, bots: str, games: int) -> None:
    """Fill the results database at ``url`` with ``games`` 2-player games of ``game`` that
    the real ``gameroom league`` plays between the bots of ``bots`` (a bots file's text,
    written into ``where``): one worker, seed 3, quiet."""
    (where / "bots.toml").write_text(bots)
    run = subprocess.run([*GAMEROOM, "league", game, "--bots", str(where / "bots.toml"), "--games", str(games),
                          "--db", url, "--workers", "1", "--seed", "3", "--players", "2", "--quiet"],
                         capture_output=True, timeout=300, cwd=where, check=False)
    assert run.returncode == 0, run.stderr.decode()


LOBBY_SECRET = "a secret the web room shares with its lobby"


@pytest.fixture(scope="module")
def lobby(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A real ``gameroom lobby`` (rooms of every game) that counts each of the web room's
    people on its own (``relayAddresses``) and shares a secret with the web room
    (``relaySecret``: its people log in with their accounts' credentials), with generous
    limits for programs and people and for an Eriantys turn: the machine is shared and may
    be loaded. A test module's ``LOBBY_CONFIG`` adds to its configuration."""
    from tests.lobby.rooms import LobbyProcess

    config = {"relayAddresses": ["127.0.0.1"], "relaySecret": LOBBY_SECRET, "callTimeoutSeconds": 60,
              "personTimeoutSeconds": 600, "turnTimeoutSeconds": 600, **getattr(request.module, "LOBBY_CONFIG", {})}
    server = LobbyProcess(tmp_path_factory.mktemp("weblobby"), config)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def web(lobby: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    """``gameroom web --lobby`` relaying to :func:`lobby`, with the secret they share."""
    secret = tmp_path_factory.mktemp("lobbysecret") / "secret"
    secret.write_text(LOBBY_SECRET)
    with running_web("--lobby", f"127.0.0.1:{lobby.port}", "--lobby-secret-file", str(secret)) as server:
        yield server


def chromium_path() -> str | None:
    return os.environ.get("GAMEROOM_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    path = chromium_path()
    if path is None:
        pytest.skip("no Chromium found (apt-get install chromium, or set GAMEROOM_CHROMIUM); .ci/run installs it")
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=path, args=["--no-sandbox", "--disable-gpu"])
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.set_default_timeout(120_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    page.close()
    assert not errors, f"errors in the page: {errors}"


def screenshot(page: Any, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


READABLE = 12
"""The least size (px) of any text a person sees: the pages' and the pictures' alike."""

TEXT_SIZES = """() => {
    // every text a person sees now: the picture's (its font size times the scale of its
    // units to the screen) and the page's (its computed font size); not what is hidden
    // (display, visibility, a closed <details>, the pictures' "fine" text)
    const shown = (node) => {
        if (!node.getClientRects().length) return false;
        if (getComputedStyle(node).visibility === 'hidden') return false;
        return !node.closest('details:not([open]) > :not(summary)');
    };
    const seen = [];
    for (const text of document.querySelectorAll('svg text')) {
        if (!text.textContent.trim() || !shown(text)) continue;
        const m = text.getScreenCTM();
        seen.push({text: text.textContent.trim().slice(0, 40), where: 'svg',
                   px: parseFloat(getComputedStyle(text).fontSize) * Math.sqrt(Math.abs(m.a * m.d - m.b * m.c))});
    }
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const parent = node.parentElement;
        if (!node.textContent.trim() || !parent || parent.closest('svg') || !shown(parent)) continue;
        seen.push({text: node.textContent.trim().slice(0, 40), where: parent.tagName + (parent.id ? '#' + parent.id : ''),
                   px: parseFloat(getComputedStyle(parent).fontSize)});
    }
    for (const field of document.querySelectorAll('input:not([type=range]):not([type=hidden]), select, textarea')) {
        if (shown(field)) seen.push({text: field.value || field.placeholder || '', where: field.tagName + '#' + field.id,
                                     px: parseFloat(getComputedStyle(field).fontSize)});
    }
    const svg = seen.filter((s) => s.where === 'svg'), html = seen.filter((s) => s.where !== 'svg');
    const least = (list) => list.reduce((a, b) => (a && a.px <= b.px ? a : b), null);
    return {svg: least(svg), html: least(html), count: seen.length, under: seen.filter((s) => s.px < 11.99).slice(0, 6)};
}"""


def texts_readable(page: Any, where: str) -> dict[str, Any]:
    """Every text the page shows now (its own and its picture's) is READABLE px at least;
    the smallest of each kind (``svg``, ``html``: ``{text, where, px}`` or None)."""
    seen: dict[str, Any] = page.evaluate(TEXT_SIZES)
    assert seen["count"] and not seen["under"], (where, seen)
    return seen
