"""Bazaar for learning agents: the encoding behind ``gameroom.rl`` (``core.learning``).

Options: ``players`` (2-6, default 2) and ``bonus`` (``none``, ``RWB`` or ``SEY``, the
end-of-game bonus of §3.10; default ``none``). The game is the descriptor's: a game from
scratch dealt from the seed (ten random equations, all cards, the standard bank), played
by Bazaar's own referee.

**Actions** (27): 0 ``pebble`` (ask for a pebble); 1-20 the exchanges, ``1 + 2e`` the
table's equation e (in the order ``setup`` gave them) left to right and ``2 + 2e`` right to
left; 21 ``end exchanges``; 22-25 buy visible card 0-3 (the row as the purchase began); 26
``end purchases``. A turn's first call (``request-pebble-or-trades``) is ``pebble``, or
exchanges one by one then ``end exchanges`` (none at all is a legal way to skip to buying,
at the price of a card); its second (``request-cards``) is cards one by one then ``end
purchases``. Legal: the pebble while the bank has one and no exchange was made; an
exchange whose left side the wallet holds and whose right side the bank holds, as the
earlier exchanges of the turn left them; a visible card not yet bought that the wallet
(after the earlier cards) pays for. A refused choice goes to the referee as the request
it makes (the exchanges or cards with it); one the answer cannot say (an exchange when
buying, a 2nd equal card, an equation the table does not have) fails the call.

**Observation** (a vector): bank, wallet (as the turn's choices left it) — five colour
counts each, / 20; the four visible cards (five counts / 5, face, bought this turn); one's
own score and the others' in turn order (zero for empty seats), / 20; the ten equations
(left and right counts / 4, present); the colours on one's own cards (for the bonus);
buying (vs. exchanging); exchanged this turn. Only the TurnState and the equations the
referee sends this seat: no other wallet.

**Rewards** at the end: ``core.learning.rank_rewards`` of the referee's ranking by final
score, bonus included (an ejected seat ranks last, -1).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from gameroom.core.context import MatchContext
from gameroom.core.learning import (
    ForbiddenAction,
    Learning,
    LearningTable,
    Option,
    integer,
    one_of,
    rank_rewards,
)
from gameroom.core.record import MatchResult
from gameroom.games.bazaar.pieces import (
    MAX_EQUATIONS,
    MAX_VISIBLE,
    Card,
    Equation,
    covers,
    unpack,
)
from gameroom.games.bazaar.referee import run_game
from gameroom.games.bazaar.rules import WANT_PEBBLE, Bonus
from gameroom.games.bazaar.state import GameState, TurnState, scratch_state
from gameroom.games.bazaar.strategies import Policy

__all__ = ["LEARNING"]

PEBBLE = 0
END_EXCHANGES = 1 + 2 * MAX_EQUATIONS
BUY = END_EXCHANGES + 1
END_PURCHASES = BUY + MAX_VISIBLE
COUNT_SCALE = 20.0


class _Turn:
    """One call: exchanges (or the pebble), or purchases."""

    __slots__ = ("bank", "bought", "buying", "coder", "done", "exchanged", "turn", "wallet")

    def __init__(self, coder: _Coder, turn: TurnState, buying: bool) -> None:
        self.coder = coder
        self.turn = turn
        self.buying = buying
        self.wallet = turn.active.wallet.counts_key
        self.bank = turn.bank.counts_key
        self.exchanged: list[Equation] = []
        self.bought: list[int] = []
        self.done: Any = None

    def observation(self) -> list[float]:
        return self.coder.encode(self)

    def legal(self) -> list[int]:
        wallet, bank = self.wallet, self.bank
        if self.buying:
            out = [BUY + i for i, card in enumerate(self.turn.visibles[:MAX_VISIBLE])
                   if i not in self.bought and covers(wallet, card.pebbles.counts_key)]
            out.append(END_PURCHASES)
            return out
        out = [PEBBLE] if self.turn.bank and not self.exchanged else []
        for action, exchange in enumerate(self.coder.exchanges, 1):
            if covers(wallet, exchange.left.counts_key) and covers(bank, exchange.right.counts_key):
                out.append(action)
        out.append(END_EXCHANGES)
        return out

    def choose(self, action: int) -> bool:
        if action == PEBBLE:
            self.done = WANT_PEBBLE
            return True
        if action in (END_EXCHANGES, END_PURCHASES):
            self.done = tuple(self.exchanged) if action == END_EXCHANGES else self._cards()
            return True
        if action < END_EXCHANGES:
            exchange = self.coder.exchanges[action - 1]
            left, right = exchange.left.counts_key, exchange.right.counts_key
            self.wallet, self.bank = self.wallet - left + right, self.bank - right + left
            self.exchanged.append(exchange)
            return False
        card = self.turn.visibles[action - BUY]
        self.wallet -= card.pebbles.counts_key
        self.bought.append(action - BUY)
        return False

    def _cards(self) -> tuple[Card, ...]:
        return tuple(self.turn.visibles[i] for i in self.bought)

    def answer(self) -> Any:
        return self.done

    def refuse(self, action: int) -> Any:
        if self.buying:
            if not BUY <= action < END_PURCHASES:
                raise ForbiddenAction(f"{_label(action)} while buying cards")
            slot = action - BUY
            if slot >= len(self.turn.visibles):
                raise ForbiddenAction(f"there is no visible card {slot}")
            card = self.turn.visibles[slot]
            if slot in self.bought and any(self.turn.visibles[i] == card for i in range(len(self.turn.visibles))
                                           if i not in self.bought):
                raise ForbiddenAction(f"visible card {slot} is already bought this turn")
            return self._cards() + (card,)
        if action >= BUY:
            raise ForbiddenAction(f"{_label(action)} while exchanging")
        if action == PEBBLE:
            if self.exchanged:
                raise ForbiddenAction("a pebble after exchanges")
            return WANT_PEBBLE                       # the bank is empty: the referee refuses
        if action - 1 >= len(self.coder.exchanges):
            raise ForbiddenAction(f"the table has no equation {(action - 1) // 2}")
        return tuple(self.exchanged) + (self.coder.exchanges[action - 1],)


class _Coder:
    """One seat: the equations of ``setup``, then a turn per request."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.exchanges: list[Equation] = []
        self.equations: list[float] = [0.0] * (11 * MAX_EQUATIONS)

    def turn(self, method: str, args: tuple[Any, ...]) -> _Turn | None:
        if method == "setup":
            equations = list(args[0])[:MAX_EQUATIONS]
            self.exchanges = [e for eq in equations for e in (eq, eq.flipped())]
            values = [0.0] * (11 * MAX_EQUATIONS)
            for i, eq in enumerate(equations):
                values[i * 11:i * 11 + 5] = [n / 4 for n in eq.left.counts()]
                values[i * 11 + 5:i * 11 + 10] = [n / 4 for n in eq.right.counts()]
                values[i * 11 + 10] = 1.0
            self.equations = values
        elif method == "request_pebble_or_trades":
            if len(args[0].scores) + 1 > self.players:
                raise ValueError(f"this encoding is for {self.players} players, the game has {len(args[0].scores) + 1}")
            return _Turn(self, args[0], buying=False)
        elif method == "request_cards":
            return _Turn(self, args[0], buying=True)
        return None

    def encode(self, turn: _Turn) -> list[float]:
        state = turn.turn
        values = [n / COUNT_SCALE for n in unpack(turn.bank)]
        values += [n / COUNT_SCALE for n in unpack(turn.wallet)]
        for i in range(MAX_VISIBLE):
            if i < len(state.visibles):
                card = state.visibles[i]
                values += [n / 5 for n in card.pebbles.counts()]
                values += [1.0 if card.face else 0.0, 1.0 if i in turn.bought else 0.0]
            else:
                values += [0.0] * 7
        scores = [state.active.score, *state.scores][:self.players]
        values += [s / COUNT_SCALE for s in scores] + [0.0] * (self.players - len(scores))
        values += self.equations
        colours: set[Any] = set()
        for card in state.active.cards:
            colours |= card.pebbles.colours()
        values += [1.0 if c in colours else 0.0 for c in range(5)]
        values += [1.0 if turn.buying else 0.0, 1.0 if turn.exchanged else 0.0]
        return values


