"""Goofspiel: every player holds the cards 1..N; the prize cards 1..N are shuffled face
down. Each round the next prize is turned up and every player bids one card of their
hand at once, sealed; the bids are revealed together and the one highest bid that no
other player matched takes the prize (a tie for the highest discards it). Bid cards are
spent. After N rounds the most prize points win. The order of the prizes still face
down is the game's secret: no player and no spectator sees it. Pure: no I/O, no threads,
no clocks; every random choice takes a seed."""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from html import escape
from typing import Any, Sequence

from gameroom.core.context import NO_CONTEXT, MatchContext
from gameroom.core.limits import Limits
from gameroom.core.match import FAILED, Match, Seat, ranking_by_score
from gameroom.core.options import Option
from gameroom.core.protocol import Codec, Method, WireProtocol, void_method
from gameroom.core.record import MatchResult
from gameroom.core.wire import WireError, describe, expect_bool, expect_object

CARDS = 13
LIMITS = Limits(call=2.0, signup_first_byte=2.0, signup_complete=2.0)
CARDS_OPTION = Option("cards", int, CARDS, "cards in every hand and in the prize deck, 3..13", low=3, high=13)


@dataclass(frozen=True)
class Goofspiel:
    """The referee's state: the players, each one's hand and prize points, the prizes
    still face down (in the order they will be turned up: the secret), the prize up and
    the last round's revealed bids (None for a seat that did not bid)."""

    names: tuple[str, ...]
    hands: tuple[tuple[int, ...], ...]
    points: tuple[int, ...]
    deck: tuple[int, ...]
    prize: int | None = None
    bids: tuple[int | None, ...] | None = None


def deal(seed: int, names: Sequence[str], cards: int = CARDS) -> Goofspiel:
    """Every hand 1..cards; the prizes 1..cards shuffled by ``seed``."""
    deck = list(range(1, cards + 1))
    random.Random(seed).shuffle(deck)
    return Goofspiel(tuple(names), (tuple(range(1, cards + 1)),) * len(names), (0,) * len(names), tuple(deck))


def round_winner(bids: Sequence[int | None]) -> int | None:
    """The seat whose bid is the highest and matched by no other, or None."""
    made = [bid for bid in bids if bid is not None]
    if not made:
        return None
    best = max(made)
    return bids.index(best) if made.count(best) == 1 else None


# -- JSON: the wire's values and the state -------------------------------------------------

def _card(value: Any, where: str = "$") -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= CARDS:
        raise WireError(f"expected a card 1..{CARDS}, got {describe(value)}", where)
    return value


def _cards(value: Any, where: str = "$") -> tuple[int, ...]:
    if not isinstance(value, list):
        raise WireError(f"expected a list of cards, got {describe(value)}", where)
    return tuple(_card(card, f"{where}[{i}]") for i, card in enumerate(value))


def _bids(value: Any, where: str = "$") -> tuple[int | None, ...]:
    if not isinstance(value, list):
        raise WireError(f"expected a list of bids, got {describe(value)}", where)
    return tuple(None if bid is None else _card(bid, f"{where}[{i}]") for i, bid in enumerate(value))


def encode_state(state: Goofspiel) -> dict[str, Any]:
    return {"players": list(state.names), "hands": [list(hand) for hand in state.hands],
            "points": list(state.points), "deck": list(state.deck), "prize": state.prize,
            "bids": None if state.bids is None else list(state.bids)}


def decode_state(value: Any, where: str = "$") -> Goofspiel:
    value = expect_object(value, ("players", "hands", "points", "deck", "prize", "bids"), where)
    names = value["players"]
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise WireError(f"expected a list of names, got {describe(names)}", f"{where}.players")
    hands, points = value["hands"], value["points"]
    if not isinstance(hands, list) or len(hands) != len(names):
        raise WireError(f"expected {len(names)} hands, got {describe(hands)}", f"{where}.hands")
    if not isinstance(points, list) or len(points) != len(names) or not all(
            isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in points):
        raise WireError(f"expected {len(names)} scores, got {describe(points)}", f"{where}.points")
    return Goofspiel(tuple(names), tuple(_cards(h, f"{where}.hands[{i}]") for i, h in enumerate(hands)),
                     tuple(points), _cards(value["deck"], f"{where}.deck"),
                     None if value["prize"] is None else _card(value["prize"], f"{where}.prize"),
                     None if value["bids"] is None else _bids(value["bids"], f"{where}.bids"))


CARD = Codec(lambda card: card, _card, "Card")
HAND = Codec(list, _cards, "Hand")
BIDS = Codec(list, _bids, "Bids")
WON = Codec(lambda won: won, expect_bool, "Boolean")
STATE = Codec(encode_state, decode_state, "Goofspiel")

# The player interface: ["bid", [prize, hand]] -> a card of the hand, asked of every seat
# at once; ["reveal", [bids]] -> "void" (every seat's bid, in seat order); ["win", [won]].
PROTOCOL = WireProtocol("goofspiel", (Method("bid", "bid", (CARD, HAND), CARD, check=CARD.decode),
                                      void_method("reveal", "reveal", BIDS),
                                      void_method("win", "win", WON, final=True)))


