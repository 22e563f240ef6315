"""Every game tells its story (``core.narration.Story`` with the descriptor's narrator):
a seeded game between built-in players gives the same lines every time, at least one line
per move, each picture captioned with who did what (never a bare "step N" or "turn N"),
the caption in the picture's title and its text, and the last picture naming the winners.
The first lines of a seeded game of each game are pinned here: what ``gameroom play`` and
the web room tell a person."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from gameroom.core.record import CALL, STATE
from gameroom.core.context import MatchContext
from gameroom.games import registry

SVG = "{http://www.w3.org/2000/svg}"

FIRST_LINES = {
    "q": ["turn   1: P1 exchanges its hand  [P2 0, P1 0; pile 1067]", "turn   2: P2 "],
    "fish": ["P1 (red) places a penguin on [", "P2 (white) places a penguin on ["],
    "bazaar": ["the game begins", "P1 is set up", "P2 is set up", "turn   1: P1 "],
    "evolution": ["-- turn 1 begins: P1#1, P2#2, P3#3 in turn order --", "cards dealt: P1#1 4, P2#2 4, P3#3 4",
                  "P1#1 plays food card "],
    "eriantys": ["-- round 1 --", "P1 plays assistant "],
}


def told(name: str, seed: int) -> dict[str, Any]:
    """A seeded game between the first strategies, told: its lines, pictures (caption and
    SVG), the ending's caption, the number of decisions asked."""
    game = registry.game(name)
    names = [f"P{i + 1}" for i in range(game.min_players)]
    story = game.story(seed, names)
    out: dict[str, Any] = {"lines": [], "pictures": [], "decisions": 0}
    decisions = {m.wire for m in game.protocol.methods if not m.one_way and m.result.name != "void"}

    def observe(event: Any) -> None:
        said = story.tell(event)
        out["lines"] += said.lines
        if said.drawn:
            out["pictures"].append((said.caption, story.draw(said.state, said.caption)))
        if event.kind == CALL and event.get("method") in decisions:
            out["decisions"] += 1
        if event.kind == STATE and event.subject is not None:
            assert event.get("caption") is None or not re.fullmatch(r"(step|turn) \d+", event.get("caption"))

    strategies = list(game.strategies)
    result = game.play(seed, game.seats([strategies[i % len(strategies)] for i in range(len(names))], seed, names),
                       MatchContext(observers=[observe]))
    ending = story.end(result)
    out["ending"], out["result"] = ending, result
    if ending.caption is not None:
        out["pictures"].append((ending.caption, story.draw(ending.state, ending.caption)))
    return out


@pytest.mark.parametrize("name", registry.names())
def test_a_seeded_game_is_told_the_same_way_every_time(name: str) -> None:
    first, again = told(name, 4), told(name, 4)
    assert first["lines"] == again["lines"] and [c for c, _ in first["pictures"]] == [c for c, _ in again["pictures"]]
    lines = first["lines"]
    assert len(lines) >= first["decisions"] > 0   # at least a line per move
    expected = FIRST_LINES.get(name)
    if expected is not None:   # gameroom's own games: their first lines, pinned
        assert all(line.startswith(start) for line, start in zip(lines, expected)), lines[:len(expected)]


@pytest.mark.parametrize("name", registry.names())
def test_every_picture_says_who_did_what_and_the_last_names_the_winners(name: str) -> None:
    game = told(name, 7)
    pictures = game["pictures"]
    assert len(pictures) > 2
    for caption, svg in pictures:
        assert caption and not re.fullmatch(r"(step|turn) \d+", caption), caption
        root = ET.fromstring(svg)
        assert root.tag == f"{SVG}svg" and root.find(f"{SVG}title").text == caption
        words = " ".join(" ".join(t.itertext()) for t in root.iter(f"{SVG}text"))
        assert " ".join(caption.split()) in " ".join(words.split())   # the caption is drawn, wrapped
    last, _svg = pictures[-1]
    winners = game["result"].winners
    assert "game over" in last and winners and all(w.split("#")[0] in last for w in winners), last


def test_evolution_is_pictured_at_every_choice_and_feeding() -> None:
    game = told("evolution", 2)
    captions = [c for c, _ in game["pictures"]]
    chose = [c for c in captions if " plays food card " in c]
    fed = [c for c in captions if re.search(r" (feeds species|stores \d+ fat food|attacks with species) ", c)]
    assert len(chose) == 3 * sum(c.startswith("turn ") and " begins:" in c for c in captions)
    assert fed and len(fed) == sum(1 for line in game["lines"] if line in fed)
