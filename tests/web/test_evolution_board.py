"""Evolution's whole turn of card actions on the board (playwright driving Debian's
Chromium): a person clicks a card of the hand, then where it goes, for every kind of card
action the rules have (spec 3.4) — the food card, a new species paid with a card and
carrying traits, the population and the body of a species, a trait replaced — over the
first turns of a game, in an order other than the wire's (the food card last), then
"done"; the dealer takes each turn (the person is never ejected) and the next picture
shows it."""

from __future__ import annotations

import json
import re
from typing import Any

from tests.web.conftest import WebServer, screenshot, sign_up
from tests.web.test_boards import LIMIT, page_of, seat_link, start


PLANS = [   # the places of each turn's cards, by the targets' labels; the food card last
    [r"^pay .* for a new species", r"its trait on the new species", r"replaces .* on the new species",
     r"as the food card"],
    [r"grows the population of", r"grows the body of", r"as the food card"],
]


def put(page: Any, place: str) -> None:
    """Click a card of the hand whose places include one labelled ``place``, then that place."""
    for key in [n.get_attribute("data-key") for n in page.locator("#picture .target[data-key^='card:']").all()]:
        page.click(f"#picture [data-key='{key}']")
        page.wait_for_function("() => !document.querySelector('#hint').textContent.includes('asking')")
        found = [n for n in page.locator("#picture .target, #buttons button").all()
                 if re.search(place, n.get_attribute("aria-label") or "")]
        if found:
            found[0].click()
            return
        page.click("#buttons button[aria-label='another card']")
    raise AssertionError(f"no card of the hand goes to {place!r}: {page.inner_text('#hint')}")


def test_a_person_composes_whole_turns_of_every_card_action(web_server: WebServer, browser: Any) -> None:
    context, page, errors = page_of(browser, "laptop")
    sent: list[Any] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda f: sent.append(json.loads(f))))
    try:
        sign_up(page, web_server.url, "composer")
        match = start(page, "evolution", ["human", "silly", "silly"], seed=5)
        page.goto(seat_link(web_server.url, match, "P1"))
        kinds: set[str] = set()
        for turn, plan in enumerate(PLANS):
            if turn:   # feeding decisions (if any) on the board, until the next choice of cards
                while True:
                    page.wait_for_selector("#picture .target, #buttons button", timeout=LIMIT * 1000)
                    if page.locator("#picture .target[data-key^='card:']").count():
                        break
                    page.locator("#picture .target, #buttons button:not([aria-label='undo'])").first.click()
            page.wait_for_selector("#picture .target[data-key^='card:']", timeout=LIMIT * 1000)
            for place in plan:
                put(page, place)
            assert "food card" in page.inner_text("#hint")   # the turn so far, in words
            screenshot(page, f"evolution-composed-turn-{turn + 1}")
            before = page.evaluate("() => document.body.dataset.sent || '0'")
            page.click("#buttons button.primary")   # done
            page.wait_for_function(f"() => document.body.dataset.sent !== '{before}'")
            food, gp, gb, bt, rt = [m for m in sent if "action" in m][-1]["action"]
            kinds |= {"food"} | ({"population"} if gp else set()) | ({"body"} if gb else set()) | \
                ({"new species"} if bt else set()) | ({"traits"} if any(len(b) > 1 for b in bt) else set()) | \
                ({"replace"} if rt else set())
        assert kinds == {"food", "population", "body", "new species", "traits", "replace"}, kinds
        # the dealer took both turns, as its story tells: the person is still seated, never ejected
        told = "#events li:has-text('P1#1 plays food card')"
        page.wait_for_selector(f"{told}:has-text('a new species with'):has-text('replaced by')")
        page.wait_for_selector(f"{told}:has-text('population of species'):has-text('body of species')")
        assert not page.inner_text("#refused"), page.inner_text("#refused")
        summary = web_server.get(f"/api/matches/{match['id']}")
        assert summary["status"] == "running" and summary["result"] is None, summary
    finally:
        context.close()
    assert not errors, errors
