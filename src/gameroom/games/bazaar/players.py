"""The reference player ("mechanism", spec §9.1) and its misbehaving variants (§9.7-§9.9).

A player implements the logical interface of §5: ``name()``, ``setup(equations)``,
``request_pebble_or_trades(turn)``, ``request_cards(turn)`` and ``win(won)``. The
reference player remembers the purchase it planned with its exchanges and uses it in
``request_cards``. :func:`make_player` builds the player an :class:`ActorSpec` describes:

* exception actors raise :class:`~gameroom.core.misbehaviour.PlayerMisbehaved` in their
  method, after computing the normal answer;
* cheaters compute the normal answer, then the cheat (:func:`cheat`), and return the cheat
  when it applies;
* looping actors compute the normal answer and then call ``hang`` from the Count-th call of
  their method on. The default, :func:`gameroom.core.misbehaviour.hang`, blocks its thread
  for good without burning CPU, so such a player must be called through a timed caller
  (the referee's time limit is what catches it).
"""

from __future__ import annotations

from typing import Any, Callable, Protocol, Sequence

from gameroom.core.misbehaviour import PlayerMisbehaved, hang, misbehaves_through
from gameroom.games.bazaar.actors import ActorSpec, Cheat, Method
from gameroom.games.bazaar.protocol import PROTOCOL
from gameroom.games.bazaar.pieces import ALL_CARDS, COLOURS, Bag, Card, Equation
from gameroom.games.bazaar.rules import WANT_PEBBLE, FirstAction
from gameroom.games.bazaar.state import TurnState
from gameroom.games.bazaar.strategies import Policy, buy_cards, trade_then_purchase, wants_pebble


class BazaarPlayer(Protocol):
    """The player interface the referee calls (§5)."""

    def name(self) -> str: ...

    def setup(self, equations: Sequence[Equation]) -> None: ...

    def request_pebble_or_trades(self, turn: TurnState) -> FirstAction: ...

    def request_cards(self, turn: TurnState) -> Sequence[Card]: ...

    def win(self, won: bool) -> None: ...


class ReferencePlayer:
    """The reference's deterministic player with one of the two purchase policies."""

    def __init__(self, name: str, policy: Policy = Policy.PURCHASE_POINTS) -> None:
        self._name = name
        self.policy = policy
        self.equations: tuple[Equation, ...] = ()
        self.plan: tuple[Card, ...] | None = None

    def name(self) -> str:
        return self._name

    def setup(self, equations: Sequence[Equation]) -> None:
        self.plan = None
        self.equations = tuple(equations)

    def request_pebble_or_trades(self, turn: TurnState) -> FirstAction:
        wallet, bank = turn.active.wallet, turn.bank
        if wants_pebble(self.equations, wallet, bank):
            return WANT_PEBBLE
        plan = trade_then_purchase(self.equations, turn.visibles, wallet, bank, self.policy)
        self.plan = plan.purchase.cards
        return list(plan.trades)

    def request_cards(self, turn: TurnState) -> Sequence[Card]:
        cards = self.plan
        if cards is None:
            cards = buy_cards(turn.visibles, turn.active.wallet, self.policy).cards
        self.plan = None
        return list(cards)

    def win(self, won: bool) -> None:
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._name!r}, {self.policy.value!r})"


class PatientPlayer(ReferencePlayer):
    """A built-in player that plays to win; not one of the spec's players.

    The reference player (§9.2) asks for a pebble only while no equation is *useful*; once
    one is, it searches exchanges and, when none leads to a purchase, answers with no
    exchange at all, which burns a visible card (§3.5). In a game of reference players
    that happens every turn after the first pebbles, the cards run out and everybody ends
    with 0 points. This player makes exchanges only when they lead to a purchase;
    otherwise it asks for a pebble (free, and it may still buy afterwards), so it burns a
    card only when the bank is empty. Its purchases follow its policy as the reference's do.
    """

    def request_pebble_or_trades(self, turn: TurnState) -> FirstAction:
        wallet, bank = turn.active.wallet, turn.bank
        plan = trade_then_purchase(self.equations, turn.visibles, wallet, bank, self.policy)
        if bank and not (plan.trades and plan.purchase.cards):
            self.plan = None   # buy from the turn state after the pebble
            return WANT_PEBBLE
        self.plan = plan.purchase.cards
        return list(plan.trades)


