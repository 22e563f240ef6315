"""Actor specifications (§6.1, §9.7-§9.10), configurations (§8) and program inputs (§10.1)."""

from __future__ import annotations

import pytest

from gameroom.core.wire import WireError
from gameroom.games.bazaar.actors import (
    ActorSpec, Cheat, Method, Special, WireBehaviour, decode_actor, decode_actors, decode_specials,
    encode_actor, valid_name,
)
from gameroom.games.bazaar.config import (
    ClientConfig, ServerConfig, decode_client_config, decode_clients_input, decode_server_config,
    decode_server_input, encode_server_input,
)
from gameroom.games.bazaar.rules import Bonus
from gameroom.games.bazaar.strategies import Policy

GAME = {"bank": ["red"], "visibles": [], "cards": [],
        "players": [{"cards": [], "score": 0, "wallet": []}, {"cards": [], "score": 0, "wallet": []}]}


def test_actor_forms() -> None:
    assert decode_actor(["Adam", "purchase-points"]) == ActorSpec("Adam", Policy.PURCHASE_POINTS)
    assert decode_actor(["Zeina", "purchase-size", "setup"]) == ActorSpec("Zeina", Policy.PURCHASE_SIZE, Method.SETUP)
    assert decode_actor(["Olivia", "purchase-points", "a cheat", "use-non-existent-equation"]).cheat \
        is Cheat.USE_NON_EXISTENT_EQUATION
    looper = decode_actor(["Susanne", "purchase-size", "request-cards", 2])
    assert (looper.method, looper.count, looper.kind) == (Method.REQUEST_CARDS, 2, "loop")
    assert encode_actor(looper) == ["Susanne", "purchase-size", "request-cards", 2]


@pytest.mark.parametrize("bad, where", [
    (["Adam"], "$"), (["Adam", "greedy"], "$[1]"), (["Adam", "purchase-size", "dance"], "$[2]"),
    (["Adam", "purchase-size", "a cheat", "steal"], "$[3]"), (["Adam", "purchase-size", "win", 8], "$[3]"),
    (["Adam", "purchase-size", "win", 0], "$[3]"), (["Adam", "purchase-size", "a cheat"], "$[2]"),
    (["ouch ouch", "purchase-size"], "$[0]"), (["a" * 21, "purchase-size"], "$[0]"), (["", "purchase-size"], "$[0]"),
])
def test_bad_actors(bad: list, where: str) -> None:
    with pytest.raises(WireError) as info:
        decode_actor(bad)
    assert info.value.where == where


def test_lax_names_and_wire_behaviours() -> None:
    assert decode_actor(["ouch ouch", "purchase-size"], lax_names=True).name == "ouch ouch"
    assert decode_actor(["illTT", "purchase-size"]).wire_behaviour is WireBehaviour.ILL_TT
    assert decode_actor(["Adam", "purchase-size"]).wire_behaviour is None
    assert valid_name("Ab1") and not valid_name("é") and not valid_name("a b")
    with pytest.raises(WireError):
        decode_actors([["a", "purchase-size"]] * 7)
    assert decode_specials(["AAsendnameloop"]) == (Special.SEND_NAME_LOOP,)
    with pytest.raises(WireError):
        decode_specials(["AAother"])


def test_actor_spec_invariants() -> None:
    with pytest.raises(ValueError):
        ActorSpec("a", count=2)
    with pytest.raises(ValueError):
        ActorSpec("a", method=Method.WIN, cheat=Cheat.BANK_CANNOT_TRADE)
    assert Cheat.BUY_UNAVAILABLE_CARD.method is Method.REQUEST_CARDS
    assert Cheat.BANK_CANNOT_TRADE.method is Method.REQUEST_PEBBLE_OR_TRADES


def test_configuration_defaults_and_checks() -> None:
    assert decode_server_config({}) == ServerConfig(45678, 2, 20.0, 2.0, True)
    assert decode_server_config({"port": 12345, "quiet": False}) == ServerConfig(port=12345, quiet=False)
    for bad in ({"port": 80}, {"server-tries": 10}, {"server-wait": 30}, {"wait-for-signup": 0},
                {"verbose": True}, []):
        with pytest.raises(WireError):
            decode_server_config(bad)
    assert decode_client_config({}) == ClientConfig(45678, "127.0.0.1", 2.0, True, ())
    config = decode_client_config({"actor*": [["Adam", "purchase-size"]], "host": "localhost"})
    assert config.actors[0].name == "Adam" and config.host == "localhost"
    with pytest.raises(WireError) as info:
        decode_client_config({"actor*": [["bad name", "purchase-size"]]})
    assert info.value.where == "$.actor*[0][0]"


def test_server_inputs() -> None:
    assert decode_server_input([]).from_scratch
    assert decode_server_input(["SEY"]).bonus is Bonus.SEY
    given = decode_server_input([[[["red"], ["blue"]]], GAME, "RWB"])
    assert given.game is not None and given.game.equations == given.equations and given.bonus is Bonus.RWB
    assert decode_server_input(encode_server_input(given)) == given
    assert decode_server_input([[], GAME]).bonus is None
    with pytest.raises(WireError):
        decode_server_input([[], GAME, "RWB", "SEY"])
    with pytest.raises(WireError):
        decode_server_input([[], {**GAME, "cards": [{"face?": False, "pebbles": ["red"] * 5}]}])


def test_clients_inputs() -> None:
    clients = decode_clients_input([[["Adam", "purchase-size"]], []])
    assert clients.actors[0].name == "Adam" and clients.specials == ()
    assert decode_clients_input([[["Adam", "purchase-size"]]]).specials == ()
    assert decode_clients_input([[["ouch ouch", "purchase-size"]], ["AAdivergeBeforeSending"]],
                                lax_names=True).specials == (Special.DIVERGE_BEFORE_SENDING,)
    with pytest.raises(WireError):
        decode_clients_input([[["ouch ouch", "purchase-size"]]])
