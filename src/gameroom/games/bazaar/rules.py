"""Bazaar's rules as pure functions of states (spec §3, §4).

A turn, as the referee plays it (§3.3.1)::

    problem = first_action_problem(state, action)      # None, or why the player is kicked
    state = kick(state) if problem else apply_first_action(state, action)
    if not game_over(state):
        problem = purchase_problem(state, cards)
        state = kick(state) if problem else finish_turn(state, cards)

The first action is :data:`WANT_PEBBLE` (``False``, a pebble request) or a sequence of
directed equations (exchanges; even an empty one burns a card). The second is a sequence
of cards to buy. The ``*_problem`` functions are the referee's kick conditions: they
return a message naming the violation, or ``None`` when the action is legal; the
``apply_*`` functions raise :class:`IllegalAction` with that message.

List conventions follow §3.12 exactly (bags keep the reference's order), so a state
encoded after every step matches the reference's JSON byte for byte.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Final, Iterable, Literal, Sequence, Union

from gameroom.core.errors import IllegalAction
from gameroom.games.bazaar.pieces import (
    COLOURS, MAX_PLAYERS, MAX_VISIBLE, WINNING_SCORE, Bag, Card, Equation, Pebble, covers, points,
)
from gameroom.games.bazaar.state import GameState, PlayerRecord

WANT_PEBBLE: Final = False
"""The first action "give me a random pebble" (``false`` on the wire)."""

FirstAction = Union[Literal[False], Sequence[Equation]]
"""A first action: :data:`WANT_PEBBLE` or a sequence of directed equations."""


class Bonus(Enum):
    """The optional end-of-game bonus (§3.10)."""

    RWB = "RWB"
    """+10 when the player's cards show red, white and blue."""
    SEY = "SEY"
    """+50 when the player's cards show all five colours."""

    @property
    def points(self) -> int:
        return 10 if self is Bonus.RWB else 50

    @property
    def colours(self) -> frozenset[Pebble]:
        if self is Bonus.RWB:
            return frozenset((Pebble.RED, Pebble.WHITE, Pebble.BLUE))
        return frozenset(COLOURS)


# --- small steps ---------------------------------------------------------------------------


def _with_active(state: GameState, active: PlayerRecord, *, bank: Bag | None = None,
                 visibles: tuple[Card, ...] | None = None,
                 hidden: tuple[Card, ...] | None = None) -> GameState:
    return GameState(state.bank if bank is None else bank,
                     state.visibles if visibles is None else visibles,
                     state.hidden if hidden is None else hidden,
                     (active,) + state.players[1:], state.equations)


def rotate(state: GameState) -> GameState:
    """The active record moves to the end of the turn order."""
    players = state.players[1:] + state.players[:1]
    return GameState(state.bank, state.visibles, state.hidden, players, state.equations)


def kick(state: GameState) -> GameState:
    """The active record is removed; its wallet and cards leave the game (§4)."""
    return GameState(state.bank, state.visibles, state.hidden, state.players[1:], state.equations)


def drawn_pebble(bank: Bag) -> Pebble | None:
    """The pebble a pebble request yields: the first colour in colour order present in
    the bank (§3.4); ``None`` when the bank is empty."""
    for pebble in COLOURS:
        if bank.count(pebble):
            return pebble
    return None


def burn_card(state: GameState) -> GameState:
    """The card charged for an exchange request: the bottom (last) hidden card, or - with an
    empty pile - all visible cards (§3.5)."""
    if state.hidden:
        return GameState(state.bank, state.visibles, state.hidden[:-1], state.players, state.equations)
    return GameState(state.bank, (), state.hidden, state.players, state.equations)


def replenish(visibles: tuple[Card, ...], hidden: tuple[Card, ...]) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    """Refill the visible row from the top of the pile, up to 4 cards (§3.6)."""
    n = min(MAX_VISIBLE - len(visibles), len(hidden))
    if n <= 0:
        return visibles, hidden
    return visibles + hidden[:n], hidden[n:]


# --- first action --------------------------------------------------------------------------


def directed_equations(equations: Iterable[Equation]) -> frozenset[Equation]:
    """The exchanges a table allows: its equations and their flips."""
    allowed: set[Equation] = set()
    for eq in equations:
        allowed.add(eq)
        allowed.add(eq.flipped())
    return frozenset(allowed)


