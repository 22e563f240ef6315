"""Evolution's moves in words, for the narrator's lines and the pictures' captions: a
player's card actions (spec 3.4) and a feeding choice (spec 3.5.1). Pure text; species
are numbered from 0 in their owner's row, as on the wire."""

from __future__ import annotations

from typing import Any, Sequence

from gameroom.games.evolution.actions import Action4
from gameroom.games.evolution.pieces import Card

__all__ = ["describe_action", "describe_feeding"]


def _card(card: Card) -> str:
    return f"{card[1]} ({card[0]:+d})"


def describe_action(action: Action4, cards: Sequence[Card]) -> str:
    """What an Action4 does, its card indices read in ``cards`` (the hand it was chosen
    from): ``food card fat-tissue (+3); a new species with carnivore; population of
    species 0 +1``."""
    parts = [f"food card {_card(cards[action.food])}"]
    for bt in action.boards:
        traits = [cards[c][1] for c in bt[1:]]
        parts.append("a new species" + (f" with {', '.join(traits)}" if traits else ""))
    for b, i, c in action.replace:
        parts.append(f"trait {i} of species {b} replaced by {cards[c][1]}")
    grown: dict[tuple[str, int], int] = {}
    for kind, items in (("population", action.grow_population), ("body", action.grow_body)):
        for b, _c in items:
            grown[(kind, b)] = grown.get((kind, b), 0) + 1
    parts += [f"{kind} of species {b} +{n}" for (kind, b), n in grown.items()]
    return "; ".join(parts)


def describe_feeding(choice: Any, others: Sequence[Any]) -> str:
    """A feeding choice (vegetarian board i, ``(i, n)`` fat food, ``(c, k, a)`` an attack
    on ``others[k]``'s board a) as a verb phrase: ``feeds species 1``."""
    if isinstance(choice, int):
        return f"feeds species {choice}"
    if len(choice) == 2:
        return f"stores {choice[1]} fat food on species {choice[0]}"
    c, k, a = choice
    return f"attacks with species {c}: {others[k].id}'s species {a}"