# --- cheats (§9.8) -----------------------------------------------------------------------


def _non_existent_equation(equations: Sequence[Equation]) -> list[Equation]:
    for eq in equations:
        for colour in COLOURS:
            left = Bag((colour,) + eq.left.items[1:])
            if left.colours() & eq.right.colours():
                continue
            invented = Equation(left, eq.right)
            if invented not in equations:
                return [invented]
    return []


def cheat(kind: Cheat, equations: Sequence[Equation], turn: TurnState) -> Any:
    """The cheating answer of §9.8 for ``turn``, or ``None`` when the cheat does not apply.
    For the first-action cheats the answer is a list of exchanges; for the purchase
    cheats a list of cards."""
    wallet, bank = turn.active.wallet, turn.bank
    if kind is Cheat.USE_NON_EXISTENT_EQUATION:
        return _non_existent_equation(equations)
    if kind in (Cheat.BANK_CANNOT_TRADE, Cheat.WALLET_CANNOT_TRADE):
        holder = bank if kind is Cheat.BANK_CANNOT_TRADE else wallet
        first, second = ((lambda e: e.right), (lambda e: e.left)) if kind is Cheat.BANK_CANNOT_TRADE \
            else ((lambda e: e.left), (lambda e: e.right))
        for eq in equations:
            if not holder.covers(first(eq)):
                return [eq]
        for eq in equations:
            if not holder.covers(second(eq)):
                return [eq.flipped()]
        return None
    if kind is Cheat.BUY_UNAVAILABLE_CARD:
        for card in ALL_CARDS:
            if card not in turn.visibles:
                return [card]
        return None
    for card in turn.visibles:  # WALLET_CANNOT_BUY_CARD
        if not wallet.covers(card.pebbles):
            return [card]
    return None


# --- misbehaving players -------------------------------------------------------------------


@misbehaves_through(PROTOCOL)
class MisbehavingPlayer(ReferencePlayer):
    """A reference player that raises, loops or cheats as its :class:`ActorSpec` says (its
    methods derived from the protocol table, each ending in :meth:`_misbehave`)."""

    def __init__(self, spec: ActorSpec, hang: Callable[[], None] = hang) -> None:
        super().__init__(spec.name, spec.policy)
        self.spec = spec
        self.hang = hang
        self.calls = 0

    def _misbehave(self, method: Method, answer: Any, turn: TurnState | None = None) -> Any:
        spec = self.spec
        if spec.cheat is not None:
            if spec.cheat.method is method and turn is not None:
                cheated = cheat(spec.cheat, self.equations, turn)
                if cheated is not None:
                    return cheated
            return answer
        if spec.method is not method:
            return answer
        if spec.count is None:
            raise PlayerMisbehaved(f"{self._name} raises in {method.value} on purpose")
        self.calls += 1
        if self.calls >= spec.count:
            self.hang()
        return answer

    def _after(self, wire: str, answer: Any, args: tuple[Any, ...]) -> Any:
        method = Method(wire)
        turn = args[0] if method in (Method.REQUEST_PEBBLE_OR_TRADES, Method.REQUEST_CARDS) else None
        return self._misbehave(method, answer, turn)


# The built-in players of ``gameroom play bazaar --players-kind``: the spec's and ours.
PLAYERS: dict[str, type[ReferencePlayer]] = {"reference": ReferencePlayer, "patient": PatientPlayer}


def make_player(spec: ActorSpec, hang: Callable[[], None] = hang) -> ReferencePlayer:
    """The player an actor specification describes."""
    if spec.kind == "plain":
        return ReferencePlayer(spec.name, spec.policy)
    return MisbehavingPlayer(spec, hang)


__all__ = [
    "BazaarPlayer", "PlayerMisbehaved", "ReferencePlayer", "PatientPlayer", "cheat", "MisbehavingPlayer",
    "make_player", "PLAYERS",
]
