"""Property tests: codec round trips, hidden wallets, conservation of pebbles, and the
optimised strategy against a literal transcription of the reference's (oracle.py)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

from gameroom.games.bazaar import codec
from gameroom.games.bazaar.actors import decode_actor, encode_actor
from gameroom.games.bazaar.config import (
    ClientConfig, ServerConfig, decode_client_config, decode_server_config,
    encode_client_config, encode_server_config,
)
from gameroom.games.bazaar.pieces import ALL_CARDS, Bag, Card
from gameroom.games.bazaar.rules import (
    apply_exchanges, buy, directed_equations, purchase_problem, request_pebble, trade,
)
from gameroom.games.bazaar.state import GameState, PlayerRecord, turn_state
from gameroom.games.bazaar.strategies import StrategyError, buy_cards, trade_then_purchase

from . import gen, oracle


def wire(value: object) -> object:
    """As written and read back."""
    return json.loads(json.dumps(value))


# --- codec round trips ---------------------------------------------------------------------


@given(gen.bags(0, 40))
def test_pebbles_round_trip_keeps_list_order(bag: Bag) -> None:
    back = codec.decode_pebbles(wire(codec.encode_pebbles(bag)))
    assert back.same_list(bag)


@given(gen.tables())
def test_equations_table_round_trip(table: tuple) -> None:
    back = codec.decode_equations(wire(codec.encode_equations(table)))
    assert back == table
    assert all(b.left.same_list(t.left) and b.right.same_list(t.right) for b, t in zip(back, table))


@given(st.lists(gen.cards, max_size=20))
def test_cards_round_trip(cards: list[Card]) -> None:
    assert codec.decode_cards(wire(codec.encode_cards(cards))) == tuple(cards)


@given(gen.turn_states)
def test_turn_state_round_trip(turn: object) -> None:
    assert codec.decode_turn_state(wire(codec.encode_turn_state(turn)), cards_required=True) == turn


@given(gen.game_states())
def test_game_round_trip(state: GameState) -> None:
    encoded = wire(codec.encode_game(state))
    assert codec.decode_game(encoded, equations=state.equations) == state
    assert list(encoded) == sorted(encoded)  # keys written alphabetically, as the reference


@given(gen.game_states())
def test_game_without_cards_round_trip(state: GameState) -> None:
    stripped = replace(state, players=tuple(replace(p, cards=()) for p in state.players))
    encoded = wire(codec.encode_game(stripped, with_cards=False))
    assert all("cards" not in p for p in encoded["players"])
    assert codec.decode_game(encoded, equations=state.equations) == stripped


@given(gen.actors)
def test_actor_round_trip(spec: object) -> None:
    assert decode_actor(wire(encode_actor(spec))) == spec


@given(st.builds(ServerConfig, st.integers(10000, 60000), st.integers(1, 9),
                 st.floats(0.5, 29.5), st.floats(0.1, 9.9), st.booleans()))
def test_server_config_round_trip(config: ServerConfig) -> None:
    assert decode_server_config(wire(encode_server_config(config))) == config


@given(st.builds(ClientConfig, st.integers(10000, 60000), st.sampled_from(["127.0.0.1", "localhost"]),
                 st.floats(0, 10), st.booleans(), st.lists(gen.actors, max_size=6).map(tuple)))
def test_client_config_round_trip(config: ClientConfig) -> None:
    assert decode_client_config(wire(encode_client_config(config)), lax_names=True) == config


@given(st.lists(gen.equations(), max_size=5).map(tuple), gen.turn_states)
def test_remote_calls_round_trip(exchanges: tuple, turn: object) -> None:
    from gameroom.core.protocol import TAGGED
    from gameroom.games.bazaar.protocol import PROTOCOL
    method = PROTOCOL.method("request_cards")
    assert TAGGED.decode_call(PROTOCOL, wire(TAGGED.encode_call(method, (turn,)))) == (method, (turn,))
    assert codec.read_first_action_reply(wire(codec.encode_first_action(exchanges))) == exchanges


# --- what a player sees --------------------------------------------------------------------


@given(gen.game_states(min_players=1), st.lists(gen.bags(0, 20), min_size=5, max_size=5))
def test_turn_state_never_shows_another_players_wallet(state: GameState, wallets: list[Bag]) -> None:
    """Changing the other players' wallets changes nothing the active player is shown."""
    others = tuple(replace(p, wallet=w) for p, w in zip(state.players[1:], wallets))
    changed = replace(state, players=state.players[:1] + others)
    seen, seen_changed = turn_state(state), turn_state(changed)
    assert seen == seen_changed
    assert seen.active.wallet.same_list(state.active.wallet)
    assert codec.encode_turn_state(seen) == codec.encode_turn_state(seen_changed)
    assert seen.scores == tuple(p.score for p in state.players[1:])


