"""Who may take back a held seat (``server.lobby_identity``), the relay's account
credential, the lobby's ``relaySecret``, and the allowance of checked answers per user
(``server.lobby_checks``): the rules, without a server."""

from __future__ import annotations

import pytest

from gameroom.core.wire import WireError
from gameroom.server.lobby_checks import CHECK_BURST, CHECK_RATE, Allowance
from gameroom.server.lobby_config import decode_lobby_config
from gameroom.server.lobby_identity import Proof, account_credential, new_secret, secret_digest, valid_credential

SECRET = "a secret shared with the web room"


def test_an_accounts_credential_is_its_own_and_needs_the_shared_secret() -> None:
    credential = account_credential(SECRET, "wdave")
    assert valid_credential(SECRET, "wdave", credential)
    assert not valid_credential(SECRET, "wdave2", credential)          # another name
    assert not valid_credential(SECRET + "!", "wdave", credential)     # another secret
    assert not valid_credential(None, "wdave", credential)             # a lobby that shares none
    assert not valid_credential(SECRET, "wdave", 42) and not valid_credential(SECRET, "wdave", "x" * 1000)


def test_a_held_seat_asks_the_proof_of_whoever_held_it() -> None:
    secret = new_secret()
    account, keen, plain = Proof(True, None, None), Proof.of(False, secret, "10.0.0.1"), Proof(False, None, "10.0.0.1")
    assert keen.secret == secret_digest(secret) and secret not in repr(keen)   # it keeps the digest only
    # an account's seat: its credential, from anywhere (the relay has no address of its own)
    assert account.admits(True, None, None) and not account.admits(False, secret, "10.0.0.1")
    # a seat handed a secret: the secret, from anywhere; never its name and address alone
    assert keen.admits(False, secret, "192.0.2.7") and not keen.admits(False, None, "10.0.0.1")
    assert not keen.admits(False, secret[:-1] + "?", "10.0.0.1") and not keen.admits(True, None, None)
    # a client of the specs: its own address only
    assert plain.admits(False, None, "10.0.0.1") and not plain.admits(False, None, "10.0.0.2")
    assert not plain.admits(False, None, None) and not Proof(False, None, None).admits(False, None, None)
    assert new_secret() != secret and len(secret) >= 32


def test_the_relay_secret_is_configured_long_enough() -> None:
    assert decode_lobby_config({"relaySecret": SECRET}).relay_secret == SECRET
    assert decode_lobby_config({}).relay_secret is None
    assert SECRET not in repr(decode_lobby_config({"relaySecret": SECRET}))   # never logged with the configuration
    with pytest.raises(WireError, match=r"\$\.relaySecret: expected a secret of at least 16 characters, got 5"):
        decode_lobby_config({"relaySecret": "short"})


def test_the_allowance_lets_a_burst_through_then_its_rate() -> None:
    allowance = Allowance()
    assert allowance.wait(CHECK_BURST, 0.0) == 0.0
    allowance.take(CHECK_BURST, 0.0)
    assert allowance.wait(256, 0.0) == pytest.approx(256 / CHECK_RATE)
    assert allowance.wait(256, 256 / CHECK_RATE) == 0.0   # refilled at its rate
    allowance.take(10 * CHECK_BURST, 10.0)   # a question beyond the burst costs the burst
    assert allowance.wait(1, 10.0) == pytest.approx(1 / CHECK_RATE)
