"""Evolution's pieces (spec 2): the 16 traits, the 122 cards and their order, the sorted
deck, species boards and the constants of the reference.

A card is a ``(food value, trait)`` tuple; card order is ``(trait, value)``. A species
board is a small mutable object with slots, since the feeding cycle updates boards in
place many times per turn.
"""

from __future__ import annotations

import random
from typing import Iterable

__all__ = ["TRAITS", "TRAIT_SET", "Card", "card_key", "CARDS", "CARD_SET", "sorted_deck", "shuffled_deck",
           "Species", "MIN_PLAYERS", "MAX_PLAYERS", "CARDS_PER_BOARD", "CARDS_PER_PLAYER",
           "EXTINCTION_CARDS", "MAX_TRAITS", "MAX_BODY", "MAX_POPULATION", "HARD_SHELL_ATTACK",
           "CARDS_BEFORE_CHOOSE", "CALL_TIME_LIMIT", "AMBUSH", "BURROWING", "CARNIVORE", "CLIMBING",
           "COOPERATION", "FAT_TISSUE", "FERTILE", "FORAGING", "HARD_SHELL", "HERDING", "HORNS",
           "LONG_NECK", "PACK_HUNTING", "SCAVENGER", "SYMBIOSIS", "WARNING_CALL"]

AMBUSH = "ambush"
BURROWING = "burrowing"
CARNIVORE = "carnivore"
CLIMBING = "climbing"
COOPERATION = "cooperation"
FAT_TISSUE = "fat-tissue"
FERTILE = "fertile"
FORAGING = "foraging"
HARD_SHELL = "hard-shell"
HERDING = "herding"
HORNS = "horns"
LONG_NECK = "long-neck"
PACK_HUNTING = "pack-hunting"
SCAVENGER = "scavenger"
SYMBIOSIS = "symbiosis"
WARNING_CALL = "warning-call"

TRAITS: tuple[str, ...] = (AMBUSH, BURROWING, CARNIVORE, CLIMBING, COOPERATION, FAT_TISSUE, FERTILE,
                           FORAGING, HARD_SHELL, HERDING, HORNS, LONG_NECK, PACK_HUNTING, SCAVENGER,
                           SYMBIOSIS, WARNING_CALL)
"""The 16 traits in their (alphabetical) order."""
TRAIT_SET = frozenset(TRAITS)

MIN_PLAYERS, MAX_PLAYERS = 3, 8
CARDS_PER_BOARD = 1
CARDS_PER_PLAYER = 3
EXTINCTION_CARDS = 2
MAX_TRAITS = 3
MAX_BODY = MAX_POPULATION = 7
HARD_SHELL_ATTACK = 4
CARDS_BEFORE_CHOOSE = 4
CALL_TIME_LIMIT = 1.0
"""Seconds per call to a player, local or remote (spec 4)."""

Card = tuple[int, str]


def card_key(card: Card) -> tuple[str, int]:
    """Card order (spec 2.2): by trait string, then by food value."""
    return (card[1], card[0])


def _values(trait: str) -> range:
    return range(-8, 9) if trait == CARNIVORE else range(-3, 4)


CARDS: tuple[Card, ...] = tuple((value, trait) for trait in TRAITS for value in _values(trait))
"""All 122 cards in card order (the reference's deck)."""
CARD_SET = frozenset(CARDS)


def sorted_deck() -> list[Card]:
    """The reference's deck: every card once, in card order."""
    return list(CARDS)


def shuffled_deck(seed: int) -> list[Card]:
    """Every card once, shuffled by a seeded generator (our extension, spec 8.2)."""
    deck = list(CARDS)
    random.Random(seed).shuffle(deck)
    return deck


class Species:
    """One species board (spec 2.3). ``traits`` is an ordered list (positions matter for
    trait replacement); ``fat`` is the stored fat food."""

    __slots__ = ("food", "body", "population", "traits", "fat")

    def __init__(self, food: int = 0, body: int = 0, population: int = 1,
                 traits: Iterable[str] = (), fat: int = 0) -> None:
        self.food = food
        self.body = body
        self.population = population
        self.traits = list(traits)
        self.fat = fat

    def copy(self) -> "Species":
        return Species(self.food, self.body, self.population, self.traits, self.fat)

    @property
    def hungry(self) -> bool:
        return self.food < self.population

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Species) and self.food == other.food and self.body == other.body
                and self.population == other.population and self.traits == other.traits
                and self.fat == other.fat)

    def __repr__(self) -> str:
        return (f"Species(food={self.food}, body={self.body}, population={self.population}, "
                f"traits={self.traits!r}, fat={self.fat})")
