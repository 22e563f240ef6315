"""The reference player mechanism (§9.1) and the misbehaving actors (§9.7-§9.9)."""

from __future__ import annotations

import pytest

from gameroom.core.misbehaviour import PlayerMisbehaved
from gameroom.games.bazaar.actors import ActorSpec, Cheat, Method
from gameroom.games.bazaar.pieces import ALL_CARDS, Bag, Card, Equation
from gameroom.games.bazaar.players import MisbehavingPlayer, ReferencePlayer, cheat, make_player
from gameroom.games.bazaar.rules import WANT_PEBBLE
from gameroom.games.bazaar.state import PlayerRecord, TurnState
from gameroom.games.bazaar.strategies import Policy

EQ = Equation.of("r", "g g g")
G5 = Card.of("g g g g g")


def turn(wallet: str, bank: str, visibles: tuple[Card, ...] = (G5,)) -> TurnState:
    return TurnState(Bag.of(bank), visibles, PlayerRecord(Bag.of(wallet)), ())


class Hung(Exception):
    pass


def hang() -> None:
    raise Hung()


def test_the_planned_purchase_is_used_after_exchanges() -> None:
    player = ReferencePlayer("Ann")
    player.setup([EQ])
    assert player.request_pebble_or_trades(turn("r r y y", "g g g g g g")) == [EQ, EQ]
    # the plan is used even if the turn state shown afterwards would suggest otherwise
    assert player.request_cards(turn("y", "g")) == [G5]
    # no plan after a pebble request: the purchase is computed from the new state
    assert player.request_pebble_or_trades(turn("y", "w")) is WANT_PEBBLE
    assert player.request_cards(turn("g g g g g", "w")) == [G5]
    assert player.name() == "Ann" and player.win(True) is None


def test_setup_forgets_the_plan() -> None:
    player = ReferencePlayer("Ann", Policy.PURCHASE_SIZE)
    player.setup([EQ])
    player.request_pebble_or_trades(turn("r r y y", "g g g g g g"))
    player.setup([EQ])
    assert player.request_cards(turn("y", "g")) == []


def test_exception_actors_raise_in_their_method() -> None:
    player = make_player(ActorSpec("Bo", Policy.PURCHASE_POINTS, Method.REQUEST_CARDS))
    player.setup([EQ])
    player.request_pebble_or_trades(turn("r r y y", "g g g g g g"))
    with pytest.raises(PlayerMisbehaved):
        player.request_cards(turn("y", "g"))
    with pytest.raises(PlayerMisbehaved):
        make_player(ActorSpec("Cy", Policy.PURCHASE_POINTS, Method.SETUP)).setup([])
    winner = make_player(ActorSpec("Di", Policy.PURCHASE_POINTS, Method.WIN))
    with pytest.raises(PlayerMisbehaved):
        winner.win(True)


def test_looping_actors_hang_from_the_count_th_call() -> None:
    player = make_player(ActorSpec("Lu", Policy.PURCHASE_POINTS, Method.REQUEST_PEBBLE_OR_TRADES, 2), hang)
    player.setup([EQ])
    assert player.request_pebble_or_trades(turn("y", "w")) is WANT_PEBBLE
    with pytest.raises(Hung):
        player.request_pebble_or_trades(turn("y", "w"))
    with pytest.raises(Hung):
        player.request_pebble_or_trades(turn("y", "w"))
    setup_looper = make_player(ActorSpec("Mo", Policy.PURCHASE_POINTS, Method.SETUP, 1), hang)
    with pytest.raises(Hung):
        setup_looper.setup([EQ])


def test_cheat_use_non_existent_equation() -> None:
    table = [Equation.of("r", "b"), Equation.of("g", "b")]
    # r->b exists; replacing r by red again gives r->b (exists), by white gives w->b (new)
    assert cheat(Cheat.USE_NON_EXISTENT_EQUATION, table, turn("r", "b")) == [Equation.of("w", "b")]
    assert cheat(Cheat.USE_NON_EXISTENT_EQUATION, [], turn("r", "b")) == []


