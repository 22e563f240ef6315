"""Built-in Eriantys players' decisions (eriantys.md 9): the canonical candidate order,
``first-legal``, ``greedy`` and a seeded ``random`` player that also uses character cards
(for property tests and for exercising expert mode).

A strategy maps the §6.5 snapshot to an event object. Legality is never re-implemented
here: candidates are tested with the server's own checks
(:func:`gameroom.games.eriantys.rules.check_event`) on a state rebuilt from the snapshot.
"""

from __future__ import annotations

import random
from typing import Any, Callable, Iterator

from gameroom.games.eriantys.pieces import (ACTION_ONE, ACTION_THREE, ACTION_TWO, COLORS, PLANNING,
                                            TABLE_CAPACITY)
from gameroom.games.eriantys.rules import check_event, influence
from gameroom.games.eriantys.state import GameState, from_snapshot

__all__ = ["candidates", "legal_events", "first_legal", "greedy", "RandomStrategy", "STRATEGIES",
           "make_strategy", "Strategy"]

Strategy = Callable[[dict[str, Any]], dict[str, Any]]


def _colors(counts: list[int]) -> Iterator[int]:
    return (c for c in range(5) if counts[c])


def candidates(s: GameState, seat: int, activations: bool = False) -> Iterator[dict[str, Any]]:
    """Events for the current situation in the canonical order of §9 (only plausible ones:
    colours actually present). ``activations`` appends the character-card activations."""
    if s.pending is not None:
        card = s.card(s.pending)
        if s.pending in (2, 3):
            yield {"eventType": "END_SELECTION"}
        if s.pending == 0:
            for color in _colors(card.students or []):
                for island in range(len(s.islands)):
                    yield {"eventType": "MOVE_STUDENT_FROM_CARD_TO_ISLAND", "color": COLORS[color],
                           "islandIndex": island}
        elif s.pending == 2:
            for a in _colors(card.students or []):
                for b in _colors(s.entrance[seat]):
                    yield {"eventType": "SWAP_STUDENT_CARD_ENTRANCE", "studentFromCard": COLORS[a],
                           "studentFromEntrance": COLORS[b]}
        elif s.pending == 3:
            for a in _colors(s.entrance[seat]):
                for b in _colors(s.dining[seat]):
                    yield {"eventType": "SWAP_STUDENT_ENTRANCE_TABLE", "studentFromEntrance": COLORS[a],
                           "studentFromTable": COLORS[b]}
        elif s.pending in (5, 8):
            for island in range(len(s.islands)):
                yield {"eventType": "CHOOSE_ISLAND", "islandIndex": island}
        elif s.pending == 7:
            for color in _colors(card.students or []):
                yield {"eventType": "MOVE_STUDENT_FROM_CARD_TO_TABLE", "color": COLORS[color]}
        else:
            for color in range(5):
                yield {"eventType": "CHOOSE_COLOR", "color": COLORS[color]}
        return
    if s.phase == PLANNING:
        for value in s.hands[seat]:
            yield {"eventType": "PLAY_ASSISTANT_CARD", "assistantCard": value}
        return
    if s.phase == ACTION_ONE:
        entrance = s.entrance[seat]
        for color in _colors(entrance):
            yield {"eventType": "MOVE_STUDENT_FROM_ENTRANCE_TO_TABLE", "color": COLORS[color]}
        for color in _colors(entrance):
            for island in range(len(s.islands)):
                yield {"eventType": "MOVE_STUDENT_FROM_ENTRANCE_TO_ISLAND", "color": COLORS[color],
                       "islandIndex": island}
    elif s.phase == ACTION_TWO:
        for amount in range(1, s.mother_nature_limit() + 1):
            yield {"eventType": "MOVE_MOTHER_NATURE", "amount": amount}
    elif s.phase == ACTION_THREE:
        for index in range(len(s.clouds)):
            yield {"eventType": "CHOOSE_CLOUD", "cloudIndex": index}
    if activations and s.expert:
        for card in s.cards:
            yield {"eventType": "ACTIVATE_CHARACTER_CARD", "cardId": card.id}