def _label(action: int) -> str:
    if action == PEBBLE:
        return "pebble"
    if action < END_EXCHANGES:
        e, back = divmod(action - 1, 2)
        return f"exchange equation {e} {'right to left' if back else 'left to right'}"
    if action == END_EXCHANGES:
        return "end exchanges"
    if action < END_PURCHASES:
        return f"buy visible card {action - BUY}"
    return "end purchases"


def _text(state: GameState) -> str:
    """Bank, visible cards, hidden pile and each player's wallet, score and cards."""
    lines = [f"bank: {state.bank.letters() or '-'}",
             "visible: " + "  ".join(c.pebbles.letters() + ("*" if c.face else "") for c in state.visibles),
             f"hidden: {len(state.hidden)} cards"]
    lines += [f"{p.name}: score {p.score}, wallet {p.wallet.letters() or '-'}, {len(p.cards)} cards"
              for p in state.players]
    return "\n".join(lines)


def _make(players: int, bonus: str) -> LearningTable:
    size = 10 + 7 * MAX_VISIBLE + players + 11 * MAX_EQUATIONS + 5 + 2
    names = [f"P{i}" for i in range(players)]
    end_bonus = None if bonus == "none" else Bonus[bonus]

    def deal(seed: int, seat_names: Sequence[str]) -> GameState:
        return scratch_state(random.Random(seed), list(seat_names) or names)

    def play(seed: int, seats: Sequence[Any], observers: Sequence[Any]) -> MatchResult:
        return run_game(seats, deal(seed, ()), MatchContext(observers=observers), bonus=end_bonus)

    def rewards(result: MatchResult, seat_names: Sequence[str]) -> list[float]:
        return rank_rewards(len(seat_names), result.ranking_seats, result.misbehaved_seats)

    high = [100 / COUNT_SCALE] * 10 + [1.0] * (7 * MAX_VISIBLE) + [1000 / COUNT_SCALE] * players
    high += [1.0] * (size - len(high))
    return LearningTable(
        game="bazaar", options={"players": players, "bonus": bonus}, players=players,
        actions=tuple(_label(a) for a in range(END_PURCHASES + 1)), shape=(size,), low=[0.0] * size, high=high,
        play=play, coder=lambda: _Coder(players), rewards=rewards, text=_text, deal=deal,
        strategies=tuple(p.value for p in Policy))


LEARNING = Learning(
    options={
        "players": Option(2, integer(2, 6, "players"), "players at the table"),
        "bonus": Option("none", one_of(("none", "RWB", "SEY"), "bonus"), "the end-of-game bonus: none, RWB (+10) or SEY (+50)"),
    },
    make=_make,
    doc=__doc__ or "",
)
