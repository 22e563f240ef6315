"""The web room tells a match as ``gameroom play`` tells it: a bot match of every game
sends the narrator's lines with its frames (``narration``), captions that say who did
what, and a last picture naming the winners. A person's seat gets the game's time for a
person when the request names no limit, never the bots' per-call limit."""

from __future__ import annotations

import json
import re
import threading
from typing import Any

import pytest

from gameroom.core.context import MatchContext
from gameroom.games import registry
from gameroom.web.matches import HUMAN, MatchRequest, WebMatch
from tests.web.conftest import running_web, signed_up


def frames_of(name: str, seed: int) -> tuple[list[dict[str, Any]], Any]:
    game = registry.game(name)
    seats = [list(game.strategies)[i % len(game.strategies)] for i in range(game.min_players)]
    done = threading.Event()
    frames: list[dict[str, Any]] = []

    def listen(text: str, kind: str) -> None:
        frames.append(json.loads(text))
        if kind == "end":
            done.set()

    # listened to from before its start (the book starts a match of bots at once)
    match = WebMatch(f"1-{name}", MatchRequest.from_json({"game": name, "seats": seats, "seed": seed},
                                                         registry.games()))
    past, over = match.subscribe(None, listen)
    assert past == [] and not over
    match.start()
    assert done.wait(300), f"{name}: the match did not end"
    return frames, match


@pytest.mark.parametrize("name", registry.names())
def test_every_frame_tells_its_event(name: str) -> None:
    frames, match = frames_of(name, 3)
    game = registry.game(name)
    # the same game told apart from the web room: the same seed, seats and players
    story, expected = game.story(3, match.names), []
    strategies = [list(game.strategies)[i % len(game.strategies)] for i in range(game.min_players)]
    result = game.play(3, game.seats(strategies, 3, match.names),
                       MatchContext(observers=[lambda event: expected.extend(story.tell(event).lines)]))
    expected += story.end(result).lines
    lines = [line for f in frames for line in f.get("narration", ())]
    assert lines == expected
    states = [f for f in frames if f["type"] == "state"]
    assert lines and states and all("narration" in f for f in states)
    assert all(not re.fullmatch(r"(step|turn) \d+", f["caption"]) for f in states)
    last = states[-1]["caption"]
    assert "game over" in last and all(w in last for w in match.result["winners"]), last


def test_limits_are_per_seat_and_a_person_never_gets_a_bots_limit() -> None:
    """The finding: the form gave a person Fish's 0.6 s (the bots' limit of one call) and
    the person was ejected at setup. Now a bot's seat has the bots' limit, a person's seat
    the game's time for a person (or the one asked, never less than the least a person
    may have), whatever ``time_limit`` says."""
    # every match with a person waits for its page: room for them all in the quotas
    with running_web("--matches-per-user", "50", "--matches-per-address", "50") as server:
        person = signed_up(server.url, "time-for-a-person")
        try:
            listed = {g["name"]: g for g in server.get("/api/games")}
            for name in registry.names():
                game = registry.game(name)
                if not game.playable_by_people:
                    continue
                bots = [next(iter(game.strategies))] * (game.min_players - 1)

                def limits_of(body: dict[str, Any], name: str = name) -> dict[str, Any]:
                    reply = person.post("/api/matches", json={"game": name, **body})
                    assert reply.status_code == 201, reply.text
                    summary = server.get(f"/api/matches/{reply.json()['id']}")
                    return {"time_limit": summary["time_limit"], "person_limit": summary["person_limit"],
                            "seats": [seat["limit"] for seat in summary["seats"]]}

                assert game.person_limit is not None and game.person_limit >= 30 > (game.limits.call or 0), name
                bot, least = game.limits.call, listed[name]["least_person_limit"]
                assert limits_of({"seats": [HUMAN, *bots]}) == {
                    "time_limit": bot, "person_limit": game.person_limit, "seats": [game.person_limit] + [bot] * len(bots)}
                # a time limit asked for is the bots'; a person's asked for is kept
                assert limits_of({"seats": [HUMAN, *bots], "time_limit": 0.6})["seats"][0] == game.person_limit
                assert limits_of({"seats": [HUMAN, *bots], "person_limit": 45, "time_limit": 7})["seats"] == [
                    45] + [7] * len(bots)
                assert limits_of({"seats": [*bots, bots[0]]})["person_limit"] is None
                # a person cannot be given less than the least a person may have (never a bot's limit)
                assert least >= max(10, bot or 0)
                refused = person.post("/api/matches", json={"game": name, "seats": [HUMAN, *bots],
                                                            "person_limit": min(bot or 0.6, least / 2)})
                assert refused.status_code == 400 and "person_limit: a person's seat needs seconds in " \
                    f"[{least:g}, 3600]" in refused.json()["error"], refused.text
            assert all(entry["person_limit"] == registry.game(n).person_limit for n, entry in listed.items())
        finally:
            person.close()


def test_the_match_page_tells_the_story_line_by_line_as_it_happens(web_server: Any, browser: Any) -> None:
    """The match page's log shows the narrator's lines of the frames (one line per move,
    the lines ``gameroom play`` prints) as they come: after the person's first move on the
    board its line and the bot's answer appear without a reload, each line once."""
    from tests.web.conftest import sign_up
    from tests.web.test_boards import click_move, seat_link, start

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(120_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        sign_up(page, web_server.url, "story-teller")
        match = start(page, "fish", ["human", "greedy"], seed=4)
        page.goto(seat_link(web_server.url, match, "P1"))
        page.wait_for_selector("#picture .target")
        before = page.locator("#events li").all_inner_texts()
        while page.evaluate("() => document.body.dataset.sent || '0'") == "0":
            click_move(page)
        page.wait_for_function("(n) => document.querySelectorAll('#events li').length >= n + 2", arg=len(before))
        page.wait_for_selector("#events li:has-text('P2')")
        told = page.locator("#events li").all_inner_texts()
        assert told[:len(before)] == before and any("P1" in line for line in told[len(before):]), told
        assert not any(told[i] == told[i + 1] for i in range(len(told) - 1)), told   # each line once
    finally:
        context.close()
    assert not errors, errors
