"""The rules of §3: pebble requests, exchanges and the card they cost, purchases and
scoring, replenishing, kicks, the end of the game, bonuses and ranking."""

from __future__ import annotations

import pytest

from gameroom.games.bazaar.pieces import Bag, Card, Equation, Pebble
from gameroom.games.bazaar.rules import (
    WANT_PEBBLE, Bonus, IllegalAction, apply_bonus, apply_exchanges, apply_first_action, bonus_points,
    buy, drawn_pebble, end_reason, exchange_problem, finish_turn, first_action_problem, game_over,
    kick, purchase_points, purchase_problem, rank, result, rotate, setup_problems,
)
from gameroom.games.bazaar.state import GameState, PlayerRecord, bind_names, game_problems, turn_state

GGB_RW = Equation.of("g g b", "r w")
C1, C2, C3, C4, C5, C6 = (Card.of("w y r b b"), Card.of("g g g g g"), Card.of("r r b r r", True),
                          Card.of("b b b b b"), Card.of("y y y y y"), Card.of("w w w w w", True))


def game(bank: str = "r r b r r", wallets: tuple[str, ...] = ("g g g g g", "r g b r g"),
         visibles: tuple[Card, ...] = (C1, C2), hidden: tuple[Card, ...] = (),
         equations: tuple[Equation, ...] = (GGB_RW,), scores: tuple[int, ...] | None = None) -> GameState:
    scores = scores or (0,) * len(wallets)
    players = tuple(PlayerRecord(Bag.of(w), s, (), n) for w, s, n in zip(wallets, scores, "ABCDEF"))
    return GameState(Bag.of(bank), visibles, hidden, players, equations)


# --- pebble requests -----------------------------------------------------------------------


def test_a_pebble_request_yields_the_first_colour_in_colour_order() -> None:
    assert drawn_pebble(Bag.of("y g b")) is Pebble.BLUE
    assert drawn_pebble(Bag()) is None
    state = apply_first_action(game(bank="y w r y"), WANT_PEBBLE)
    assert state.bank.items == Bag.of("y w y").items
    assert state.active.wallet.items == Bag.of("g g g g g r").items
    assert state.hidden == () and state.visibles == (C1, C2)   # no card burned


def test_a_pebble_request_from_an_empty_bank_is_illegal() -> None:
    state = game(bank="")
    assert first_action_problem(state, WANT_PEBBLE) == "requested a pebble from an empty bank"
    with pytest.raises(IllegalAction):
        apply_first_action(state, WANT_PEBBLE)


def test_first_actions_of_the_wrong_type_are_illegal() -> None:
    assert first_action_problem(game(), True) is not None
    assert first_action_problem(game(), None) is not None
    assert first_action_problem(game(), ["not an equation"]) is not None


# --- exchanges -----------------------------------------------------------------------------


def test_exchanges_follow_the_list_conventions() -> None:
    moved = apply_exchanges([GGB_RW], [GGB_RW.flipped()], Bag.of("r g w"), Bag.of("g b g y"))
    assert moved is not None
    wallet, bank = moved
    assert wallet.items == Bag.of("g g g b").items           # (wallet - left) ++ right
    assert bank.items == Bag.of("y r w").items               # (bank - right) ++ left


def test_exchange_legality() -> None:
    eqs = [Equation.of("r", "b b")]
    wallet, bank = Bag.of("r"), Bag.of("b b")
    assert exchange_problem(eqs, [Equation.of("r", "b b")], wallet, bank) is None
    assert "neither" in exchange_problem(eqs, [Equation.of("r", "b")], wallet, bank)
    assert "wallet" in exchange_problem(eqs, [Equation.of("b b", "r")], wallet, bank)
    assert "bank" in exchange_problem(eqs, [Equation.of("r", "b b")], wallet, Bag.of("b"))
    # feasibility is checked step by step: the second exchange needs the first one's pebbles
    assert exchange_problem(eqs, [Equation.of("r", "b b"), Equation.of("b b", "r")], wallet, bank) is None
    assert "exchange 1" in exchange_problem(eqs, [Equation.of("r", "b b")] * 2, wallet, Bag.of("b b b b"))
    assert apply_exchanges(eqs, [], wallet, bank) == (wallet, bank)


