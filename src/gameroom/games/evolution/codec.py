"""Evolution's JSON (spec 6.2, 10.1): species, cards, players and configurations of the
harnesses, Action4 in wire and harness form, feeding choices.

Decoders are strict as the reference's readers are (key order, ranges, food <= population)
and raise :class:`gameroom.core.wire.WireError` with a JSON path. Writers follow the
reference: ``fat-food`` only for a fat-tissue species with fat food > 0, ``cards`` only for
a player with a non-empty hand.
"""

from __future__ import annotations

from typing import Any, Sequence

from gameroom.core.wire import WireError, describe, expect_list
from gameroom.games.evolution.actions import Action4
from gameroom.games.evolution.pieces import (CARD_SET, FAT_TISSUE, MAX_BODY, MAX_POPULATION, MAX_TRAITS,
                                             TRAIT_SET, Card, Species)
from gameroom.games.evolution.rules import PlayerState, Table

__all__ = ["encode_species", "decode_species", "encode_boards", "decode_boards", "decode_lob",
           "encode_card", "decode_card", "encode_cards", "decode_cards", "encode_player", "decode_player",
           "encode_configuration", "decode_configuration", "decode_action4", "encode_action4",
           "encode_harness_action4", "as_action4", "decode_feeding_choice", "encode_feeding_choice",
           "as_feeding_choice", "decode_natural"]


def decode_natural(value: Any, where: str, high: int | None = None, low: int = 0) -> int:
    """A JSON integer (``1.0`` is not one) within ``low .. high``."""
    if type(value) is not int:
        raise WireError(f"expected a natural number, got {describe(value)}", where)
    if value < low or (high is not None and value > high):
        bound = f"{low}..{high}" if high is not None else f">= {low}"
        raise WireError(f"expected a number in {bound}, got {value}", where)
    return value


def _field(value: Any, key: str, where: str) -> Any:
    if not (isinstance(value, list) and len(value) == 2 and value[0] == key):
        raise WireError(f'expected ["{key}", ...], got {describe(value)}', where)
    return value[1]


# -- species -------------------------------------------------------------------------------

def encode_species(s: Species) -> list:
    out = [["food", s.food], ["body", s.body], ["population", s.population], ["traits", list(s.traits)]]
    if s.fat > 0 and FAT_TISSUE in s.traits:
        out.append(["fat-food", s.fat])
    return out


def decode_traits(value: Any, where: str) -> list[str]:
    items = expect_list(value, where, 0, MAX_TRAITS)
    for i, t in enumerate(items):
        if not isinstance(t, str) or t not in TRAIT_SET:
            raise WireError(f"expected a trait, got {describe(t)}", f"{where}[{i}]")
    if len(set(items)) != len(items):
        raise WireError(f"traits must be distinct, got {describe(items)}", where)
    return list(items)


def decode_species(value: Any, where: str = "$") -> Species:
    items = expect_list(value, where, 4, 5)
    food = decode_natural(_field(items[0], "food", f"{where}[0]"), f"{where}[0][1]", MAX_POPULATION)
    body = decode_natural(_field(items[1], "body", f"{where}[1]"), f"{where}[1][1]", MAX_BODY)
    population = decode_natural(_field(items[2], "population", f"{where}[2]"), f"{where}[2][1]", MAX_POPULATION)
    traits = decode_traits(_field(items[3], "traits", f"{where}[3]"), f"{where}[3][1]")
    if food > population:
        raise WireError(f"food {food} exceeds population {population}", where)
    fat = 0
    if len(items) == 5:
        fat = decode_natural(_field(items[4], "fat-food", f"{where}[4]"), f"{where}[4][1]", MAX_BODY)
    return Species(food, body, population, traits, fat)


def encode_boards(boards: Sequence[Species]) -> list:
    return [encode_species(s) for s in boards]


def decode_boards(value: Any, where: str = "$") -> list[Species]:
    return [decode_species(s, f"{where}[{i}]") for i, s in enumerate(expect_list(value, where))]


def decode_lob(value: Any, where: str = "$") -> list[list[Species]]:
    return [decode_boards(b, f"{where}[{i}]") for i, b in enumerate(expect_list(value, where))]


# -- cards ---------------------------------------------------------------------------------

def encode_card(card: Card) -> list:
    return [card[0], card[1]]


def decode_card(value: Any, where: str = "$") -> Card:
    items = expect_list(value, where, 2, 2)
    card = (items[0], items[1])
    if type(items[0]) is not int or not isinstance(items[1], str) or card not in CARD_SET:
        raise WireError(f"expected one of the 122 cards, got {describe(value)}", where)
    return card


def encode_cards(cards: Sequence[Card]) -> list:
    return [[v, t] for v, t in cards]


def decode_cards(value: Any, where: str = "$") -> list[Card]:
    return [decode_card(c, f"{where}[{i}]") for i, c in enumerate(expect_list(value, where))]


