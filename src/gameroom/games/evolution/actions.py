"""Card actions (spec 3.4): the Action4 value, its validity rules and its application.

An :class:`Action4` holds the food card index and the four lists of growth, board and
trait-replacement actions as tuples of naturals; every card index refers to the hand as
it was when ``choose`` was called, so application removes all used cards at the end.
"""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple

from gameroom.games.evolution.pieces import MAX_BODY, MAX_POPULATION, Card, Species

__all__ = ["Action4", "validate", "apply_action"]


class Action4(NamedTuple):
    """``[f, GP*, GB*, BT*, RT*]``: GP/GB ``(board, card)``, BT ``(payment, trait cards...)``,
    RT ``(board, trait position, card)``."""

    food: int
    grow_population: tuple[tuple[int, int], ...] = ()
    grow_body: tuple[tuple[int, int], ...] = ()
    boards: tuple[tuple[int, ...], ...] = ()
    replace: tuple[tuple[int, int, int], ...] = ()

    def cards_used(self) -> list[int]:
        used = [self.food]
        used += [c for _b, c in self.grow_population]
        used += [c for _b, c in self.grow_body]
        for bt in self.boards:
            used += bt
        used += [c for _b, _i, c in self.replace]
        return used

    def to_wire(self) -> list:
        return [self.food, [list(x) for x in self.grow_population], [list(x) for x in self.grow_body],
                [list(x) for x in self.boards], [list(x) for x in self.replace]]


def _distinct(items: list) -> bool:
    return len(set(items)) == len(items)


def validate(action: Action4, boards: list[Species], cards: list[Card]) -> str | None:
    """Why the action breaks a validity rule of spec 3.4 (rules 2 to 6), or None."""
    used = action.cards_used()
    if not _distinct(used):
        return "a card is used twice"
    bad = [c for c in used if c >= len(cards)]
    if bad:
        return f"card index {bad[0]} but the hand holds {len(cards)} card(s)"
    existing = len(boards)
    total = existing + len(action.boards)
    for kind, items in (("population", action.grow_population), ("body", action.grow_body),
                        ("trait replacement", action.replace)):
        for item in items:
            if item[0] >= total:
                return f"{kind} action for board {item[0]} but there are {total} board(s)"
    for kind, items, limit in (("population", action.grow_population, MAX_POPULATION),
                               ("body", action.grow_body, MAX_BODY)):
        for b, count in Counter(b for b, _c in items).items():
            now = (boards[b].population if kind == "population" else boards[b].body) if b < existing else 1
            if now + count > limit:
                return f"{kind} of board {b} would exceed {limit}"
    for bt in action.boards:
        if not _distinct([cards[c][1] for c in bt[1:]]):
            return f"new board {list(bt)} carries one trait twice"
    for b, i, c in action.replace:
        if b < existing:
            traits = boards[b].traits
        else:
            traits = [cards[t][1] for t in action.boards[b - existing][1:]]
        if i >= len(traits):
            return f"trait replacement at position {i} of board {b}, which has {len(traits)} trait(s)"
        if not _distinct([cards[c][1]] + traits[:i] + traits[i + 1:]):
            return f"trait replacement on board {b} would carry one trait twice"
    return None


def apply_action(action: Action4, boards: list[Species], cards: list[Card]) -> Card:
    """Spec 3.4 application: boards, replacements, growth, then the used cards leave the
    hand (the rest keep their order). Returns the food card."""
    for bt in action.boards:
        boards.append(Species(0, 0, 1, [cards[c][1] for c in bt[1:]]))
    for b, i, c in action.replace:
        boards[b].traits[i] = cards[c][1]
    for b, _c in action.grow_population:
        s = boards[b]
        if s.population < MAX_POPULATION:
            s.population += 1
    for b, _c in action.grow_body:
        boards[b].body += 1
    food = cards[action.food]
    used = set(action.cards_used())
    cards[:] = [card for i, card in enumerate(cards) if i not in used]
    return food
