"""Wire codecs (§6): shapes, exact key sets, error paths, the remote calls, and the
reference server's reading of replies (§6.3)."""

from __future__ import annotations

import pytest

from gameroom.core.wire import WireError
from gameroom.games.bazaar import codec
from gameroom.core.protocol import TAGGED, VOID
from gameroom.games.bazaar.protocol import PROTOCOL
from gameroom.games.bazaar.pieces import Bag, Card, Equation
from gameroom.games.bazaar.rules import WANT_PEBBLE
from gameroom.games.bazaar.state import PlayerRecord, TurnState

CARD = {"face?": False, "pebbles": ["white", "yellow", "red", "blue", "blue"]}
PLAYER = {"cards": [], "score": 3, "wallet": ["red", "red", "blue"]}
TURN = {"active": PLAYER, "bank": ["red"], "cards": [CARD], "scores": [0, 2]}
GAME = {"bank": ["red"], "visibles": [CARD], "cards": [], "players": [PLAYER, PLAYER]}


def error(fn, *args, **kwargs) -> WireError:  # type: ignore[no-untyped-def]
    with pytest.raises(WireError) as info:
        fn(*args, **kwargs)
    return info.value


def test_decoding_the_spec_examples() -> None:
    assert codec.decode_card(CARD) == Card.of("w y r b b")
    assert codec.decode_player(PLAYER) == PlayerRecord(Bag.of("r r b"), 3, ())
    turn = codec.decode_turn_state(TURN)
    assert turn.scores == (0, 2) and turn.visibles == (Card.of("w y r b b"),)
    game = codec.decode_game(GAME)
    assert len(game.players) == 2 and game.hidden == ()
    assert codec.decode_equation([["green", "green", "blue"], ["red", "white"]]) == Equation.of("g g b", "r w")


def test_encoders_write_the_reference_key_order() -> None:
    assert list(codec.encode_card(Card.of("w y r b b"))) == ["face?", "pebbles"]
    assert codec.encode_turn_state(codec.decode_turn_state(TURN)) == TURN
    assert list(codec.encode_game(codec.decode_game(GAME))) == ["bank", "cards", "players", "visibles"]


def test_errors_name_the_place() -> None:
    bad = {**GAME, "players": [{"wallet": ["red", "pink"], "score": 1}]}
    e = error(codec.decode_game, bad)
    assert e.where == "$.players[0].wallet[1]" and "pink" in str(e)
    assert error(codec.decode_turn_state, {**TURN, "scores": [1, -1]}).where == "$.scores[1]"
    assert error(codec.decode_card, {**CARD, "pebbles": ["red"] * 4}).where == "$.pebbles"
    assert error(codec.decode_equations, [[["red"], ["red"]]]).where == "$[0]"


def test_objects_must_have_exactly_the_spec_keys() -> None:
    assert "unexpected key" in str(error(codec.decode_card, {**CARD, "x": 1}))
    assert "missing key" in str(error(codec.decode_turn_state, {"bank": [], "cards": [], "active": PLAYER}))
    assert "missing key" in str(error(codec.decode_card, {"e": CARD["pebbles"], "face?": False}))


def test_the_older_player_format_without_cards() -> None:
    old = {"score": 2, "wallet": ["red"]}
    assert codec.decode_player(old).cards == ()
    assert "cards" in str(error(codec.decode_player, old, cards_required=True))
    assert codec.encode_player(PlayerRecord(Bag.of("r"), 2), with_cards=False) == old


def test_shape_limits() -> None:
    assert error(codec.decode_pebbles, ["red"] * 101).where == "$"
    assert error(codec.decode_game, {**GAME, "visibles": [CARD] * 5}).where == "$.visibles"
    assert error(codec.decode_game, {**GAME, "players": [PLAYER] * 7}).where == "$.players"
    assert codec.decode_player({**PLAYER, "score": 10 ** 60}).score == 10 ** 60
    assert "score" in error(codec.decode_player, {**PLAYER, "score": 1.5}).where
    assert error(codec.decode_card, {**CARD, "face?": "no"}).where == "$.face?"


