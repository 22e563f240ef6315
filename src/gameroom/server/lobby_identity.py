"""Who a lobby connection is, beyond its name (docs/lobby.md, "Logging in" and "Coming
back"): the proof a held seat asks of whoever wants it back, the reconnect secret, and the
credential of a web room's account.

A person's seat is held when its connection is lost (and any seat's in resilience mode):
a name alone never takes it back, or anyone who typed that name within the grace got the
person's hand and its waiting call. The seat goes back to a new connection that proves
it is the one that left:

* **an account's credential**: the web room logs its people in with ``account``, an HMAC
  of the name under the secret the lobby and the web room share (``relaySecret``); a
  seat held for such a connection goes back to the next log-in with the credential (the
  web room's relay, the person's page reloaded);
* **the reconnect secret**: a client that logs in with ``"secret": true`` is handed a
  secret in the ``ACK``; a seat it held goes back to a log-in presenting it, from anywhere;
* **its address**: a client of the specs presents nothing (its log-in, rooms and games
  are the specs'); its seat goes back to a log-in under the same name from the same
  network address (IPv4, or the IPv6 /64) — never from another address. A connection
  through a relay address has no address of its own (every browser shares the relay's):
  it needs the credential.

The names of the web room's accounts are the accounts' own: once an account has logged in
through its credential, a log-in under its name without one is refused (``Username was
already taken``), and a connection that held the name without one before the account
came is let go when it is not playing (and as soon as its game ends otherwise).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Any

__all__ = ["Proof", "Held", "account_credential", "valid_credential", "new_secret", "secret_digest",
           "same_secret", "MIN_RELAY_SECRET", "MAX_SECRET"]

MIN_RELAY_SECRET = 16
"""The shortest ``relaySecret`` the lobby takes (characters)."""
MAX_SECRET = 128
"""The longest reconnect secret or credential a log-in may present (characters)."""
_LABEL = b"gameroom lobby account\0"


def account_credential(secret: str, username: str) -> str:
    """The credential of the web room's account ``username`` under the shared ``secret``:
    what the relay presents as ``LOGIN``'s ``account`` (hex HMAC-SHA256)."""
    return hmac.new(secret.encode("utf-8"), _LABEL + username.encode("utf-8", "surrogatepass"),
                    hashlib.sha256).hexdigest()


def valid_credential(secret: str | None, username: str, credential: Any) -> bool:
    """Whether ``credential`` is the account credential of ``username`` (compared in
    constant time); never without a configured ``secret``."""
    if secret is None or not isinstance(credential, str) or len(credential) > MAX_SECRET:
        return False
    return hmac.compare_digest(account_credential(secret, username).encode(), credential.encode("utf-8", "replace"))


def new_secret() -> str:
    """A reconnect secret: 192 random bits, URL-safe."""
    return secrets.token_urlsafe(24)


_DIGEST_LABEL = b"gameroom seat secret\0"


def secret_digest(secret: str) -> str:
    """What is kept of a seat's secret (a reconnect secret, a web match seat's token) where
    it outlives the connection that was handed it (the journal): its SHA-256, labelled so
    that it is no digest of anything else (hex). The secrets are 96 to 192 random bits:
    the digest gives nothing of them back, and no key kept beside it would add anything."""
    return hashlib.sha256(_DIGEST_LABEL + secret.encode("utf-8", "surrogatepass")).hexdigest()


def same_secret(digest: str, given: Any) -> bool:
    """Whether ``given`` (what a client presents) is the secret whose :func:`secret_digest`
    is ``digest`` (compared in constant time)."""
    if not isinstance(given, str) or len(given) > MAX_SECRET:
        return False
    return hmac.compare_digest(secret_digest(given).encode(), digest.encode("utf-8", "replace"))


@dataclass(frozen=True)
class Proof:
    """What the connection that held a seat could prove: that it logged in with its
    account's credential, the reconnect secret it was handed (kept as its
    :func:`secret_digest` only: the journal writes what a proof holds), its network
    address."""

    account: bool
    secret: str | None   # the digest of the reconnect secret
    address: str | None

    @classmethod
    def of(cls, account: bool, secret: str | None, address: str | None) -> "Proof":
        """The proof of a connection handed ``secret`` (None: none)."""
        return cls(account, None if secret is None else secret_digest(secret), address)

    def admits(self, account: bool, secret: str | None, address: str | None) -> bool:
        """Whether a new log-in (with a valid credential or not, the secret it presents,
        its address) proves to be the connection that held the seat: the credential for
        an account's seat; else the secret, when one was handed out; else the same
        address (None: a relayed connection, which has none of its own)."""
        if self.account:
            return account
        if self.secret is not None:
            return same_secret(self.secret, secret)
        return self.address is not None and self.address == address


@dataclass
class Held:
    """A seat held for its lost connection: the room and seat, the grace's timer, the name
    as it logged in, the seat's settings (``person``, ``views``, ``pictures``) and what
    must be proved to take it back."""

    room: Any
    seat: int
    timer: asyncio.TimerHandle
    name: str
    settings: tuple[bool, bool, bool]
    proof: Proof
    restored: bool = False   # held since the lobby started again (server.journal): its game saw no departure
