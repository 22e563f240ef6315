"""A league's bots of Goofspiel, shipped with the game: ``python = "goofspiel_game.bots:Lowest"``
and ``policy = "goofspiel_game.bots:first_legal"``."""

from __future__ import annotations

from typing import Any


class Lowest:
    """Bids its lowest card, whatever the prize."""

    def __init__(self, name: str, seed: int) -> None:
        self.name = name

    def bid(self, prize: int, hand: list[int]) -> int:
        return min(hand)

    def reveal(self, bids: list[Any]) -> None:
        return None

    def win(self, won: bool) -> None:
        return None


def first_legal(observation: dict[str, Any]) -> int:
    """A policy (an observation dict -> an action index): the first action its mask allows."""
    return int(list(observation["action_mask"]).index(1))