# -- harness players and configurations (spec 10.1) ----------------------------------------

def encode_player(p: PlayerState) -> list:
    out = [["id", p.id], ["species", encode_boards(p.boards)], ["bag", p.bag]]
    if p.cards:
        out.append(["cards", encode_cards(p.cards)])
    return out


def decode_player(value: Any, where: str = "$") -> PlayerState:
    items = expect_list(value, where, 3, 4)
    pid = _field(items[0], "id", f"{where}[0]")
    if not ((type(pid) is int and pid >= 1) or isinstance(pid, str)):
        raise WireError(f"expected an id (a natural >= 1 or a string), got {describe(pid)}", f"{where}[0][1]")
    boards = decode_boards(_field(items[1], "species", f"{where}[1]"), f"{where}[1][1]")
    bag = decode_natural(_field(items[2], "bag", f"{where}[2]"), f"{where}[2][1]")
    cards = decode_cards(_field(items[3], "cards", f"{where}[3]"), f"{where}[3][1]") if len(items) == 4 else []
    return PlayerState(pid, boards, bag, cards)


def decode_players(value: Any, where: str = "$") -> list[PlayerState]:
    return [decode_player(p, f"{where}[{i}]") for i, p in enumerate(expect_list(value, where))]


def encode_configuration(table: Table) -> list:
    return [[encode_player(p) for p in table.players], table.hole, encode_cards(table.deck)]


def decode_configuration(value: Any, where: str = "$") -> tuple[list[PlayerState], int, list[Card]]:
    items = expect_list(value, where, 3, 3)
    return (decode_players(items[0], f"{where}[0]"), decode_natural(items[1], f"{where}[1]"),
            decode_cards(items[2], f"{where}[2]"))


# -- Action4 -------------------------------------------------------------------------------

def _naturals(value: Any, where: str, low: int, high: int, tag: str | None = None) -> tuple[int, ...]:
    items = expect_list(value, where)
    if tag is not None:
        if not items or items[0] != tag:
            raise WireError(f'expected ["{tag}", board, card], got {describe(value)}', where)
        items = items[1:]
    if not low <= len(items) <= high:
        raise WireError(f"expected {low}..{high} naturals, got {describe(value)}", where)
    return tuple(decode_natural(n, f"{where}[{i}]") for i, n in enumerate(items))


def decode_action4(value: Any, where: str = "$", tagged: bool = False) -> Action4:
    """An Action4 in wire form, or in the harness form with tagged GP/GB (spec 6.2, 10.1)."""
    items = expect_list(value, where, 5, 5)
    food = decode_natural(items[0], f"{where}[0]")

    def parts(i: int, low: int, high: int, tag: str | None = None) -> tuple:
        return tuple(_naturals(x, f"{where}[{i}][{j}]", low, high, tag)
                     for j, x in enumerate(expect_list(items[i], f"{where}[{i}]")))

    return Action4(food, parts(1, 2, 2, "population" if tagged else None),
                   parts(2, 2, 2, "body" if tagged else None), parts(3, 1, 4), parts(4, 3, 3))


def encode_action4(action: Action4) -> list:
    return action.to_wire()


def encode_harness_action4(action: Action4) -> list:
    return [action.food, [["population", b, c] for b, c in action.grow_population],
            [["body", b, c] for b, c in action.grow_body], [list(x) for x in action.boards],
            [list(x) for x in action.replace]]


def as_action4(value: Any) -> Action4:
    """A player's ``choose`` result as an Action4 (an Action4 already, or its wire form)."""
    if isinstance(value, Action4):
        return value
    if isinstance(value, tuple):
        value = list(value)
    return decode_action4(value)


# -- feeding choices -----------------------------------------------------------------------

def decode_feeding_choice(value: Any, where: str = "$") -> Any:
    """``false`` | ``i`` | ``[i, n]`` (n >= 1) | ``[c, k, a]`` as False, an int or a tuple."""
    if value is False:
        return False
    if type(value) is int:
        return decode_natural(value, where)
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return (decode_natural(value[0], f"{where}[0]"), decode_natural(value[1], f"{where}[1]", low=1))
    if isinstance(value, (list, tuple)) and len(value) == 3:
        return tuple(decode_natural(n, f"{where}[{i}]") for i, n in enumerate(value))
    raise WireError(f"expected a feeding choice (false, i, [i, n] or [c, k, a]), got {describe(value)}", where)


def encode_feeding_choice(choice: Any) -> Any:
    return list(choice) if isinstance(choice, tuple) else choice


def as_feeding_choice(value: Any) -> Any:
    """A player's ``feedNext`` result as a feeding choice (tuples for pairs and triples)."""
    if isinstance(value, tuple) and all(type(n) is int for n in value):
        if len(value) == 3 or (len(value) == 2 and value[1] >= 1):
            if all(n >= 0 for n in value):
                return value
    return decode_feeding_choice(value)
