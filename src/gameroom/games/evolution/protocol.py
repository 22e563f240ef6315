"""The Evolution player interface (spec 5) declared for the core: three calls, their wire
names and codecs, and the checks that hold local players' answers to the wire's shapes.

``start(wateringHole, bag, boards, cards)`` (answer ignored), ``choose(before, after)`` ->
Action4, ``feedNext(bag, boards, cards, wateringHole, others)`` -> FeedingChoice.
"""

from __future__ import annotations

from typing import Any, Protocol

from gameroom.core.protocol import JSON, Codec, Greeting, Method, Positional
from gameroom.core.protocol import WireProtocol
from gameroom.core.wire import WireError, describe
from gameroom.games.evolution.actions import Action4
from gameroom.games.evolution.pieces import Card, Species
from gameroom.games.evolution.codec import (as_action4, as_feeding_choice, decode_action4, decode_boards,
                                           decode_cards, decode_feeding_choice, decode_lob, decode_natural,
                                           encode_action4, encode_boards, encode_cards, encode_feeding_choice)

__all__ = ["PlayerInterface", "PROTOCOL", "NATURAL", "BOARDS", "CARDS", "LOB", "ACTION4", "FEEDING_CHOICE"]


class PlayerInterface(Protocol):
    """What the dealer calls on an Evolution player."""

    def start(self, hole: int, bag: int, boards: list[Species], cards: list[Card]) -> None: ...

    def choose(self, before: list[list[Species]], after: list[list[Species]]) -> Action4: ...

    def feed_next(self, bag: int, boards: list[Species], cards: list[Card], hole: int,
                  others: list[list[Species]]) -> Any: ...


NATURAL: Codec[int] = Codec(lambda n: n, lambda v: decode_natural(v, "$"), "Natural")
BOARDS: Codec[list[Species]] = Codec(encode_boards, decode_boards, "Boards")
CARDS: Codec[list[Card]] = Codec(encode_cards, decode_cards, "Cards")
LOB: Codec[list[list[Species]]] = Codec(lambda lob: [encode_boards(b) for b in lob], decode_lob, "LOB")
ACTION4: Codec[Action4] = Codec(lambda a: encode_action4(a) if isinstance(a, Action4) else a, decode_action4,
                                "Action4")
"""Anything but an Action4 travels as it is, so a misbehaving client can send its bad answer."""
FEEDING_CHOICE: Codec[Any] = Codec(encode_feeding_choice, decode_feeding_choice, "FeedingChoice")

SIGNUP_ACK = "ok"


def _name_of(message: Any) -> str:
    if not isinstance(message, str):
        raise WireError(f"a sign-up is a JSON string, got {describe(message)}")
    return message


PROTOCOL = WireProtocol("evolution", (
    # start's answer is ignored (spec 3.3 step 1); remotely it is a one-way message (spec 6.3).
    Method("start", "start", (NATURAL, NATURAL, BOARDS, CARDS), JSON, one_way=True),
    Method("choose", "choose", (LOB, LOB), ACTION4, check=as_action4),
    Method("feed_next", "feedNext", (NATURAL, BOARDS, CARDS, NATURAL, LOB), FEEDING_CHOICE,
           check=as_feeding_choice),
), envelope=Positional(), greeting=Greeting(name_of=_name_of, ack=SIGNUP_ACK))
"""The three calls of spec 5 / 6.3: untagged messages told apart by length (start 4,
choose 2, feedNext 5), start one-way, and a sign-up string answered by "ok"."""
