"""A person's legal answers in Evolution (the web room's seat for people): the Action4s
offered to ``choose`` and every feeding choice of ``feedNext``, as wire values with labels.

``choose`` is told nothing of the player's own hand: :class:`PersonMoves` remembers the
bag, boards and cards of the last ``start``, as the silly player does. The space of
Action4s is far too large to list, so a person is offered a complete-enough set: the
silly player's whole turn, every card as food card alone, and every food card with one
use of one other card (a new board, a new board carrying one trait, growing a
population or a body, replacing a trait), each checked by the spec's validity rules.
"""

from __future__ import annotations

from typing import Any, Sequence

from gameroom.games.evolution.actions import Action4, validate
from gameroom.games.evolution.pieces import Card, Species
from gameroom.games.evolution.rules import PlayerState, Table
from gameroom.games.evolution.players import SillyFailed, silly_choice
from gameroom.games.evolution.codec import encode_action4, encode_feeding_choice

__all__ = ["PersonMoves", "choices", "feedings", "MAX_CHOICES"]

MAX_CHOICES = 1000
"""At most this many Action4s are offered (a hand kept for many turns grows large); the
whole turns and the food cards alone come first, so they are always among them."""

Offer = tuple[str, Any]


class PersonMoves:
    """One person's seat: remembers what ``start`` told it, offers legal answers."""

    def __init__(self) -> None:
        self.boards: list[Species] = []
        self.cards: list[Card] = []

    def __call__(self, method: str, args: tuple[Any, ...]) -> list[Offer] | None:
        if method == "start":
            _hole, _bag, self.boards, self.cards = args
            return None
        if method == "choose":
            return choices(self.boards, self.cards)
        if method == "feed_next":
            _bag, boards, _cards, hole, others = args
            return feedings(boards, hole, others)
        return None

    def check(self, method: str, args: tuple[Any, ...], answer: Any) -> str | None:
        """Why a person's composed answer (decoded) breaks the dealer's rules, or None: an
        Action4 of any cards the hand holds (spec 3.4), a feeding choice the dealer takes."""
        if method == "choose":
            return validate(answer, list(self.boards), list(self.cards))
        if method == "feed_next":
            _bag, boards, _cards, hole, others = args
            legal = [wire for _, wire in feedings(boards, hole, others)]
            return None if encode_feeding_choice(answer) in legal else "the dealer takes no such feeding now"
        return f"{method} asks no decision"


def _card(cards: Sequence[Card], i: int) -> str:
    value, trait = cards[i]
    return f"{value:+d} {trait}"


def _species(s: Species, b: int) -> str:
    traits = ", ".join(s.traits) or "no traits"
    return f"species {b} ({traits}; population {s.population}, body {s.body})"


def choices(boards: Sequence[Species], cards: Sequence[Card]) -> list[Offer]:
    """The Action4s offered for this hand and these boards (see the module's docstring)."""
    found: list[tuple[str, Action4]] = []
    try:
        found.append(("the built-in player's whole turn", silly_choice(boards, cards)))
    except SillyFailed:
        pass
    n = len(cards)
    found += [(f"food card {_card(cards, f)} only", Action4(f)) for f in range(n)]
    for f in range(n):
        food = f"food card {_card(cards, f)}"
        for c in range(n):
            if c == f or len(found) > 2 * MAX_CHOICES:   # enough to fill the offer once checked
                continue
            card = _card(cards, c)
            found.append((f"{food}; a new species paid with {card}", Action4(f, boards=((c,),))))
            payment = next((p for p in range(n) if p not in (f, c)), None)
            if payment is not None:
                found.append((f"{food}; a new species with trait {cards[c][1]} (paid with {_card(cards, payment)})",
                              Action4(f, boards=((payment, c),))))
            for b, s in enumerate(boards):
                found.append((f"{food}; grow the population of {_species(s, b)} with {card}",
                              Action4(f, grow_population=((b, c),))))
                found.append((f"{food}; grow the body of {_species(s, b)} with {card}", Action4(f, grow_body=((b, c),))))
                for i, trait in enumerate(s.traits):
                    found.append((f"{food}; replace {trait} of {_species(s, b)} with {cards[c][1]} ({card})",
                                  Action4(f, replace=((b, i, c),))))
    seen: set[Action4] = set()
    offered: list[Offer] = []
    for label, action in found:
        if action not in seen and validate(action, list(boards), list(cards)) is None:
            seen.add(action)
            offered.append((label, encode_action4(action)))
    return offered[:MAX_CHOICES]


def feedings(boards: list[Species], hole: int, others: Sequence[list[Species]]) -> list[Offer]:
    """Every feeding choice the dealer accepts (spec 3.5): each hungry vegetarian, each
    amount of fat a fat-tissue species may store, each attack of a hungry carnivore."""
    me, rivals = PlayerState("me", boards), [PlayerState(k, row) for k, row in enumerate(others)]
    offered: list[Offer] = []
    for choice in Table([], hole).possibilities(me, rivals):
        if isinstance(choice, int):
            offered.append((f"feed {_species(boards[choice], choice)}", encode_feeding_choice(choice)))
        elif len(choice) == 2:
            i, need = choice
            for amount in range(min(need, max(hole, 1)), 0, -1):
                offered.append((f"store {amount} fat food on {_species(boards[i], i)}",
                                encode_feeding_choice((i, amount))))
        else:
            c, k, a = choice
            offered.append((f"{_species(boards[c], c)} attacks species {a} of opponent {k + 1} "
                            f"({_species(others[k][a], a)})", encode_feeding_choice(choice)))
    return offered