def test_cheat_bank_and_wallet_cannot_trade() -> None:
    table = [Equation.of("r", "b"), Equation.of("g", "w")]
    assert cheat(Cheat.BANK_CANNOT_TRADE, table, turn("", "b")) == [table[1]]
    assert cheat(Cheat.BANK_CANNOT_TRADE, table, turn("", "b w")) == [table[0].flipped()]
    assert cheat(Cheat.BANK_CANNOT_TRADE, table, turn("", "r b g w")) is None
    assert cheat(Cheat.WALLET_CANNOT_TRADE, table, turn("r", "")) == [table[1]]
    assert cheat(Cheat.WALLET_CANNOT_TRADE, table, turn("r g", "")) == [table[0].flipped()]
    assert cheat(Cheat.WALLET_CANNOT_TRADE, table, turn("r g b w", "")) is None


def test_cheat_cards() -> None:
    assert cheat(Cheat.BUY_UNAVAILABLE_CARD, [], turn("", "", (ALL_CARDS[0],))) == [ALL_CARDS[1]]
    assert cheat(Cheat.WALLET_CANNOT_BUY_CARD, [], turn("g g g g g", "", (G5, ALL_CARDS[0]))) == [ALL_CARDS[0]]
    assert cheat(Cheat.WALLET_CANNOT_BUY_CARD, [], turn("g g g g g", "", (G5,))) is None


def test_cheaters_fall_back_on_the_normal_answer() -> None:
    spec = ActorSpec("Ch", Policy.PURCHASE_POINTS, cheat=Cheat.WALLET_CANNOT_BUY_CARD)
    player = make_player(spec)
    assert isinstance(player, MisbehavingPlayer)
    player.setup([EQ])
    assert player.request_cards(turn("g g g g g", "")) == [G5]
    assert player.request_cards(turn("g", "")) == [G5]     # the cheat: it cannot pay
    assert player.request_pebble_or_trades(turn("y", "w")) is WANT_PEBBLE


def test_make_player_kinds() -> None:
    assert type(make_player(ActorSpec("P"))) is ReferencePlayer
    assert ActorSpec("P").kind == "plain"
    assert ActorSpec("P", method=Method.WIN).kind == "exception"
    assert ActorSpec("P", method=Method.WIN, count=1).kind == "loop"
    assert ActorSpec("P", cheat=Cheat.BANK_CANNOT_TRADE).kind == "cheat"


def test_the_patient_player_asks_for_a_pebble_where_the_reference_burns_a_card() -> None:
    """Issue 8: the reference player answers "no exchange" when an equation is useful but
    no exchange leads to a purchase, which burns a card; the patient one asks for a pebble."""
    from gameroom.games.bazaar.players import PatientPlayer

    reference, patient = ReferencePlayer("Ann"), PatientPlayer("Bea")
    for player in (reference, patient):
        player.setup([EQ])
    hopeless = turn("r", "g g g w")            # r -> g g g is useful; G5 stays out of reach
    assert reference.request_pebble_or_trades(hopeless) == []
    assert patient.request_pebble_or_trades(hopeless) is WANT_PEBBLE
    # exchanges that lead to a purchase are made, and the planned cards bought
    assert patient.request_pebble_or_trades(turn("r r y y", "g g g g g g")) == [EQ, EQ]
    assert patient.request_cards(turn("y", "g")) == [G5]
    # a purchase that needs no exchange: a free pebble first, then the purchase
    assert patient.request_pebble_or_trades(turn("g g g g g", "w")) is WANT_PEBBLE
    assert patient.request_cards(turn("g g g g g w", "")) == [G5]
    # with an empty bank there is nothing to ask for
    assert patient.request_pebble_or_trades(turn("r", "")) == []
