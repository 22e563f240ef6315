"""Bazaar's player interface as a declared protocol (spec §5, §6.2-§6.4).

Both remote proxies are derived from this table. The result codecs read replies the way
the reference server does (§6.3): ``request-pebble-or-trades`` takes ``false``, anything
unexpected and even bytes that are not JSON (``unreadable``) as "want pebble", and fails
only for a list of cards; ``request-cards`` fails for anything but a list of cards;
``setup`` and ``win`` must answer ``"void"``. Arguments are checked as the reference
client checks them (§6.4): a valid equations table, a TurnState whose ``active`` has
``cards``, a boolean.

The ``check`` functions hold local players to the types of §6.3 ("a first action that is
neither want-pebble nor a list of equations, or a purchase that is not a list of cards, is
a failure"); legality is the referee's business.
"""

from __future__ import annotations

from typing import Any

from gameroom.core.protocol import VOID, Codec, Method, WireProtocol
from gameroom.core.wire import WireError, describe, expect_bool
from gameroom.games.bazaar import codec
from gameroom.games.bazaar.pieces import Card, Equation
from gameroom.games.bazaar.rules import WANT_PEBBLE, FirstAction

__all__ = ["PROTOCOL", "check_first_action", "check_purchase", "read_first_action"]


def read_first_action(value: Any) -> FirstAction:
    """The reference server's reading of a first-action reply; a card list fails."""
    action = codec.read_first_action_reply(value)
    if action is None:
        raise WireError(f"a list of cards is not a first action: {describe(value)}")
    return action


def check_first_action(value: Any) -> FirstAction:
    """A local player's first action must be ``WANT_PEBBLE`` or a sequence of equations."""
    if value is WANT_PEBBLE:
        return WANT_PEBBLE
    if isinstance(value, (list, tuple)) and all(isinstance(e, Equation) for e in value):
        return tuple(value)
    raise WireError(f"request-pebble-or-trades must return false or a list of equations, got {value!r:.60}")


def check_purchase(value: Any) -> tuple[Card, ...]:
    """A local player's purchase must be a sequence of cards."""
    if isinstance(value, (list, tuple)) and all(isinstance(c, Card) for c in value):
        return tuple(value)
    raise WireError(f"request-cards must return a list of cards, got {value!r:.60}")


EQUATIONS = Codec(codec.encode_equations, codec.decode_equations, "*Equations")
TURN = Codec(codec.encode_turn_state, lambda v: codec.decode_turn_state(v, cards_required=True), "TurnState")
BOOLEAN = Codec(bool, expect_bool, "Boolean")
FIRST_ACTION = Codec(codec.encode_first_action, read_first_action, "false or *Exchanges")
PURCHASE = Codec(codec.encode_purchase, codec.read_purchase_reply, "*Cards")

PROTOCOL = WireProtocol("bazaar", (
    Method("setup", "setup", (EQUATIONS,), VOID),
    Method("request_pebble_or_trades", "request-pebble-or-trades", (TURN,), FIRST_ACTION,
           check=check_first_action, unreadable=lambda: WANT_PEBBLE),
    Method("request_cards", "request-cards", (TURN,), PURCHASE, check=check_purchase),
    Method("win", "win", (BOOLEAN,), VOID, final=True),
))
