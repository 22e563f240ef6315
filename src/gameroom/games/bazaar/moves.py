"""A person's legal answers in Bazaar (the web room's seat for people), as wire values with
labels, checked by the referee's own rules.

The equations come only with ``setup``: :class:`PersonMoves` remembers them for the
turns. A first action is a pebble (when the bank has one), a trade of one exchange or of
two in a row (every legal sequence of length 1 and 2), or no exchange at all (a card is
burned). A purchase is every set of visible cards the wallet pays for one after the
other, in the order that scores most, best first, and buying nothing.
"""

from __future__ import annotations

from itertools import permutations
from typing import Any, Sequence

from gameroom.games.bazaar import codec
from gameroom.games.bazaar.pieces import Bag, Card, Equation
from gameroom.games.bazaar.rules import (WANT_PEBBLE, directed_equations, exchange_problem, purchase_points,
                                        purchase_problem)
from gameroom.games.bazaar.state import TurnState

__all__ = ["PersonMoves", "first_actions", "purchases", "MAX_TRADES"]

MAX_TRADES = 200
"""Sequences of two exchanges are offered while there are at most this many."""

Offer = tuple[str, Any]


class PersonMoves:
    """One person's seat: remembers the equations of ``setup``, offers legal answers."""

    def __init__(self) -> None:
        self.equations: Sequence[Equation] = ()

    def __call__(self, method: str, args: tuple[Any, ...]) -> list[Offer] | None:
        if method == "setup":
            self.equations = tuple(args[0])
            return None
        if method == "request_pebble_or_trades":
            return first_actions(self.equations, args[0])
        if method == "request_cards":
            return purchases(args[0])
        return None

    def check(self, method: str, args: tuple[Any, ...], answer: Any) -> str | None:
        """Why a person's composed answer (decoded) breaks the referee's rules, or None:
        a pebble from an empty bank, an exchange sequence the wallet, bank or equations
        do not allow, a purchase the wallet does not pay in that order."""
        if method == "request_pebble_or_trades":
            turn: TurnState = args[0]
            if answer is WANT_PEBBLE:
                return None if turn.bank else "the bank has no pebble to take"
            return exchange_problem(self.equations, list(answer), turn.active.wallet, turn.bank)
        if method == "request_cards":
            return purchase_problem(args[0], tuple(answer))
        return f"{method} asks no decision"


def _bag(bag: Bag) -> str:
    return " ".join(p.letter for p in bag.items) or "nothing"


def _exchange(e: Equation) -> str:
    return f"{_bag(e.left)} → {_bag(e.right)}"


def first_actions(equations: Sequence[Equation], turn: TurnState) -> list[Offer]:
    """A pebble, every legal trade of one or two exchanges, and trading nothing."""
    wallet, bank = turn.active.wallet, turn.bank
    offered: list[Offer] = []
    if bank:
        offered.append(("take a pebble from the bank", codec.encode_first_action(WANT_PEBBLE)))
    allowed = sorted(directed_equations(equations), key=_exchange)
    singles = [e for e in allowed if exchange_problem(equations, [e], wallet, bank) is None]
    offered += [(f"trade {_exchange(e)} (a card is burned)", codec.encode_first_action((e,))) for e in singles]
    pairs = [(a, b) for a in singles for b in allowed if exchange_problem(equations, [a, b], wallet, bank) is None]
    if len(pairs) <= MAX_TRADES:
        offered += [(f"trade {_exchange(a)}, then {_exchange(b)} (a card is burned)",
                     codec.encode_first_action((a, b))) for a, b in pairs]
    offered.append(("trade nothing (a card is burned)", codec.encode_first_action(())))
    return offered


def _card(card: Card) -> str:
    return f"[{_bag(card.pebbles)}{' ☺' if card.face else ''}]"


def purchases(turn: TurnState) -> list[Offer]:
    """Every affordable set of visible cards in its best order (most points first), then
    buying nothing."""
    wallet = turn.active.wallet
    best: dict[tuple[int, ...], tuple[int, tuple[Card, ...]]] = {}
    visibles = list(turn.visibles)
    for size in range(1, len(visibles) + 1):
        for order in permutations(range(len(visibles)), size):
            cards = tuple(visibles[i] for i in order)
            if purchase_problem(turn, cards) is not None:  # type: ignore[arg-type]  # a TurnState has what the rule reads
                continue
            points = purchase_points(cards, len(wallet))
            key = tuple(sorted(order))
            if key not in best or points > best[key][0]:
                best[key] = (points, cards)
    ranked = sorted(best.values(), key=lambda pc: (-pc[0], len(pc[1])))
    offered: list[Offer] = [(f"buy {' then '.join(_card(c) for c in cards)} for {points} point(s)",
                             codec.encode_purchase(cards)) for points, cards in ranked]
    offered.append(("buy nothing", codec.encode_purchase(())))
    return offered