def legal_events(s: GameState, seat: int, activations: bool = False) -> list[dict[str, Any]]:
    return [event for event in candidates(s, seat, activations) if check_event(s, seat, event)[0] is None]


def _first(s: GameState, seat: int) -> dict[str, Any]:
    for event in candidates(s, seat):
        if check_event(s, seat, event)[0] is None:
            return event
    raise RuntimeError("no legal event")   # cannot happen: every situation has one


def first_legal(snapshot: dict[str, Any]) -> dict[str, Any]:
    """§9.1: the first legal candidate in canonical order; never activates a card."""
    s = from_snapshot(snapshot)
    return _first(s, s.current)


def _takes_professor(s: GameState, seat: int, color: int) -> bool:
    owner = s.professors[color]
    if owner == seat:
        return False
    return owner is None or s.dining[owner][color] < s.dining[seat][color] + 1


def greedy(snapshot: dict[str, Any]) -> dict[str, Any]:
    """§9.2: lowest legal assistant; best-scoring student move; Mother Nature towards an
    island the team would conquer; the fullest cloud. Never activates a card."""
    s = from_snapshot(snapshot)
    seat = s.current
    if s.phase == ACTION_ONE and s.pending is None:
        best, best_score = None, -1
        entrance, dining = s.entrance[seat], s.dining[seat]
        for color in _colors(entrance):
            if dining[color] >= TABLE_CAPACITY:
                continue
            if _takes_professor(s, seat, color):
                score = 3
            elif s.expert and s.bank and dining[color] + 1 in (3, 6, 9):
                score = 2
            else:
                score = 1
            if score > best_score:
                best, best_score = color, score
        if best is not None:
            return {"eventType": "MOVE_STUDENT_FROM_ENTRANCE_TO_TABLE", "color": COLORS[best]}
        return _first(s, seat)
    if s.phase == ACTION_TWO and s.pending is None:
        team = s.team(seat)
        count = len(s.islands)
        best_amount, best_score = 1, -1
        for amount in range(1, s.mother_nature_limit() + 1):
            index = (s.mother_nature + amount) % count
            island = s.islands[index]
            if island.team == team:
                score = 1
            elif island.no_entry:
                score = 0
            else:
                power = influence(s, index, modifiers=False)
                top = max(power)
                score = 2 if power[team] == top and power.count(top) == 1 else 0
            if score > best_score:
                best_amount, best_score = amount, score
        return {"eventType": "MOVE_MOTHER_NATURE", "amount": best_amount}
    if s.phase == ACTION_THREE and s.pending is None:
        sizes = [sum(cloud) for cloud in s.clouds]
        return {"eventType": "CHOOSE_CLOUD", "cloudIndex": sizes.index(max(sizes))}
    return _first(s, seat)


class RandomStrategy:
    """Random among the legal events, character activations included (seeded): an event
    type is chosen first, then an event of that type, so that table moves and card uses
    are as likely as island moves."""

    def __init__(self, rng: random.Random, activate: float = 0.5) -> None:
        self.rng = rng
        self.activate = activate

    def __call__(self, snapshot: dict[str, Any]) -> dict[str, Any]:
        s = from_snapshot(snapshot)
        events = legal_events(s, s.current, activations=True)
        by_kind: dict[str, list[dict[str, Any]]] = {}
        for event in events:
            by_kind.setdefault(event["eventType"], []).append(event)
        cards = by_kind.pop("ACTIVATE_CHARACTER_CARD", None)
        if cards and (not by_kind or self.rng.random() < self.activate):
            return self.rng.choice(cards)
        return self.rng.choice(by_kind[self.rng.choice(sorted(by_kind))])


STRATEGIES = ("first-legal", "greedy", "random")


def make_strategy(name: str, rng: random.Random | None = None) -> Strategy:
    if name == "first-legal":
        return first_legal
    if name == "greedy":
        return greedy
    if name == "random":
        return RandomStrategy(rng or random.Random(0))
    raise ValueError(f"unknown strategy {name!r}; choose from {', '.join(STRATEGIES)}")
