"""Actor specifications: which reference player (and which misbehaviour) a test or a
client program runs (spec §6.1 Actor, §9.7-§9.10), with their JSON codecs.

Forms on the wire::

    [Name, Policy]                          a plain reference player
    [Name, Policy, Method]                  raises in Method every time (§9.7)
    [Name, Policy, "a cheat", Cheat]        cheats in Cheat's method (§9.8)
    [Name, Policy, Method, Count]           loops from the Count-th call of Method (§9.9)

Names are 1-20 ASCII letters or digits; the bonus client program accepts any string
(``lax_names``), and there the names ``nonSetup``, ``nonWin``, ``illTT`` and
``invTTBadString`` select broken wire behaviours (:class:`WireBehaviour`, §9.10).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Any, Sequence

from gameroom.core.wire import (
    WireError, describe, expect_choice, expect_int, expect_list, expect_str,
)
from gameroom.games.bazaar.strategies import Policy

A_CHEAT = "a cheat"
MAX_ACTORS = 6
MAX_COUNT = 7
NAME_PATTERN = re.compile(r"[a-zA-Z0-9]{1,20}")


class Method(Enum):
    """The player interface methods that cross the wire (and that actors misbehave in)."""

    SETUP = "setup"
    REQUEST_PEBBLE_OR_TRADES = "request-pebble-or-trades"
    REQUEST_CARDS = "request-cards"
    WIN = "win"


class Cheat(Enum):
    """The cheats of §9.8."""

    USE_NON_EXISTENT_EQUATION = "use-non-existent-equation"
    BANK_CANNOT_TRADE = "bank-cannot-trade"
    WALLET_CANNOT_TRADE = "wallet-cannot-trade"
    BUY_UNAVAILABLE_CARD = "buy-unavailable-card"
    WALLET_CANNOT_BUY_CARD = "wallet-cannot-buy-card"

    @property
    def method(self) -> Method:
        """The method in which the cheat happens."""
        if self in (Cheat.BUY_UNAVAILABLE_CARD, Cheat.WALLET_CANNOT_BUY_CARD):
            return Method.REQUEST_CARDS
        return Method.REQUEST_PEBBLE_OR_TRADES


class Special(Enum):
    """Bonus-test clients that are not players (§9.10)."""

    DIVERGE_BEFORE_SENDING = "AAdivergeBeforeSending"
    """Connects and never sends a name."""
    SEND_NAME_LOOP = "AAsendnameloop"
    """Sends its name, then never answers."""


class WireBehaviour(Enum):
    """Broken wire behaviours the bonus client selects by actor name (§9.10)."""

    NON_SETUP = "nonSetup"
    """Replies to ``setup`` with the bare text ``void`` (not JSON)."""
    NON_WIN = "nonWin"
    """Replies to ``win`` with the bare text ``void``."""
    ILL_TT = "illTT"
    """Request replies: 4095 spaces, the JSON reply minus its last character, a newline."""
    INV_TT_BAD_STRING = "invTTBadString"
    """Request replies made invalid: ``true`` for ``false``, a 3-element first equation,
    a first card's ``pebbles`` key renamed ``e``, ``[[["re"],["red"]]]`` for ``[]``."""


def valid_name(name: str) -> bool:
    """Is ``name`` a valid ActorName (1 to 20 ASCII letters or digits)?"""
    return isinstance(name, str) and NAME_PATTERN.fullmatch(name) is not None


@dataclass(frozen=True, slots=True)
class ActorSpec:
    """One actor: a reference player with a policy and at most one misbehaviour.

    ``method`` alone: raises in that method; ``method`` and ``count``: loops from the
    ``count``-th call of that method on; ``cheat``: cheats.
    """

    name: str
    policy: Policy = Policy.PURCHASE_POINTS
    method: Method | None = None
    count: int | None = None
    cheat: Cheat | None = None

    def __post_init__(self) -> None:
        if self.count is not None and (self.method is None or not 1 <= self.count <= MAX_COUNT):
            raise ValueError(f"a looping actor needs a method and a count in 1..{MAX_COUNT}")
        if self.cheat is not None and self.method is not None:
            raise ValueError("an actor cheats or fails in a method, not both")

    @property
    def kind(self) -> str:
        """``"plain"``, ``"exception"``, ``"loop"`` or ``"cheat"``."""
        if self.cheat is not None:
            return "cheat"
        if self.method is None:
            return "plain"
        return "exception" if self.count is None else "loop"

    @property
    def wire_behaviour(self) -> WireBehaviour | None:
        """The broken wire behaviour the *bonus* client gives this actor, if its name asks."""
        try:
            return WireBehaviour(self.name)
        except ValueError:
            return None


def decode_policy(value: Any, where: str = "$") -> Policy:
    return Policy(expect_choice(value, [p.value for p in Policy], where))


def encode_policy(policy: Policy) -> str:
    return policy.value


def decode_actor(value: Any, where: str = "$", *, lax_names: bool = False) -> ActorSpec:
    """An Actor; names must be valid ActorNames unless ``lax_names`` (any string)."""
    items = expect_list(value, where, 2, 4)
    name = expect_str(items[0], f"{where}[0]")
    if not lax_names and not valid_name(name):
        raise WireError(f"expected a name of 1 to 20 ASCII letters or digits, got {describe(name)}",
                        f"{where}[0]")
    policy = decode_policy(items[1], f"{where}[1]")
    if len(items) == 2:
        return ActorSpec(name, policy)
    if len(items) == 4 and items[2] == A_CHEAT:
        cheat = Cheat(expect_choice(items[3], [c.value for c in Cheat], f"{where}[3]"))
        return ActorSpec(name, policy, cheat=cheat)
    methods = [m.value for m in Method]
    if len(items) == 4:
        methods.append(A_CHEAT)
    method = Method(expect_choice(items[2], methods, f"{where}[2]"))
    if len(items) == 3:
        return ActorSpec(name, policy, method)
    count = expect_int(items[3], f"{where}[3]", 1, MAX_COUNT)
    return ActorSpec(name, policy, method, count)


def encode_actor(spec: ActorSpec) -> list[Any]:
    out: list[Any] = [spec.name, spec.policy.value]
    if spec.cheat is not None:
        out += [A_CHEAT, spec.cheat.value]
    elif spec.method is not None:
        out.append(spec.method.value)
        if spec.count is not None:
            out.append(spec.count)
    return out


def decode_actors(value: Any, where: str = "$", *, lax_names: bool = False) -> tuple[ActorSpec, ...]:
    """*Actors: at most 6 actors."""
    items = expect_list(value, where, 0, MAX_ACTORS)
    return tuple(decode_actor(v, f"{where}[{i}]", lax_names=lax_names) for i, v in enumerate(items))


def encode_actors(specs: Sequence[ActorSpec]) -> list[Any]:
    return [encode_actor(s) for s in specs]


def decode_specials(value: Any, where: str = "$") -> tuple[Special, ...]:
    """A list of Special clients."""
    items = expect_list(value, where)
    return tuple(Special(expect_choice(v, [s.value for s in Special], f"{where}[{i}]"))
                 for i, v in enumerate(items))


def encode_specials(specials: Sequence[Special]) -> list[str]:
    return [s.value for s in specials]


__all__ = [
    "A_CHEAT", "MAX_ACTORS", "MAX_COUNT", "NAME_PATTERN", "Method", "Cheat", "Special",
    "WireBehaviour", "valid_name", "ActorSpec", "decode_policy", "encode_policy", "decode_actor",
    "encode_actor", "decode_actors", "encode_actors", "decode_specials", "encode_specials",
]