def exchange_problem(equations: Iterable[Equation], exchanges: Sequence[Equation],
                     wallet: Bag, bank: Bag) -> str | None:
    """Why the exchange request is illegal (§3.5), or ``None``."""
    allowed = directed_equations(equations)
    w, b = wallet.counts_key, bank.counts_key
    for i, ex in enumerate(exchanges):
        if not isinstance(ex, Equation):
            return f"exchange {i} is not an equation"
        if ex not in allowed:
            return f"exchange {i} is neither an equation of the table nor the flip of one"
        left, right = ex.left.counts_key, ex.right.counts_key
        if not covers(w, left):
            return f"exchange {i}: the wallet cannot pay its left side"
        if not covers(b, right):
            return f"exchange {i}: the bank cannot pay its right side"
        w, b = w - left + right, b - right + left
    return None


def apply_exchanges(equations: Iterable[Equation], exchanges: Sequence[Equation],
                    wallet: Bag, bank: Bag) -> tuple[Bag, Bag] | None:
    """The wallet and bank after the exchanges, left to right, or ``None`` when the request
    is illegal (§3.5). No card is charged here."""
    if exchange_problem(equations, exchanges, wallet, bank) is not None:
        return None
    for ex in exchanges:
        wallet = (wallet - ex.left) + ex.right
        bank = (bank - ex.right) + ex.left
    return wallet, bank


def first_action_problem(state: GameState, action: Any) -> str | None:
    """The referee's kick condition for a first action (§3.4, §3.5, §4): ``None`` when
    ``action`` is a legal pebble request or exchange request for the active player."""
    if action is False:
        return "requested a pebble from an empty bank" if not state.bank else None
    if not isinstance(action, (list, tuple)):
        return "the first action is neither a pebble request nor a list of exchanges"
    return exchange_problem(state.equations, action, state.active.wallet, state.bank)


def request_pebble(state: GameState) -> GameState:
    """The active player draws the pebble :func:`drawn_pebble` names (no card is burned)."""
    pebble = drawn_pebble(state.bank)
    if pebble is None:
        raise IllegalAction("requested a pebble from an empty bank")
    active = state.active
    active = PlayerRecord(active.wallet.add(pebble), active.score, active.cards, active.name)
    return _with_active(state, active, bank=state.bank.remove(pebble))


def trade(state: GameState, exchanges: Sequence[Equation]) -> GameState:
    """The active player's exchanges take effect, then one card is burned (§3.5)."""
    active = state.active
    moved = apply_exchanges(state.equations, exchanges, active.wallet, state.bank)
    if moved is None:
        raise IllegalAction(exchange_problem(state.equations, exchanges, active.wallet, state.bank)
                            or "illegal exchanges")
    wallet, bank = moved
    active = PlayerRecord(wallet, active.score, active.cards, active.name)
    return burn_card(_with_active(state, active, bank=bank))


def apply_first_action(state: GameState, action: FirstAction) -> GameState:
    """The state after a legal first action; :class:`IllegalAction` otherwise."""
    problem = first_action_problem(state, action)
    if problem is not None:
        raise IllegalAction(problem)
    if action is False:
        return request_pebble(state)
    return trade(state, action)


# --- second action: buying cards ----------------------------------------------------------


def purchase_problem(state: GameState, cards: Any, *, check_visible: bool = True) -> str | None:
    """The referee's kick condition for a purchase request (§3.6, §4), or ``None``.

    With ``check_visible`` (the written rule, our default) a card must also be among the
    visible cards still unbought at that point; without it the reference's ineffective
    visibility check is reproduced (§11 item 1): any affordable card may be bought.
    """
    if not isinstance(cards, (list, tuple)):
        return "the purchase is not a list of cards"
    wallet = state.active.wallet.counts_key
    visibles = list(state.visibles)
    for i, card in enumerate(cards):
        if not isinstance(card, Card):
            return f"purchase item {i} is not a card"
        pay = card.pebbles.counts_key
        if not covers(wallet, pay):
            return f"card {i} of the purchase: the wallet cannot pay for it"
        wallet -= pay
        if card in visibles:
            visibles.remove(card)
        elif check_visible:
            return f"card {i} of the purchase is not visible"
    return None


def buy(state: GameState, cards: Sequence[Card], *, check_visible: bool = True) -> GameState:
    """The active player buys ``cards`` in order: pays, scores each card against its wallet
    size right after paying, the visible row loses the cards and is replenished (§3.6).
    The turn order is unchanged (see :func:`finish_turn`)."""
    problem = purchase_problem(state, cards, check_visible=check_visible)
    if problem is not None:
        raise IllegalAction(problem)
    active = state.active
    wallet, bank = active.wallet, state.bank
    visibles = list(state.visibles)
    delta = 0
    for card in cards:
        wallet = wallet - card.pebbles
        bank = bank + card.pebbles
        delta += points(card.face, len(wallet))
        if card in visibles:
            visibles.remove(card)
    shown, hidden = replenish(tuple(visibles), state.hidden)
    active = PlayerRecord(wallet, active.score + delta, tuple(cards) + active.cards, active.name)
    return _with_active(state, active, bank=bank, visibles=shown, hidden=hidden)