def test_an_exchange_request_burns_the_bottom_hidden_card() -> None:
    state = game(wallets=("r w", "g"), visibles=(C1, C2, C3, C4), hidden=(C5, C6),
                 bank="g g b")
    after = apply_first_action(state, [GGB_RW.flipped()])
    assert after.hidden == (C5,)
    assert after.visibles == (C1, C2, C3, C4)
    assert after.active.wallet == Bag.of("g g b")


def test_an_empty_exchange_request_with_an_empty_pile_removes_the_visible_cards() -> None:
    after = apply_first_action(game(), [])
    assert after.visibles == () and after.hidden == ()
    assert end_reason(after) == "no cards remain"


# --- purchases -----------------------------------------------------------------------------


def test_each_card_is_scored_against_the_wallet_right_after_paying() -> None:
    state = game(wallets=("w y r b b g g g g g r", "r"), visibles=(C1, C2))
    after = buy(state, [C1, C2])
    assert after.active.score == 1 + 3          # 6 left -> 1 point, then 1 left -> 3 points
    assert purchase_points([C1, C2], 11) == 4
    assert after.active.wallet.items == (Pebble.RED,)
    assert after.bank.items == Bag.of("r r b r r w y r b b g g g g g").items
    assert after.visibles == ()
    assert after.active.cards == (C1, C2)


def test_purchased_cards_go_in_front_and_the_visible_row_is_replenished() -> None:
    old = Card.of("g g g g r", True)
    state = GameState(Bag.of("r"), (C1, C2, C3, C4), (C5, C6),
                      (PlayerRecord(Bag.of("g g g g g b b b b b"), 2, (old,), "A"),), ())
    after = buy(state, [C4])
    assert after.active.cards == (C4, old)
    assert after.visibles == (C1, C2, C3, C5)
    assert after.hidden == (C6,)
    assert after.active.score == 2 + 1


def test_purchase_legality() -> None:
    state = game(wallets=("w y r b b", "r"))
    assert purchase_problem(state, [C1]) is None
    assert purchase_problem(state, []) is None
    assert "cannot pay" in purchase_problem(state, [C2])
    assert "cannot pay" in purchase_problem(state, [C1, C1])
    assert purchase_problem(state, "cards") is not None
    assert purchase_problem(state, [42]) is not None


def test_an_affordable_invisible_card_is_illegal_unless_reference_mode() -> None:
    invisible = Card.of("w y r b b", face=True)
    state = game(wallets=("w y r b b", "r"))
    assert "not visible" in purchase_problem(state, [invisible])
    assert purchase_problem(state, [invisible], check_visible=False) is None
    after = buy(state, [invisible], check_visible=False)
    assert after.visibles == (C1, C2) and after.active.score == 8


def test_finish_turn_rotates() -> None:
    state = finish_turn(game(), [])
    assert [p.name for p in state.players] == ["B", "A"]


# --- turn order, kicks ---------------------------------------------------------------------


def test_rotate_and_kick() -> None:
    state = game(wallets=("r", "g", "b"))
    assert [p.name for p in rotate(state).players] == ["B", "C", "A"]
    kicked = kick(state)
    assert [p.name for p in kicked.players] == ["B", "C"]
    assert kicked.bank == state.bank                    # the kicked wallet is not returned


def test_turn_state_shows_the_others_scores_in_turn_order() -> None:
    state = game(wallets=("r", "g", "b"), scores=(1, 2, 3))
    turn = turn_state(rotate(state))
    assert turn.active.name == "B" and turn.scores == (3, 1)
    assert turn.visibles == state.visibles and turn.bank == state.bank


# --- end of the game -----------------------------------------------------------------------


