"""The SVG picture of a snapshot shows the island ring, Mother Nature, towers, no-entry
tiles, clouds, schools with professors and coins, and the character cards."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from gameroom.games.eriantys.render import render_svg
from tests.games.eriantys.helpers import fill, in_action


def test_picture_shows_every_part_of_the_table() -> None:
    table = in_action(3, True, cards=[5, 0, 8])

    def board(s) -> None:
        s.islands[4].towers, s.islands[4].team = 2, 2
        s.supply[2] -= 2
        s.islands[7].no_entry, s.card(5).no_entry = 1, 3
        s.professors[1] = 1
        fill(s, s.dining[1], "RED RED")
    table.arrange(board)
    text = render_svg(table.snap, "a caption")
    root = ET.fromstring(text)
    assert root.tag.endswith("svg")
    for part in ["a caption", "island 0", "island 11", "Mother Nature", "cloud 2", "Grandma Herbs", "Monk",
                 "Herald", "no-entry tiles: 3", "red professor", "seat 2: cyd (GREY)", "1 coin",
                 "x2", "towers in supply: 4", "planning order: 0 1 2", "action order: 0 1 2"]:
        assert part in text, part