# --- conservation of pebbles ---------------------------------------------------------------


@given(gen.tables(5), gen.bags(0, 12), gen.bags(0, 20), st.data())
def test_exchanges_preserve_the_pebbles_of_wallet_and_bank(table: tuple, wallet: Bag, bank: Bag,
                                                          data: st.DataObject) -> None:
    allowed = sorted(directed_equations(table), key=repr)
    assume(allowed)
    exchanges = data.draw(st.lists(st.sampled_from(allowed), max_size=5))
    moved = apply_exchanges(table, exchanges, wallet, bank)
    if moved is not None:
        new_wallet, new_bank = moved
        assert new_wallet + new_bank == wallet + bank
        assert len(new_wallet) + len(new_bank) == len(wallet) + len(bank)


@given(gen.game_states(min_players=1), st.data())
def test_turn_actions_preserve_pebbles_in_bank_and_wallets(state: GameState, data: st.DataObject) -> None:
    def total(s: GameState) -> Bag:
        out = s.bank
        for p in s.players:
            out = out + p.wallet
        return out

    before = total(state)
    if state.bank:
        assert total(request_pebble(state)) == before
    allowed = sorted(directed_equations(state.equations), key=repr)
    exchanges = data.draw(st.lists(st.sampled_from(allowed), max_size=3)) if allowed else []
    if apply_exchanges(state.equations, exchanges, state.active.wallet, state.bank) is not None:
        assert total(trade(state, exchanges)) == before
    cards = data.draw(st.lists(st.sampled_from(state.visibles), max_size=3)) if state.visibles else []
    if purchase_problem(state, cards) is None:
        after = buy(state, cards)
        assert total(after) == before
        assert len(after.visibles) + len(after.hidden) == len(state.visibles) + len(state.hidden) - len(cards)


# --- the optimised strategy is the reference's ---------------------------------------------

small_cards = st.builds(Card, st.lists(st.sampled_from(list(ALL_CARDS[0].pebbles.colours() | {
    *ALL_CARDS[8].pebbles.colours()})), min_size=5, max_size=5).map(Bag), st.booleans())
rows = st.lists(st.one_of(gen.cards, st.sampled_from(ALL_CARDS), small_cards), max_size=4)


def same_plan(a: object, b: object) -> bool:
    return (a.trades == b.trades and all(x.left.same_list(y.left) and x.right.same_list(y.right)
                                         for x, y in zip(a.trades, b.trades))
            and a.purchase == b.purchase and a.purchase.wallet.same_list(b.purchase.wallet)
            and all(x.pebbles.same_list(y.pebbles) for x, y in zip(a.purchase.cards, b.purchase.cards)))


@settings(max_examples=300)
@given(st.one_of(st.tuples(rows, gen.bags(0, 14)), gen.market().map(lambda m: (m[1], m[2]))), gen.policies)
def test_buy_cards_equals_the_literal_reference(row_and_wallet: tuple, policy: object) -> None:
    visibles, wallet = row_and_wallet
    try:
        expected = oracle.buy_cards(visibles, wallet, policy)
    except StrategyError:  # the inconsistent card< case (spec §11 item 5): both fail
        with pytest.raises(StrategyError):
            buy_cards(visibles, wallet, policy)
        return
    got = buy_cards(visibles, wallet, policy)
    assert got == expected
    assert got.wallet.same_list(expected.wallet)
    assert all(x.pebbles.same_list(y.pebbles) for x, y in zip(got.cards, expected.cards))


@settings(max_examples=200)
@given(gen.market(), gen.policies)
def test_trade_then_purchase_equals_the_literal_reference(market: tuple, policy: object) -> None:
    table, visibles, wallet, bank = market
    try:
        expected = oracle.trade_then_purchase(table, visibles, wallet, bank, policy)
    except StrategyError:
        event("the reference strategy fails")
        with pytest.raises(StrategyError):
            trade_then_purchase(table, visibles, wallet, bank, policy)
        return
    got = trade_then_purchase(table, visibles, wallet, bank, policy)
    assert same_plan(got, expected), (got, expected)


def test_player_record_name_is_not_part_of_equality() -> None:
    assert PlayerRecord(Bag.of("r"), 1, (), "Ann") == PlayerRecord(Bag.of("r"), 1, (), "Bob")