def test_end_conditions() -> None:
    assert end_reason(game()) is None
    assert end_reason(GameState(Bag.of("r"), (C1,))) == "no players remain"
    assert "20 or more" in end_reason(game(scores=(3, 20)))
    assert end_reason(game(visibles=())) == "no cards remain"
    # empty bank: over only when nobody can buy a visible *or hidden* card
    assert game_over(game(bank="", wallets=("r", "g")))
    assert not game_over(game(bank="", wallets=("g g g g g", "r")))
    hidden_only = game(bank="", wallets=("b b b b b", "r"), visibles=(C1, C2, C3, C5), hidden=(C4,))
    assert not game_over(hidden_only)


def test_bonuses() -> None:
    rwb = (Card.of("r r b r r"), Card.of("w w w w w"))
    assert bonus_points(Bonus.RWB, rwb) == 10
    assert bonus_points(Bonus.RWB, rwb[:1]) == 0
    assert bonus_points(Bonus.SEY, rwb + (Card.of("g g y g g"),)) == 50
    assert bonus_points(Bonus.SEY, rwb) == 0
    assert bonus_points(None, rwb) == 0
    state = GameState(Bag(), (), (), (PlayerRecord(Bag(), 5, rwb, "A"), PlayerRecord(Bag(), 9, (), "B")))
    assert [p.score for p in apply_bonus(state, Bonus.RWB).players] == [15, 9]
    assert apply_bonus(state, None) is state


def test_ranking_and_result() -> None:
    state = GameState(Bag(), (), (), tuple(PlayerRecord(Bag(), s, (), n)
                                         for s, n in [(3, "Zed"), (7, "Bob"), (7, "Al"), (1, "Cy")]))
    assert rank(state) == (("Bob", "Al"), ("Zed", "Cy"))
    assert rank(GameState(Bag())) == ((), ())
    assert result(["Bob", "Al"], ["Zed", "Ann"]) == (["Al", "Bob"], ["Ann", "Zed"])


def test_setup_problems_and_state_validity() -> None:
    state = game()
    assert setup_problems(state, ["A", "B"]) == []
    assert setup_problems(state, ["A"]) != []
    assert setup_problems(state, ["A", "A"]) == ["player names are not distinct"]
    assert bind_names(state, ["x", "y"]).names() == ("x", "y")
    assert game_problems(state) == []
    assert game_problems(game(visibles=(C1,), hidden=(C2,))) == [
        "fewer than 4 visible cards but the hidden pile is not empty"]
    assert any("pebbles" in p for p in game_problems(game(bank="r" * 99)))


def test_appendix_a_worked_example() -> None:
    """Integration test 2 (spec Appendix A), Zeina already dropped at set-up."""
    from gameroom.games.bazaar.players import ReferencePlayer
    from gameroom.games.bazaar.strategies import Policy

    state = game(wallets=("r g b r g", "w y r b b"), visibles=(C1, C2))
    adam, eve = ReferencePlayer("A", Policy.PURCHASE_POINTS), ReferencePlayer("B", Policy.PURCHASE_SIZE)
    for p in (adam, eve):
        p.setup([GGB_RW])
    assert adam.request_pebble_or_trades(turn_state(state)) is WANT_PEBBLE
    state = apply_first_action(state, WANT_PEBBLE)
    assert state.active.wallet.items == Bag.of("r g b r g r").items and state.bank.items == Bag.of("r b r r").items
    assert adam.request_cards(turn_state(state)) == []
    state = finish_turn(state, [])
    assert eve.request_pebble_or_trades(turn_state(state)) is WANT_PEBBLE
    state = apply_first_action(state, WANT_PEBBLE)
    assert eve.request_cards(turn_state(state)) == [C1]
    state = finish_turn(state, [C1])
    assert state.players[1].score == 3 and state.players[1].wallet.items == (Pebble.RED,)
    assert state.bank.items == Bag.of("b r r w y r b b").items and state.visibles == (C2,)
    assert not game_over(state)
    assert adam.request_pebble_or_trades(turn_state(state)) == []
    state = apply_first_action(state, [])
    assert game_over(state)
    assert rank(state) == (("B",), ("A",))