# -- players ---------------------------------------------------------------------------------

class Player:
    """A built-in player: ``match`` bids the card nearest the prize, ``random`` any card
    of its hand (seeded); ``cheat`` bids a card it no longer holds."""

    def __init__(self, strategy: str, seed: int) -> None:
        self.strategy = strategy
        self.rng = random.Random(seed)

    def bid(self, prize: int, hand: list[int]) -> int:
        if self.strategy == "cheat":   # a card it does not hold (0, which no hand holds, when it holds all)
            return next((card for card in range(1, CARDS + 1) if card not in hand), 0)
        if self.strategy == "match":
            return min(hand, key=lambda card: (abs(card - prize), card))
        return self.rng.choice(hand)

    def reveal(self, bids: list[int | None]) -> None:
        return None

    def win(self, won: bool) -> None:
        return None


STRATEGIES = ("match", "random")


# -- the referee: simultaneous rounds through the core ---------------------------------------

def bid_problem(hand: Sequence[int], card: int) -> str | None:
    return None if card in hand else f"bid {card}, which is not in its hand {list(hand)}"


def play(seed: int, seats: Sequence[Seat], context: MatchContext = NO_CONTEXT, *, cards: int = CARDS) -> MatchResult:
    """A game dealt from ``seed`` between ``seats``: each round ``Match.decide_all`` asks
    every live seat for its bid at once, sealed; a seat whose bid fails or is not in its
    hand is ejected and the round goes on without it."""
    state = deal(seed, [seat.name for seat in seats], cards)
    match = Match(PROTOCOL, seats, context, limits=LIMITS, state_codec=STATE)
    match.state(state, "the deal")
    while state.deck and any(seat.active for seat in seats):
        prize, hands = state.deck[0], state.hands
        asks = [(seat, (prize, list(hands[i]))) for i, seat in enumerate(seats) if seat.active]
        replies = match.decide_all("bid", asks, legal=lambda seat, card, hands=hands: bid_problem(
            hands[seats.index(seat)], card))
        bids: list[int | None] = [None] * len(seats)
        for (seat, _args), card in zip(asks, replies):
            if card is not FAILED:
                bids[seats.index(seat)] = card
        taker = round_winner(bids)
        state = replace(state, deck=state.deck[1:], prize=prize, bids=tuple(bids),
                        hands=tuple(tuple(c for c in hand if c != bids[i]) for i, hand in enumerate(hands)),
                        points=tuple(p + prize * (i == taker) for i, p in enumerate(state.points)))
        caption = (f"{seats[taker].name} takes the {prize}" if taker is not None else f"nobody takes the {prize}")
        match.state(state, f"{caption}; bids {', '.join('-' if b is None else str(b) for b in bids)}",
                    prize=prize, taker=None if taker is None else seats[taker].name)
        for seat in seats:
            if seat.active:
                match.call(seat, "reveal", list(bids))
    scores = {i: state.points[i] for i, seat in enumerate(seats) if seat.active}
    ranking = ranking_by_score(scores)
    winners = ranking[0] if ranking else []
    match.announce("win", [seats[i] for i in winners], [s for i, s in enumerate(seats) if i not in winners and s.active])
    return match.result([i for i in winners if seats[i].active], ranking=ranking, scores=dict(enumerate(state.points)))


# -- what a seat sees, and the picture ---------------------------------------------------------

def view(state: Goofspiel, _name: str | None = None) -> dict[str, Any]:
    """Everything but the order of the prizes face down (their set is public)."""
    public = encode_state(state)
    public["deck"] = sorted(state.deck)
    return public


def conceal(state: Goofspiel, _name: str | None) -> Goofspiel:
    """The state as anyone may see it: the prizes face down in no telling order."""
    return replace(state, deck=tuple(sorted(state.deck)))


def vary_secret(state: Goofspiel, _name: str, rng: random.Random) -> Goofspiel:
    deck = list(state.deck)
    rng.shuffle(deck)
    return replace(state, deck=tuple(deck))


def moves(method: str, args: tuple[Any, ...]) -> list[tuple[str, Any]] | None:
    return [(f"bid {card}", card) for card in args[1]] if method == "bid" else None


def render(state: Goofspiel, caption: str) -> str:
    rows = [f'<text x="10" y="{40 + 20 * i}">{escape(name)}: {state.points[i]} points, hand '
            f'{" ".join(map(str, state.hands[i]))}</text>' for i, name in enumerate(state.names)]
    deck = " ".join(map(str, state.deck))
    height = 80 + 20 * len(state.names)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="480" height="{height}"><title>{escape(caption)}</title>'
            f'<text x="10" y="20">{escape(caption)}</text>{"".join(rows)}'
            f'<text x="10" y="{height - 12}">deck: {deck}</text></svg>')


def text(state: Goofspiel) -> str:
    lines = [f"{name}: {state.points[i]} points, hand {list(state.hands[i])}" for i, name in enumerate(state.names)]
    return "\n".join([*lines, f"deck: {list(state.deck)}"])