def test_validated_games() -> None:
    invalid = {**GAME, "cards": [CARD]}  # fewer than 4 visible but a hidden pile
    assert codec.decode_game(invalid).hidden == (Card.of("w y r b b"),)
    assert "hidden pile" in str(error(codec.decode_game, invalid, validate=True))


def test_equations_tables_are_validated_but_exchanges_only_shaped() -> None:
    assert "flip" in str(error(codec.decode_equations, [[["red"], ["blue"]], [["blue"], ["red"]]]))
    assert "1 to 4" in str(error(codec.decode_equations, [[[], ["blue"]]]))
    assert codec.decode_exchanges([[[], ["red", "red"]]]) == (Equation(Bag(), Bag.of("r r")),)
    assert error(codec.decode_exchanges, [[["red"]]]).where == "$[0]"


@pytest.mark.parametrize("reply", [False, None, True, 0, "false", {}, [1], [[["red"], ["white"], ["red"]]],
                                   [[["re"], ["red"]]], [[["red"]]]])
def test_garbage_replies_to_the_first_request_read_as_pebble_requests(reply: object) -> None:
    assert codec.read_first_action_reply(reply) is WANT_PEBBLE


def test_first_request_replies() -> None:
    assert codec.read_first_action_reply([]) == ()
    assert codec.read_first_action_reply([[["red"], ["white"]]]) == (Equation.of("r", "w"),)
    assert codec.read_first_action_reply([CARD]) is None          # cards: a failure
    assert codec.encode_first_action(WANT_PEBBLE) is False
    assert codec.decode_first_action(False) is WANT_PEBBLE
    assert error(codec.decode_first_action, True).where == "$"


def test_purchase_replies() -> None:
    assert codec.read_purchase_reply([]) == ()
    assert codec.read_purchase_reply([CARD]) == (Card.of("w y r b b"),)
    for bad in (False, None, [[["red"], ["white"]]], [{"e": CARD["pebbles"], "face?": False}]):
        error(codec.read_purchase_reply, bad)


def test_void() -> None:
    assert VOID.decode("void") is None and VOID.encode(None) == "void"
    for bad in ("Void", None, ["void"]):
        error(VOID.decode, bad)


def test_remote_calls() -> None:
    eqs = (Equation.of("g g b", "r w"),)
    setup = TAGGED.encode_call(PROTOCOL.method("setup"), (eqs,))
    assert setup == ["setup", [[[["green", "green", "blue"], ["red", "white"]]]]]
    assert TAGGED.decode_call(PROTOCOL, setup) == (PROTOCOL.method("setup"), (eqs,))
    assert TAGGED.encode_call(PROTOCOL.method("win"), (True,)) == ["win", [True]]
    assert TAGGED.decode_call(PROTOCOL, ["win", [False]]) == (PROTOCOL.method("win"), (False,))
    turn = codec.decode_turn_state(TURN)
    assert TAGGED.decode_call(PROTOCOL, ["request-pebble-or-trades", [TURN]]) == (
        PROTOCOL.method("request_pebble_or_trades"), (turn,))
    no_cards = {**TURN, "active": {"score": 0, "wallet": []}}
    assert "cards" in str(error(lambda v: TAGGED.decode_call(PROTOCOL, v), ["request-cards", [no_cards]]))
    assert error(lambda v: TAGGED.decode_call(PROTOCOL, v), ["name", []]).where == "$[0]"
    assert error(lambda v: TAGGED.decode_call(PROTOCOL, v), ["win", ["yes"]]).where == "$[1][0]"
    assert error(lambda v: TAGGED.decode_call(PROTOCOL, v), ["win", [True, True]]).where == "$[1]"


def test_results_and_bonuses() -> None:
    assert codec.encode_result(["b", "a"], ["z", "c"]) == [["a", "b"], ["c", "z"]]
    assert codec.decode_result([["a"], []]) == (["a"], [])
    error(codec.decode_result, [["a"]])
    assert codec.decode_bonus("RWB").value == "RWB"
    error(codec.decode_bonus, "rwb")


def test_turn_states_are_values() -> None:
    turn = codec.decode_turn_state(TURN)
    assert turn == TurnState(Bag.of("r"), (Card.of("w y r b b"),), PlayerRecord(Bag.of("r r b"), 3), (0, 2))
