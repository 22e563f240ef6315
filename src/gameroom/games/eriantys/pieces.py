"""Eriantys pieces and constants (eriantys.md 2): colours, tower colours, phases, event
types, the constants per number of players, assistant steps and character cards.

Colours are plain ints 0..4 in ``Color`` order (GREEN, RED, YELLOW, PINK, BLUE) and
student collections are lists of five counts indexed by colour: the hot paths count and
compare, they never look students up by name.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["COLORS", "COLOR_INDEX", "TOWER_COLORS", "PHASES", "PLANNING", "ACTION_ONE", "ACTION_TWO",
           "ACTION_THREE", "EVENT_TYPES", "Constants", "constants", "steps_of", "base_cost",
           "CARD_NAMES", "CARD_STUDENTS", "CARD_INPUTS", "CARD_REMAINING", "STUDENTS_PER_COLOR",
           "BAG_PER_COLOR", "TABLE_CAPACITY", "ISLANDS", "BANK", "NO_ENTRY_TILES", "team_of"]

COLORS = ("GREEN", "RED", "YELLOW", "PINK", "BLUE")
COLOR_INDEX = {name: i for i, name in enumerate(COLORS)}
TOWER_COLORS = ("BLACK", "WHITE", "GREY")

PHASES = ("PLANNING_PHASE", "ACTION_PHASE_ONE", "ACTION_PHASE_TWO", "ACTION_PHASE_THREE")
PLANNING, ACTION_ONE, ACTION_TWO, ACTION_THREE = range(4)

EVENT_TYPES = ("PLAY_ASSISTANT_CARD", "MOVE_STUDENT_FROM_ENTRANCE_TO_ISLAND",
               "MOVE_STUDENT_FROM_ENTRANCE_TO_TABLE", "MOVE_MOTHER_NATURE", "CHOOSE_CLOUD",
               "ACTIVATE_CHARACTER_CARD", "MOVE_STUDENT_FROM_CARD_TO_ISLAND", "MOVE_STUDENT_FROM_CARD_TO_TABLE",
               "CHOOSE_COLOR", "CHOOSE_ISLAND", "SWAP_STUDENT_CARD_ENTRANCE", "SWAP_STUDENT_ENTRANCE_TABLE",
               "END_SELECTION")

STUDENTS_PER_COLOR = 26      # 130 students in all
BAG_PER_COLOR = 24           # the main bag; the other 2 per colour go to the islands
TABLE_CAPACITY = 10
ISLANDS = 12
BANK = 20
NO_ENTRY_TILES = 4
SETUP_ISLANDS = (1, 2, 3, 4, 5, 7, 8, 9, 10, 11)   # islands 0 and 6 stay empty (3.2)


@dataclass(frozen=True)
class Constants:
    """The table of 2.3 for one number of players."""

    players: int
    cloud_size: int        # students per cloud refill
    entrance: int          # students drawn into each entrance at setup
    moves: int             # students moved per turn (step 1)
    towers: int            # per team
    teams: int             # tower colours in play


_CONSTANTS = {
    2: Constants(2, 3, 7, 3, 8, 2),
    3: Constants(3, 4, 9, 4, 6, 3),
    4: Constants(4, 3, 7, 3, 8, 2),
}


def constants(players: int) -> Constants:
    return _CONSTANTS[players]


def team_of(seat: int, players: int) -> int:
    """The tower colour (team) of a seat (3.1): the seat with 3 players, else seat mod 2."""
    return seat if players == 3 else seat % 2


def steps_of(assistant: int) -> int:
    """Mother Nature steps of an assistant card (2.4): ceil(value / 2)."""
    return (assistant + 1) // 2


def base_cost(card: int) -> int:
    """Base price of a character card (2.5): id / 4 + 1."""
    return card // 4 + 1


CARD_NAMES = ("Monk", "Magic Mailman", "Jester", "Minstrel", "Farmer", "Grandma Herbs", "Knight",
              "Spoiled Princess", "Herald", "Centaur", "Mushroom Man", "Thief")
CARD_STUDENTS = {0: 4, 2: 6, 7: 4}   # students drawn onto the card at setup

# The input events a card accepts after its activation (4.3) and how many it takes:
# cards 2 and 3 take up to 3 / 2 swaps (or END_SELECTION), the others exactly one.
CARD_INPUTS: dict[int, tuple[str, ...]] = {
    0: ("MOVE_STUDENT_FROM_CARD_TO_ISLAND",),
    2: ("SWAP_STUDENT_CARD_ENTRANCE", "END_SELECTION"),
    3: ("SWAP_STUDENT_ENTRANCE_TABLE", "END_SELECTION"),
    5: ("CHOOSE_ISLAND",),
    7: ("MOVE_STUDENT_FROM_CARD_TO_TABLE",),
    8: ("CHOOSE_ISLAND",),
    10: ("CHOOSE_COLOR",),
    11: ("CHOOSE_COLOR",),
}
CARD_REMAINING = {0: 1, 2: 3, 3: 2, 5: 1, 7: 1, 8: 1, 10: 1, 11: 1}
