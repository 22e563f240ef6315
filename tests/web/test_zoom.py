"""The board's zoom on a phone (playwright driving Debian's Chromium, docs/boards.md
"Targets a finger can hit"): Eriantys's assistant cards are a few pixels wide on the
fitted picture, so the board zooms in on them by itself (every target a thumb's 44 px);
"whole board" shows everything, the cards then only marked (not clickable); a tap on their
region zooms in again, and the card tapped next is played."""

from __future__ import annotations

from typing import Any

from tests.web.conftest import WebServer, sign_up
from tests.web.test_boards import page_of, seat_link, start

SIZES = """() => ({
    targets: [...document.querySelectorAll('#picture .target')].map((n) => {
        const r = n.getBoundingClientRect(); return Math.min(r.width, r.height); }),
    far: [...document.querySelectorAll('#picture .far')].map((n) => {
        const r = n.getBoundingClientRect(); return {x: r.left + r.width / 2, y: r.top + r.height / 2,
                                                      size: Math.min(r.width, r.height)}; }),
    zoomed: document.querySelector('#board').classList.contains('zoomed'),
})"""


def test_the_board_zooms_to_the_pieces_being_chosen_and_a_tap_zooms_into_a_region(
        web_server: WebServer, browser: Any) -> None:
    context, page, errors = page_of(browser, "phone")
    try:
        sign_up(page, web_server.url, "thumb")
        match = start(page, "eriantys", ["human", "greedy"])
        page.goto(seat_link(web_server.url, match, "P1"))
        page.wait_for_selector("#picture .target[data-key^='assistant:']")
        seen = page.evaluate(SIZES)   # zoomed in by itself: every card a thumb's size
        assert seen["zoomed"] and seen["targets"] and min(seen["targets"]) >= 44 and not seen["far"], seen
        assert page.inner_text("#zoom") == "whole board"
        page.click("#zoom")
        seen = page.evaluate(SIZES)   # the whole board: the cards too small to hit are only marked
        assert not seen["zoomed"] and seen["far"] and all(f["size"] < 44 for f in seen["far"]), seen
        assert all(size >= 44 for size in seen["targets"]), seen
        assert page.locator("#picture .far[role='button']").count() == 0
        card = seen["far"][0]
        page.mouse.click(card["x"], card["y"])   # a tap on their region
        page.wait_for_function("() => document.querySelector('#board').classList.contains('zoomed')")
        seen = page.evaluate(SIZES)
        assert seen["targets"] and min(seen["targets"]) >= 44, seen
        sent = page.evaluate("() => document.body.dataset.sent || '0'")
        page.locator("#picture .target[data-key^='assistant:']").first.click()
        page.wait_for_function(f"() => (document.body.dataset.sent || '0') !== '{sent}'")
    finally:
        context.close()
    assert not errors, errors
