"""People play whole games on the boards (playwright driving Debian's Chromium): for every
game, a person signed up in the browser plays against bots by clicking the highlighted
targets of the game's board (``/boards/{game}.js``) and its confirm buttons, never the list
of legal actions nor the JSON box, at a laptop's and a phone's size; the board must fit
the window (no horizontal overflow), and a screenshot of the person's page mid-game is
saved at each size to ``artifacts/screenshots``. Every text a person sees is 12 px at
least, mid-move, at the end on the whole board and zoomed in to read; the text of the
targets, and the whole picture at a step made with buttons alone, is readable while a
person decides (the pictures' smaller text is hidden until zoomed: zoom.js). Two people in two browser contexts and a
bot share a match of Q and one of Eriantys, each by the link of their own seat."""

from __future__ import annotations

import re
from typing import Any, Iterator

import pytest

from gameroom.games import registry
from tests.web.conftest import WebServer, screenshot, sign_up, texts_readable

SIZES = {"laptop": (1280, 800), "phone": (390, 844)}
BOTS = {"q": "dag", "fish": "maximin", "bazaar": "purchase-points", "evolution": "silly", "eriantys": "greedy"}
LIMIT = 600   # seconds per decision: a loaded machine never runs out of a person's time


def page_of(browser: Any, size: str) -> tuple[Any, Any, list[str]]:
    """A page in a new browser context of the window ``size`` (a key of SIZES); the
    errors its scripts raise are collected in the list."""
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(120_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return context, page, errors


@pytest.fixture
def person(browser: Any, request: Any) -> Iterator[Any]:
    context, page, errors = page_of(browser, request.param)
    page.size = request.param
    yield page
    context.close()
    assert not errors, f"errors in the page: {errors}"


def start(page: Any, game: str, seats: list[str], seed: int = 3) -> dict[str, Any]:
    """A match started by the page's account over the API (as the lobby's form does)."""
    reply = page.evaluate("""async (body) => {
        const r = await fetch('/api/matches', {method: 'POST', headers: {'content-type': 'application/json'},
                                               body: JSON.stringify(body)});
        return {status: r.status, body: await r.json()};
    }""", {"game": game, "seats": seats, "seed": seed, "person_limit": LIMIT})
    assert reply["status"] == 201, reply
    return reply["body"]


def seat_link(url: str, match: dict[str, Any], seat: str) -> str:
    return f"{url}/matches/{match['id']}?seat={seat}&token={match['tokens'][seat]}"


def fits(page: Any) -> None:
    """Nothing of the page is wider than the window; the board is whole in its box (or,
    zoomed in, the box scrolls over it)."""
    overflow = page.evaluate("""() => {
        const doc = document.documentElement;
        const board = document.querySelector('#board');
        const svg = board.classList.contains('zoomed') ? board : document.querySelector('#picture svg');
        const box = svg ? svg.getBoundingClientRect() : null;
        return {page: doc.scrollWidth - doc.clientWidth,
                board: box ? Math.round(box.right - document.querySelector('#board').getBoundingClientRect().right) : 0};
    }""")
    assert overflow["page"] <= 0 and overflow["board"] <= 1, overflow


LEAST = {"laptop": 24, "phone": 44}
"""The least size (px) of a target a person clicks: a mouse's at 1280x800, a thumb's on a phone."""

MEASURE = """async () => {
    const frames = () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
    const measure = () => {
        const hit = [...document.querySelectorAll('#picture .target, #buttons button, #choices button, #zoom')]
            .filter((n) => n.getClientRects().length && getComputedStyle(n).visibility !== 'hidden')
            .map((n) => { const r = n.getBoundingClientRect();
                          return {what: n.getAttribute('aria-label') || n.textContent, size: Math.min(r.width, r.height)}; });
        const controls = document.querySelector('#controls').getBoundingClientRect();
        // what a person decides by stays readable: the targets' own text, and the whole
        // picture when the step is made with buttons alone (zoom.js's "fine" text is hidden)
        const buttonsOnly = !document.querySelector('#picture .target, #picture .far');
        const hidden = [...document.querySelectorAll(buttonsOnly ? '#picture text.fine' : '#picture .target text.fine')]
            .map((t) => t.textContent.trim().slice(0, 30));
        return {smallest: hit.reduce((a, b) => (a && a.size <= b.size ? a : b), null),
                controls: controls.bottom + window.scrollY, window: window.innerHeight, hidden};
    };
    // once the board settled (its zoom, the controls' height): the same twice, two frames apart
    let seen = null;
    for (let i = 0; i < 20; i++) {
        await frames();
        const now = measure();
        if (seen && JSON.stringify(now) === JSON.stringify(seen)) break;
        seen = now;
    }
    return seen;
}"""


def targets_big_enough(page: Any, size: str) -> None:
    """Every target of the board a person may click now (the picture's highlighted shapes,
    the board's buttons) is at least LEAST px across, the controls under the board are in
    the window without scrolling the page, and no text a person decides by is hidden."""
    seen = page.evaluate(MEASURE)
    smallest = seen["smallest"]
    assert smallest is None or smallest["size"] >= LEAST[size] - 0.5, (size, smallest)
    assert seen["controls"] <= seen["window"], (size, seen)
    assert not seen["hidden"], (size, "text too small to read while deciding", seen["hidden"])


def click_move(page: Any) -> None:
    """One step of a move on the board: a highlighted target, else a board button (the
    confirm first; never undo)."""
    targets = page.locator("#picture .target")
    if targets.count():
        targets.first.click(timeout=20_000)   # a shape covered by another is a defect: it fails
        return
    confirm = page.locator("#buttons button.primary")
    if confirm.count():
        confirm.first.click()
        return
    buttons = page.locator("#buttons button:not([aria-label='undo'])")
    if buttons.count():
        buttons.first.click()


def moves_then_a_decision(page: Any, moves: int = 2) -> None:
    """``moves`` moves made on the board, then the page waits on the person's next decision."""
    def sent() -> int:
        return int(page.evaluate("() => document.body.dataset.sent || '0'"))

    for _ in range(500):
        if sent() >= moves:
            break
        page.wait_for_selector("#picture .target, #buttons button", timeout=300_000)
        try:
            click_move(page)
        except Exception:   # noqa: BLE001 - the board changed under the click: look again
            continue
    assert sent() >= moves
    page.wait_for_selector("#picture .target, #buttons button", timeout=300_000)


def play_on_the_board(page: Any, name: str, shot: str | None = None, max_steps: int = 3000,
                      size: str | None = None) -> None:
    """Click moves on the board until the game is over; a screenshot after the third click;
    with the window's ``size``, the targets' sizes checked before every click."""
    moves = clicks = 0
    for _ in range(max_steps):
        page.wait_for_selector("#picture .target, #buttons button, #winners:has-text('winners:')",
                               timeout=300_000)
        if page.inner_text("#winners"):
            assert shot is None, "the game ended before its screenshot"
            return
        if clicks >= 3 and shot is not None:   # mid-move: a piece picked, targets shown
            page.wait_for_selector("#picture svg")
            assert "s left of" in page.inner_text("#clock")   # the person's clock is shown
            fits(page)
            texts_readable(page, f"{name} mid-move")
            screenshot(page, shot)
            shot = None
        if size is not None:
            targets_big_enough(page, size)
        sent = page.evaluate("() => document.body.dataset.sent || '0'")
        try:
            click_move(page)
            clicks += 1
        except Exception:   # noqa: BLE001 - the board changed under the click (a new state): look again
            continue
        if page.evaluate("() => document.body.dataset.sent || '0'") != sent:
            moves += 1
    raise AssertionError(f"{name}: no end after {max_steps} clicks")


@pytest.mark.parametrize("person", list(SIZES), indirect=True)
@pytest.mark.parametrize("name", registry.names())
def test_a_person_plays_a_whole_game_on_the_board(web_server: WebServer, person: Any, name: str) -> None:
    game = registry.game(name)
    sign_up(person, web_server.url, f"board-{name}-{person.size}")
    match = start(person, name, ["human", *[BOTS.get(name, next(iter(game.strategies)))] * (game.min_players - 1)])
    person.goto(seat_link(web_server.url, match, "P1"))
    person.wait_for_selector("#picture svg")
    play_on_the_board(person, name, shot=f"{name}-board-{person.size}", size=person.size)
    summary = web_server.get(f"/api/matches/{match['id']}")
    assert summary["status"] == "over" and not summary["result"]["ejected"], summary["result"]
    assert person.inner_text("#winners") == f"winners: {', '.join(summary['result']['winners']) or 'none'}"
    fits(person)
    texts_readable(person, f"{name}: the whole board at the end")
    person.click("#zoom")   # zoomed in to read: every text of the picture shown, none too small
    person.wait_for_function("() => document.querySelector('#board').classList.contains('zoomed')")
    assert person.locator("#picture svg text.fine").count() == 0
    texts_readable(person, f"{name}: zoomed in at the end")
    person.click("#zoom")
    person.wait_for_function("() => !document.querySelector('#board').classList.contains('zoomed')")
    fits(person)


@pytest.mark.parametrize("name", ["q", "eriantys"])
def test_two_people_and_a_bot_share_a_match(web_server: WebServer, browser: Any, name: str) -> None:
    """Two people (two browser contexts, two accounts) at the seats of one match, by the
    links the creator shares, and a bot in the third seat; each moves on its own board
    when its prompt comes, the other meanwhile sees whose turn it is; both see the end."""
    contexts = [browser.new_context(viewport={"width": w, "height": h}) for w, h in SIZES.values()]
    pages = [context.new_page() for context in contexts]
    errors: list[str] = []
    for page in pages:
        page.set_default_timeout(120_000)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        sign_up(pages[0], web_server.url, f"host-{name}")
        sign_up(pages[1], web_server.url, f"guest-{name}")
        match = start(pages[0], name, ["human", "human", BOTS[name]], seed=5)
        pages[0].goto(seat_link(web_server.url, match, "P1"))
        pages[1].goto(seat_link(web_server.url, match, "P2"))
        moved = {0: 0, 1: 0}
        waited_seen = False
        for _ in range(20_000):
            if all(page.inner_text("#winners") for page in pages):
                break
            progressed = False
            for k, page in enumerate(pages):
                if page.inner_text("#winners") or not page.locator("#picture .target, #buttons button").count():
                    continue
                other = pages[1 - k]
                told = other.inner_text("#turn")
                if not waited_seen and re.search(rf"to play: (\S+ \()?P{k + 1}\b", told):
                    waited_seen = True   # the other person sees whose turn it is, live, in words
                    assert not re.search(r"\((take-turn|act)\)", told), told   # never the wire's names
                sent = page.evaluate("() => document.body.dataset.sent || '0'")
                try:
                    click_move(page)
                    progressed = True
                except Exception:   # noqa: BLE001 - the board changed under the click: look again
                    continue
                if page.evaluate("() => document.body.dataset.sent || '0'") != sent:
                    moved[k] += 1
            if not progressed:
                pages[0].wait_for_timeout(50)
        summary = web_server.get(f"/api/matches/{match['id']}")
        assert summary["status"] == "over" and not summary["result"]["ejected"], summary["result"]
        assert moved[0] and moved[1] and waited_seen
        for page in pages:
            page.wait_for_selector("#winners:has-text('winners:')")
    finally:
        for context in contexts:
            context.close()
    assert not errors, errors