def purchase_points(cards: Sequence[Card], wallet_size: int) -> int:
    """Points for buying ``cards`` in order from a wallet of ``wallet_size`` pebbles."""
    total = 0
    for card in cards:
        wallet_size -= len(card.pebbles)
        total += points(card.face, wallet_size)
    return total


def finish_turn(state: GameState, cards: Sequence[Card], *, check_visible: bool = True) -> GameState:
    """The purchase takes effect, then the active player moves to the end of the order."""
    return rotate(buy(state, cards, check_visible=check_visible))


# --- end of game ---------------------------------------------------------------------------


def can_buy_any(wallet: Bag, cards: Iterable[Card]) -> bool:
    """Can ``wallet`` pay for at least one of ``cards``?"""
    w = wallet.counts_key
    return any(covers(w, c.pebbles.counts_key) for c in cards)


def end_reason(state: GameState) -> str | None:
    """Why the game is over (§3.9), or ``None`` while it goes on."""
    if not state.players:
        return "no players remain"
    if any(p.score >= WINNING_SCORE for p in state.players):
        return f"a player has {WINNING_SCORE} or more points"
    if not state.visibles and not state.hidden:
        return "no cards remain"
    if not state.bank:
        remaining = state.visibles + state.hidden
        if not any(can_buy_any(p.wallet, remaining) for p in state.players):
            return "the bank is empty and no player can buy a card"
    return None


def game_over(state: GameState) -> bool:
    """Is the game over (§3.9)?"""
    return end_reason(state) is not None


def bonus_points(bonus: Bonus | None, cards: Iterable[Card]) -> int:
    """The bonus a player with ``cards`` earns: the colours shown on all its cards together
    must include the bonus's colours (§3.10)."""
    if bonus is None:
        return 0
    shown: set[Pebble] = set()
    for card in cards:
        shown.update(card.pebbles)
    return bonus.points if bonus.colours <= shown else 0


def apply_bonus(state: GameState, bonus: Bonus | None) -> GameState:
    """Every remaining record's score plus its bonus (step 3 of §3.3)."""
    if bonus is None:
        return state
    players = tuple(PlayerRecord(p.wallet, p.score + bonus_points(bonus, p.cards), p.cards, p.name)
                    for p in state.players)
    return GameState(state.bank, state.visibles, state.hidden, players, state.equations)


def rank(state: GameState) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Names of the winners (all records of maximal score) and of the losers, in turn
    order; both empty when no players remain (step 4 of §3.3)."""
    if not state.players:
        return (), ()
    top = max(p.score for p in state.players)
    winners = tuple(p.name for p in state.players if p.score == top)
    losers = tuple(p.name for p in state.players if p.score != top)
    return winners, losers


def result(winners: Iterable[str], drop_outs: Iterable[str]) -> tuple[list[str], list[str]]:
    """The Result: winners that acknowledged ``win(true)`` and all drop-outs, each sorted
    by plain string order (§3.11)."""
    return sorted(winners), sorted(drop_outs)


def setup_problems(state: GameState, names: Sequence[str]) -> list[str]:
    """Why the referee refuses to run ``state`` with players named ``names`` (§3.2):
    record and player counts differ, more than 6 players, or names repeat."""
    problems = []
    if len(names) != len(state.players):
        problems.append(f"{len(names)} players for {len(state.players)} player records")
    if len(names) > MAX_PLAYERS:
        problems.append(f"{len(names)} players; at most {MAX_PLAYERS} allowed")
    if len(set(names)) != len(names):
        problems.append("player names are not distinct")
    return problems


__all__ = [
    "WANT_PEBBLE", "FirstAction", "IllegalAction", "Bonus", "rotate", "kick", "drawn_pebble",
    "burn_card", "replenish", "directed_equations", "exchange_problem", "apply_exchanges",
    "first_action_problem", "request_pebble", "trade", "apply_first_action", "purchase_problem",
    "buy", "purchase_points", "finish_turn", "can_buy_any", "end_reason", "game_over",
    "bonus_points", "apply_bonus", "rank", "result", "setup_problems",
]
