"""The built-in "silly" player (spec 9.1) and the misbehaving players of spec 9.3.

:func:`silly_choice` and :func:`silly_feeding` are the strategy as pure functions;
:class:`SillyPlayer` wraps them in the player interface (``start``, ``choose``,
``feed_next``), keeping its own copy of bag, boards and hand as the reference does.
A baddie is a silly player whose ``choose`` or ``feed_next`` misbehaves from its
(k+1)-th call on.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from gameroom.core.misbehaviour import hang
from gameroom.games.evolution.actions import Action4
from gameroom.games.evolution.pieces import CARDS_BEFORE_CHOOSE, CARNIVORE, FAT_TISSUE, Card, Species, card_key
from gameroom.games.evolution.rules import attackable, targets_in_row

__all__ = ["SillyFailed", "silly_choice", "silly_feeding", "SillyPlayer", "BaddiePlayer", "BADDIES",
           "SIGNUP_BADDIES", "FAT_REQUESTS", "XGAME_KINDS"]

FAT_REQUESTS = ("min", "need")
"""``silly_fat_request`` settings (spec 8.2): ask min(need, watering hole) or the full need."""


class SillyFailed(Exception):
    """The silly player has no answer (spec 9.1: too few cards; nothing to feed)."""


def _size(s: Species) -> tuple[int, int, int]:
    return (s.population, s.food, s.body)


def _by_size(boards: Sequence[Species], indexes: list[int]) -> list[int]:
    """Descending species order, stable."""
    return sorted(indexes, key=lambda i: _size(boards[i]), reverse=True) if len(indexes) > 1 else indexes


def silly_choice(boards: Sequence[Species], cards: Sequence[Card]) -> Action4:
    """The silly ``choose`` answer (spec 9.1): food card, one new board with a trait, its
    population (and, with enough cards, its body and a trait replacement)."""
    if len(cards) < CARDS_BEFORE_CHOOSE:
        raise SillyFailed(f"the silly player needs {CARDS_BEFORE_CHOOSE} cards to choose, holds {len(cards)}")
    order = sorted(range(len(cards)), key=lambda i: card_key(cards[i]))
    new = len(boards)
    grow_body = ((new, order[4]),) if len(order) > 4 else ()
    replace = ((new, 0, order[5]),) if len(order) > 5 else ()
    return Action4(order[0], ((new, order[3]),), grow_body, ((order[1], order[2]),), replace)


def silly_feeding(boards: Sequence[Species], hole: int, others: Sequence[Sequence[Species]],
                  fat_request: str = "min") -> Any:
    """The silly ``feedNext`` answer (spec 9.1): ``[i, n]`` for the neediest fat tissue,
    else the largest hungry vegetarian ``i``, else the largest hungry carnivore's attack
    ``[c, k, a]`` on the largest target, else ``False`` if it could only attack its own
    boards; raises :class:`SillyFailed` when it has nothing to do."""
    fat = [i for i, s in enumerate(boards) if FAT_TISSUE in s.traits and s.body > s.fat]
    if fat:
        best, need = -1, 0
        for i in _by_size(boards, fat):
            n = boards[i].body - boards[i].fat
            if n > need:
                best, need = i, n
        return (best, min(need, hole) if fat_request == "min" else need)
    hungry = [i for i, s in enumerate(boards) if s.food < s.population]
    vegetarians = [i for i in hungry if CARNIVORE not in boards[i].traits]
    if vegetarians:
        return _by_size(boards, vegetarians)[0]
    carnivores = _by_size(boards, [i for i in hungry if CARNIVORE in boards[i].traits])
    for c in carnivores:
        attacker = boards[c]
        target: tuple[int, int] | None = None
        for k, row in enumerate(others):
            for a in targets_in_row(attacker, row):
                if target is None or _size(row[a]) > _size(others[target[0]][target[1]]):
                    target = (k, a)
        if target is not None:
            return (c, target[0], target[1])
    last = len(boards) - 1
    for c in carnivores:
        for a in range(last + 1):
            if attackable(boards[a], boards[c], boards[a - 1] if a > 0 else None, boards[a + 1] if a < last else None):
                return False
    raise SillyFailed("nothing to feed")


class SillyPlayer:
    """The silly strategy behind the player interface (spec 5, 9.1)."""

    def __init__(self, fat_request: str = "min") -> None:
        self.fat_request = fat_request
        self.bag = 0
        self.boards: list[Species] = []
        self.cards: list[Card] = []

    def start(self, hole: int, bag: int, boards: list[Species], cards: list[Card]) -> None:
        self.bag, self.boards, self.cards = bag, boards, cards

    def choose(self, before: list[list[Species]], after: list[list[Species]]) -> Action4:
        return silly_choice(self.boards, self.cards)

    def feed_next(self, bag: int, boards: list[Species], cards: list[Card], hole: int,
                  others: list[list[Species]]) -> Any:
        self.bag, self.boards, self.cards = bag, boards, cards
        return silly_feeding(boards, hole, others, self.fat_request)


def _over_growth(player: SillyPlayer) -> Any:
    """Grows a board that does not exist."""
    return Action4(0, ((len(player.boards) + 2, 1),), (), (), ())


def _no_food_card(_player: SillyPlayer) -> Any:
    return []


def _choose_forever(_player: SillyPlayer) -> Any:
    hang()


def _feed_forever(_player: SillyPlayer) -> Any:
    hang()


def _feed_bad(_player: SillyPlayer) -> Any:
    """A vegetarian choice of a board that does not exist (244 = 2 x 122)."""
    return 244


# name -> (method it spoils, misbehaviour, sign-up name prefix in xclients)
BADDIES: dict[str, tuple[str, Callable[[SillyPlayer], Any], str]] = {
    "over": ("choose", _over_growth, "bad pop growth"),
    "no-fc": ("choose", _no_food_card, "no fc"),
    "cinf": ("choose", _choose_forever, "bad choice inf"),
    "finf": ("feed_next", _feed_forever, "bad feed inf"),
    "feed": ("feed_next", _feed_bad, "bad feed"),
}
"""The in-game baddies of spec 9.3 by their ``xclients`` names."""

SIGNUP_BADDIES = ("ill", "infsu", "huge", "deep")
"""Baddies that fail at sign-up (remote only, spec 9.3)."""


class BaddiePlayer(SillyPlayer):
    """A silly player whose `method` behaves for `k` calls, then misbehaves on every call."""

    def __init__(self, name: str, k: int, fat_request: str = "min") -> None:
        super().__init__(fat_request)
        self.kind = name
        self.method, self.misbehave, _prefix = BADDIES[name]
        self.left = k

    def _spoiled(self, method: str) -> bool:
        if method != self.method:
            return False
        if self.left > 0:
            self.left -= 1
            return False
        return True

    def choose(self, before: list[list[Species]], after: list[list[Species]]) -> Action4:
        if self._spoiled("choose"):
            return self.misbehave(self)
        return super().choose(before, after)

    def feed_next(self, bag: int, boards: list[Species], cards: list[Card], hole: int,
                  others: list[list[Species]]) -> Any:
        if self._spoiled("feed_next"):
            self.bag, self.boards, self.cards = bag, boards, cards
            return self.misbehave(self)
        return super().feed_next(bag, boards, cards, hole, others)


XGAME_KINDS = {"no-fc": "no-fc", "over-growth": "over", "feed-bad": "feed"}
"""The baddie kinds of ``xgame`` inputs and their ``xclients`` names."""
