"""Eriantys rules as one event-driven function (eriantys.md 3, 4, 6.6).

:func:`step` takes ``(state, seat, event)`` — ``event`` being the ``GAME_EVENT`` object
of §6.3 with or without its ``type`` — and returns ``(state, broadcasts, reply)``: the new
state (the same object when the event is refused), the exact list of broadcast messages of
§6.6 and the reply to the sender (``ACK`` or ``NACK{errorMessage}``). It never changes the
state it was given, so a lobby can call it for events arriving one at a time from the
network. :func:`apply_event` is the same in place, for referees and benchmarks that own
their state. :func:`eject` applies the referee policy of §7.7 to a seat.

Every check of §4.2 (from check 3 on: the room checks 1-2 belong to the lobby) and of
table 4.3 is made in the listed order before anything changes.
"""

from __future__ import annotations

from typing import Any

from gameroom.games.eriantys.pieces import (ACTION_ONE, ACTION_THREE, ACTION_TWO, CARD_INPUTS, CARD_REMAINING,
                                            COLOR_INDEX, COLORS, EVENT_TYPES, PHASES, PLANNING, TABLE_CAPACITY)
from gameroom.games.eriantys.state import GameState, refill_clouds

__all__ = ["ACK", "nack", "step", "apply_event", "apply_checked", "check_event", "parse_event", "eject", "ranking",
           "winning_seats", "influence",
           "NOT_IN_ROOM"]

ACK: dict[str, Any] = {"type": "ACK"}
NOT_IN_ROOM = "Not yet in a room!"
INVALID = "Invalid event"
NOT_NOW = "this move is not allowed at this stage of the game"
NO_CARD_STUDENT = "the card doesn't have this student"
NO_ENTRANCE_STUDENT = "the player doesn't have this student in the entrance"
NO_TABLE_STUDENT = "the player doesn't have this student in the table"
NO_COLOR = "No student of this color are present"
TABLE_FULL = "No more students of this color can be added to this holder"

_STAGE = {
    PLANNING: frozenset({"PLAY_ASSISTANT_CARD"}),
    ACTION_ONE: frozenset({"MOVE_STUDENT_FROM_ENTRANCE_TO_ISLAND", "MOVE_STUDENT_FROM_ENTRANCE_TO_TABLE",
                           "ACTIVATE_CHARACTER_CARD"}),
    ACTION_TWO: frozenset({"MOVE_MOTHER_NATURE", "ACTIVATE_CHARACTER_CARD"}),
    ACTION_THREE: frozenset({"CHOOSE_CLOUD", "ACTIVATE_CHARACTER_CARD"}),
}
_PENDING = {card: frozenset(events) for card, events in CARD_INPUTS.items()}

# The fields of each event type and their kinds: "int" or "color" (4.2 check 3).
_FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
    "PLAY_ASSISTANT_CARD": (("assistantCard", "int"),),
    "MOVE_STUDENT_FROM_ENTRANCE_TO_ISLAND": (("color", "color"), ("islandIndex", "int")),
    "MOVE_STUDENT_FROM_ENTRANCE_TO_TABLE": (("color", "color"),),
    "MOVE_MOTHER_NATURE": (("amount", "int"),),
    "CHOOSE_CLOUD": (("cloudIndex", "int"),),
    "ACTIVATE_CHARACTER_CARD": (("cardId", "int"),),
    "MOVE_STUDENT_FROM_CARD_TO_ISLAND": (("color", "color"), ("islandIndex", "int")),
    "MOVE_STUDENT_FROM_CARD_TO_TABLE": (("color", "color"),),
    "CHOOSE_COLOR": (("color", "color"),),
    "CHOOSE_ISLAND": (("islandIndex", "int"),),
    "SWAP_STUDENT_CARD_ENTRANCE": (("studentFromCard", "color"), ("studentFromEntrance", "color")),
    "SWAP_STUDENT_ENTRANCE_TABLE": (("studentFromEntrance", "color"), ("studentFromTable", "color")),
    "END_SELECTION": (),
}
assert set(_FIELDS) == set(EVENT_TYPES)


def nack(text: str) -> dict[str, Any]:
    return {"type": "NACK", "errorMessage": text}


def parse_event(event: Any) -> tuple[str, list[int]] | None:
    """(event type, argument values in field order) of a well-formed event (4.2 check 3),
    else None."""
    if not isinstance(event, dict):
        return None
    kind: Any = event.get("eventType")
    if kind == "CHOOSE_CLOUD_TILE":   # the reference document's spelling (6.3.1)
        kind = "CHOOSE_CLOUD"
    fields = _FIELDS.get(kind) if isinstance(kind, str) else None
    if fields is None:
        return None
    if event.get("type", "GAME_EVENT") != "GAME_EVENT":
        return None
    number = event.get("playerNumber")
    if number is not None and (isinstance(number, bool) or not isinstance(number, int)):
        return None
    args: list[int] = []
    for name, what in fields:
        value = event.get(name)
        if what == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                return None
            args.append(value)
        else:
            color = COLOR_INDEX.get(value) if isinstance(value, str) else None
            if color is None:
                return None
            args.append(color)
    if kind == "PLAY_ASSISTANT_CARD" and not 1 <= args[0] <= 10:
        return None
    return kind, args


# -- checks ------------------------------------------------------------------------------

def check_event(s: GameState, seat: int, event: Any) -> tuple[str | None, tuple[str, list[int]] | None]:
    """The NACK text of the first failing check (4.2 from check 3, then table 4.3), or
    None with the parsed event when the event is legal."""
    if s.finished:
        return NOT_IN_ROOM, None   # after END_GAME the room no longer exists (6.6.8)
    parsed = parse_event(event)
    if parsed is None:
        return INVALID, None
    number = event.get("playerNumber")
    if number is not None and number != seat:
        return "Player number does not match your seat", None
    if s.suspended:
        return "The game is suspended", None
    if seat != s.current:
        return "It's not your turn", None
    kind, args = parsed
    if kind == "ACTIVATE_CHARACTER_CARD" and not s.expert:
        return "you cannot activate character cards in simple mode", None
    accepted = _PENDING[s.pending] if s.pending is not None else _STAGE[s.phase]
    if kind not in accepted:
        return NOT_NOW, None
    error = _CHECKS[kind](s, seat, args)
    return error, (parsed if error is None else None)


def accepted_now(s: GameState) -> frozenset[str]:
    """The event types the current situation accepts (table 4.3), for the current player."""
    return frozenset(_PENDING[s.pending] if s.pending is not None else _STAGE[s.phase])


def check_parsed(s: GameState, seat: int, kind: str, args: list[int]) -> str | None:
    """The event-specific checks of table 4.3 (check 9) for an event of an accepted type
    already parsed into ``args`` (:func:`parse_event`): the NACK text, or None."""
    return _CHECKS[kind](s, seat, args)


def _island_error(s: GameState, index: int, text: str | None = None) -> str | None:
    if 0 <= index < len(s.islands):
        return None
    return text or f"there is no island number {index}"


def _check_assistant(s: GameState, seat: int, args: list[int]) -> str | None:
    value = args[0]
    hand = s.hands[seat]
    if value not in hand:
        return "you already played this card"
    others = {s.played[p] for p in range(s.n) if p != seat and s.played[p] is not None}
    if value in others and not all(card in others for card in hand):
        return "You can't play this Assistant Card."
    return None


def _check_to_island(s: GameState, seat: int, args: list[int]) -> str | None:
    color, index = args
    return _island_error(s, index) or (None if s.entrance[seat][color] else NO_COLOR)


def _check_to_table(s: GameState, seat: int, args: list[int]) -> str | None:
    color = args[0]
    if not s.entrance[seat][color]:
        return NO_COLOR
    return TABLE_FULL if s.dining[seat][color] >= TABLE_CAPACITY else None


def _check_mother_nature(s: GameState, seat: int, args: list[int]) -> str | None:
    amount = args[0]
    limit = s.mother_nature_limit()
    if amount > limit:
        return f"you cannot move mother nature more than {limit}"
    return "Mother nature can only be moved forward" if amount < 1 else None


def _check_cloud(s: GameState, seat: int, args: list[int]) -> str | None:
    index = args[0]
    if not 0 <= index < len(s.clouds):
        return f"there is no cloud number {index}"
    return None if any(s.clouds[index]) else "This cloud was already empty"


def _usable_by(s: GameState, seat: int, card_id: int) -> bool:
    """Whether the mandatory input of a card is possible (3.6.2 precondition 6)."""
    card = s.card(card_id)
    if card_id == 5:
        return bool(card.no_entry)
    if card_id == 0:
        return any(card.students or ())
    if card_id == 7:
        dining = s.dining[seat]
        return any(card.students[c] and dining[c] < TABLE_CAPACITY for c in range(5))
    return True


def _check_activate(s: GameState, seat: int, args: list[int]) -> str | None:
    card = s.card(args[0])
    if card is None:
        return "This card is not present in the game"
    if s.activated is not None:
        return "You already activated a card"
    if s.coins[seat] < card.price:
        return "You don't have enough coins"
    if card.id == 5 and not card.no_entry:
        return "No more no entry tiles on this card"
    if card.id in (0, 7) and not _usable_by(s, seat, card.id):
        return "This card has no student that you can use"
    return None


def _check_card_to_island(s: GameState, seat: int, args: list[int]) -> str | None:
    color, index = args
    if not s.card(0).students[color]:
        return NO_CARD_STUDENT
    return _island_error(s, index)


def _check_card_to_table(s: GameState, seat: int, args: list[int]) -> str | None:
    color = args[0]
    if not s.card(7).students[color]:
        return NO_CARD_STUDENT
    return TABLE_FULL if s.dining[seat][color] >= TABLE_CAPACITY else None


def _check_choose_island(s: GameState, seat: int, args: list[int]) -> str | None:
    return _island_error(s, args[0], "this island doesn't exist" if s.pending == 8 else None)


def _check_nothing(s: GameState, seat: int, args: list[int]) -> str | None:
    return None


def _check_jester(s: GameState, seat: int, args: list[int]) -> str | None:
    from_card, from_entrance = args
    if not s.card(2).students[from_card]:
        return NO_CARD_STUDENT
    return None if s.entrance[seat][from_entrance] else NO_ENTRANCE_STUDENT


def _check_minstrel(s: GameState, seat: int, args: list[int]) -> str | None:
    from_entrance, from_table = args
    if not s.entrance[seat][from_entrance]:
        return NO_ENTRANCE_STUDENT
    if not s.dining[seat][from_table]:
        return NO_TABLE_STUDENT
    if from_entrance != from_table and s.dining[seat][from_entrance] >= TABLE_CAPACITY:
        return TABLE_FULL
    return None


_CHECKS = {
    "PLAY_ASSISTANT_CARD": _check_assistant,
    "MOVE_STUDENT_FROM_ENTRANCE_TO_ISLAND": _check_to_island,
    "MOVE_STUDENT_FROM_ENTRANCE_TO_TABLE": _check_to_table,
    "MOVE_MOTHER_NATURE": _check_mother_nature,
    "CHOOSE_CLOUD": _check_cloud,
    "ACTIVATE_CHARACTER_CARD": _check_activate,
    "MOVE_STUDENT_FROM_CARD_TO_ISLAND": _check_card_to_island,
    "MOVE_STUDENT_FROM_CARD_TO_TABLE": _check_card_to_table,
    "CHOOSE_COLOR": _check_nothing,
    "CHOOSE_ISLAND": _check_choose_island,
    "SWAP_STUDENT_CARD_ENTRANCE": _check_jester,
    "SWAP_STUDENT_ENTRANCE_TABLE": _check_minstrel,
    "END_SELECTION": _check_nothing,
}


# -- the step function ---------------------------------------------------------------------

def step(s: GameState, seat: int, event: Any) -> tuple[GameState, list[dict[str, Any]], dict[str, Any]]:
    """Validate ``event`` from ``seat``; when legal apply it to a copy of ``s``.

    Returns (new state, broadcasts in order, reply). A refused event returns ``s`` itself,
    no broadcasts and ``NACK``.
    """
    error, parsed = check_event(s, seat, event)
    if error is not None:
        return s, [], nack(error)
    new = s.copy()
    out: list[dict[str, Any]] = []
    _APPLY[parsed[0]](new, seat, parsed[1], out)
    return new, out, ACK


def apply_event(s: GameState, seat: int, event: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """:func:`step` in place: (broadcasts, reply); ``s`` changes only when the reply is ACK."""
    error, parsed = check_event(s, seat, event)
    if error is not None:
        return [], nack(error)
    return apply_checked(s, seat, parsed), ACK  # type: ignore[arg-type]


def apply_checked(s: GameState, seat: int, parsed: tuple[str, list[int]]) -> list[dict[str, Any]]:
    """Apply in place an event :func:`check_event` accepted (its parsed form); the broadcasts."""
    out: list[dict[str, Any]] = []
    _APPLY[parsed[0]](s, seat, parsed[1], out)
    return out


# -- professors and coins (3.5.2, 3.5.3) ---------------------------------------------------

def _professors(s: GameState, player: int, out: list[dict[str, Any]]) -> None:
    """Re-evaluate every professor for ``player`` whose dining room just changed."""
    mine = s.dining[player]
    farmer = s.activated == 4 and player == s.current
    for color in range(5):
        count = mine[color]
        if not count:
            continue
        owner = s.professors[color]
        if owner == player:
            continue
        if owner is None or s.dining[owner][color] < count or (farmer and s.dining[owner][color] == count):
            s.professors[color] = player
            out.append({"type": "SET_PROFESSOR_TO", "color": COLORS[color], "player": player})


def _enter_dining(s: GameState, player: int, color: int, out: list[dict[str, Any]]) -> None:
    s.dining[player][color] += 1
    _professors(s, player, out)
    if s.expert and s.dining[player][color] in (3, 6, 9) and s.bank > 0:
        s.bank -= 1
        s.coins[player] += 1
        out.append({"type": "ADD_COIN", "player": player})


def _leave_dining(s: GameState, player: int, color: int, out: list[dict[str, Any]]) -> None:
    s.dining[player][color] -= 1
    _professors(s, player, out)


# -- influence, towers, merges (3.5.4, 3.8.2, 3.8.3) ------------------------------------------

def influence(s: GameState, island_index: int, modifiers: bool = True) -> list[int]:
    """Influence of every team on an island, with this turn's card modifiers if ``modifiers``."""
    island = s.islands[island_index]
    teams = s.c.teams
    score = [0] * teams
    centaur = modifiers and s.activated == 9
    if island.team is not None and not centaur:
        score[island.team] += island.towers
    mushroom = s.mushroom if modifiers else None
    n = s.n
    for color in range(5):
        owner = s.professors[color]
        if owner is not None and color != mushroom:
            score[owner if n == 3 else owner % 2] += island.students[color]
    if modifiers and s.activated == 6:
        score[s.team(s.current)] += 2
    return score


def _winner(score: list[int]) -> int | None:
    best = max(score)
    return score.index(best) if score.count(best) == 1 else None


def _resolve(s: GameState, index: int, modifiers: bool, out: list[dict[str, Any]]) -> tuple[int, bool]:
    """Steps 2-4 of 3.5.4 on island ``index``: the tower-change block and the merges.
    Returns (island index after the merges, whether towers changed). Mother Nature stays
    on her island (recomputed by identity)."""
    winner = _winner(influence(s, index, modifiers))
    island = s.islands[index]
    if winner is None or island.team == winner:
        return index, False
    if island.towers == 0:
        out.append({"type": "MOVE_TOWERS", "from": f"PLAYER:{winner}", "to": f"ISLAND:{index}", "amount": 1})
        s.supply[winner] = max(0, s.supply[winner] - 1)
        island.towers, island.team = 1, winner
    else:
        t, loser = island.towers, island.team
        out.append({"type": "MOVE_TOWERS", "from": f"ISLAND:{index}", "to": f"PLAYER:{loser}", "amount": t})
        out.append({"type": "MOVE_TOWERS", "from": f"PLAYER:{winner}", "to": f"ISLAND:{index}", "amount": t})
        s.supply[loser] += t
        s.supply[winner] = max(0, s.supply[winner] - t)   # [FIX] clamped at 0 (11 #20)
        island.team = winner
    mother = s.islands[s.mother_nature]
    index = _merge(s, index, out)
    s.mother_nature = s.islands.index(mother) if mother in s.islands else index
    return index, True


def _absorb(s: GameState, p: int, other: int, out: list[dict[str, Any]]) -> None:
    keep, gone = s.islands[p], s.islands[other]
    for color in range(5):
        keep.students[color] += gone.students[color]
    keep.towers += gone.towers
    keep.no_entry += gone.no_entry
    out.append({"type": "MERGE_ISLANDS", "firstIslandIndex": p, "secondIslandIndex": other})
    del s.islands[other]


def _merge(s: GameState, p: int, out: list[dict[str, Any]]) -> int:
    """Merge island p with same-coloured neighbours, previous first (3.8.2)."""
    team = s.islands[p].team
    count = len(s.islands)
    prev = (p - 1 + count) % count
    if prev != p and s.islands[prev].team == team:
        _absorb(s, p, prev, out)
        if prev < p:
            p -= 1
    count = len(s.islands)
    nxt = (p + 1) % count
    if nxt != p and s.islands[nxt].team == team:
        _absorb(s, p, nxt, out)
        if nxt < p:
            p -= 1
    return p


def _ended_by_towers(s: GameState) -> bool:
    """3.7.1: a team placed its last tower, or 3 or fewer islands remain."""
    return 0 in s.supply or len(s.islands) <= 3


def ranking(s: GameState) -> list[str]:
    """Winners of 3.7.3 / 3.8.4 among the teams not eliminated: usernames in seat order."""
    return [s.usernames[seat] for seat in winning_seats(s)]


def winning_seats(s: GameState) -> list[int]:
    """The seats of the winners of 3.7.3 / 3.8.4 among the teams not eliminated, in order."""
    teams = [t for t in range(s.c.teams) if t not in s.eliminated]
    if not teams:
        return []
    best = min(s.supply[t] for t in teams)
    candidates = [t for t in teams if s.supply[t] == best]
    owned = {t: sum(1 for owner in s.professors if owner is not None and s.team(owner) == t) for t in candidates}
    most = max(owned.values())
    win = {t for t in candidates if owned[t] == most}
    return [seat for seat in range(s.n) if s.team(seat) in win]


def _end_game(s: GameState, out: list[dict[str, Any]]) -> None:
    s.finished = True
    s.winners = ranking(s)
    s.moves_left, s.activated, s.pending, s.remaining, s.mushroom = 0, None, None, 0, None
    out.append({"type": "END_GAME", "winners": list(s.winners)})


# -- turn and round sequencing (3.3, 6.6.2, 6.6.5) ---------------------------------------------

def _skipped(s: GameState, seat: int) -> bool:
    # An eliminated team's seats (7.7) and, in the lobby's resilience mode, a disconnected
    # seat (7.6 rule 3) have their turns skipped.
    return s.team(seat) in s.eliminated or not s.connected[seat]


def _begin_turn(s: GameState, seat: int, out: list[dict[str, Any]]) -> None:
    s.current = seat
    s.phase = ACTION_ONE
    s.moves_left = s.c.moves
    s.activated, s.pending, s.remaining, s.mushroom = None, None, 0, None
    out.append({"type": "CHANGE_TURN", "playingPlayer": seat})
    out.append({"type": "CHANGE_PHASE", "gamePhase": PHASES[ACTION_ONE]})


def _advance_planning(s: GameState, out: list[dict[str, Any]]) -> None:
    """After a card was played (or a seat skipped): the next planner, or the action phase."""
    order = s.planning_order
    for seat in order[order.index(s.current) + 1:]:
        if not _skipped(s, seat):
            s.current = seat
            out.append({"type": "CHANGE_TURN", "playingPlayer": seat})
            return
    position = {seat: i for i, seat in enumerate(order)}
    s.action_order = sorted((seat for seat in order if s.played[seat] is not None),
                            key=lambda seat: (s.played[seat], position[seat]))   # [FIX] ties: who played first
    for seat in s.action_order:
        if not _skipped(s, seat):
            _begin_turn(s, seat, out)
            return
    _end_round(s, out)   # nobody played a card


def _end_turn(s: GameState, out: list[dict[str, Any]]) -> None:
    """The cloud was taken (or the turn skipped): effects expire, the next turn or round."""
    s.activated, s.pending, s.remaining, s.mushroom, s.moves_left = None, None, 0, None, 0
    order = s.action_order
    for seat in order[order.index(s.current) + 1:]:
        if not _skipped(s, seat):
            _begin_turn(s, seat, out)
            return
    _end_round(s, out)


def _end_round(s: GameState, out: list[dict[str, Any]]) -> None:
    if s.bag_emptied or any(not hand for hand in s.hands):
        _end_game(s, out)
        return
    s.round += 1
    if s.action_order:
        first = s.action_order[0]
        s.planning_order = [(first + k) % s.n for k in range(s.n)]
    s.played = [None] * s.n
    s.phase = PLANNING
    s.current = next(seat for seat in s.planning_order if not _skipped(s, seat))
    out.append({"type": "CHANGE_TURN", "playingPlayer": s.current})
    out.extend(refill_clouds(s))
    out.append({"type": "CHANGE_PHASE", "gamePhase": PHASES[PLANNING]})


def _begin_step_three(s: GameState, out: list[dict[str, Any]]) -> None:
    s.phase = ACTION_THREE
    out.append({"type": "CHANGE_PHASE", "gamePhase": PHASES[ACTION_THREE]})
    if not any(any(cloud) for cloud in s.clouds):
        _end_turn(s, out)   # [FIX] nothing to take: the step is done at once (11 #12)


# -- applying each event type --------------------------------------------------------------

def _apply_assistant(s: GameState, seat: int, args: list[int], out: list[dict[str, Any]]) -> None:
    value = args[0]
    s.hands[seat].remove(value)
    s.played[seat] = value
    out.append({"type": "PLAY_ASSISTANT_CARD", "assistantCard": value, "player": seat})
    _advance_planning(s, out)


def _student_moved(s: GameState, out: list[dict[str, Any]]) -> None:
    s.moves_left -= 1
    if s.moves_left == 0:
        s.phase = ACTION_TWO
        out.append({"type": "CHANGE_PHASE", "gamePhase": PHASES[ACTION_TWO]})


def _apply_to_island(s: GameState, seat: int, args: list[int], out: list[dict[str, Any]]) -> None:
    color, index = args
    s.entrance[seat][color] -= 1
    s.islands[index].students[color] += 1
    out.append({"type": "MOVE_STUDENT", "from": f"ENTRANCE:{seat}", "to": f"ISLAND:{index}", "color": COLORS[color]})
    _student_moved(s, out)


def _apply_to_table(s: GameState, seat: int, args: list[int], out: list[dict[str, Any]]) -> None:
    color = args[0]
    s.entrance[seat][color] -= 1
    _enter_dining(s, seat, color, out)
    out.append({"type": "MOVE_STUDENT", "from": f"ENTRANCE:{seat}", "to": f"DININGROOM:{seat}",
                "color": COLORS[color]})
    _student_moved(s, out)


def _apply_mother_nature(s: GameState, seat: int, args: list[int], out: list[dict[str, Any]]) -> None:
    p = (s.mother_nature + args[0]) % len(s.islands)
    s.mother_nature = p
    island = s.islands[p]
    if island.no_entry:
        island.no_entry -= 1
        s.card(5).no_entry += 1   # [FIX] the tile returns to the card (11 #4)
        out.append({"type": "MOVE_MOTHER_NATURE", "position": p})
        out.append({"type": "NO_ENTRY", "add": False, "islandIndex": p})
    else:
        p, changed = _resolve(s, p, True, out)
        s.mother_nature = p
        out.append({"type": "MOVE_MOTHER_NATURE", "position": p})
        if changed and _ended_by_towers(s):
            _end_game(s, out)
            return
    _begin_step_three(s, out)


def _apply_cloud(s: GameState, seat: int, args: list[int], out: list[dict[str, Any]]) -> None:
    index = args[0]
    cloud = s.clouds[index]
    entrance = s.entrance[seat]
    where, to = f"CLOUD:{index}", f"ENTRANCE:{seat}"
    for color in range(5):
        for _ in range(cloud[color]):
            out.append({"type": "MOVE_STUDENT", "from": where, "to": to, "color": COLORS[color]})
        entrance[color] += cloud[color]
        cloud[color] = 0
    _end_turn(s, out)


def _apply_activate(s: GameState, seat: int, args: list[int], out: list[dict[str, Any]]) -> None:
    card = s.card(args[0])
    price = card.price
    s.coins[seat] -= price
    if card.used:
        s.bank += price
    else:   # one coin stays on the card; from now on it costs one more ([FIX] 11 #3)
        s.bank += price - 1
        card.used = True
        card.price += 1
    s.activated = card.id
    if card.id in CARD_REMAINING:
        s.pending, s.remaining = card.id, CARD_REMAINING[card.id]
    out.append({"type": "ACTIVATE_CHARACTER_CARD", "characterCardIndex": card.id, "player": seat})
    out.append({"type": "REMOVE_COIN", "player": seat, "amount": price})


def _input_done(s: GameState) -> None:
    s.remaining -= 1
    if s.remaining == 0:
        s.pending = None


def _draw_onto(s: GameState, card_id: int, out: list[dict[str, Any]]) -> None:
    assert s.bag is not None   # a state that plays cards has its bag
    color = s.draw(s.bag)
    if color is not None:
        s.card(card_id).students[color] += 1
        out.append({"type": "ADD_STUDENT_TO", "to": f"CARD:{card_id}", "color": COLORS[color]})


def _apply_monk(s: GameState, seat: int, args: list[int], out: list[dict[str, Any]]) -> None:
    color, index = args
    s.card(0).students[color] -= 1
    s.islands[index].students[color] += 1
    out.append({"type": "MOVE_STUDENT", "from": "CARD:0", "to": f"ISLAND:{index}", "color": COLORS[color]})
    _draw_onto(s, 0, out)
    _input_done(s)


def _apply_princess(s: GameState, seat: int, args: list[int], out: list[dict[str, Any]]) -> None:
    color = args[0]
    s.card(7).students[color] -= 1
    _enter_dining(s, seat, color, out)
    out.append({"type": "MOVE_STUDENT", "from": "CARD:7", "to": f"DININGROOM:{seat}", "color": COLORS[color]})
    _draw_onto(s, 7, out)
    _input_done(s)


def _apply_choose_island(s: GameState, seat: int, args: list[int], out: list[dict[str, Any]]) -> None:
    index = args[0]
    if s.pending == 5:
        s.islands[index].no_entry += 1
        s.card(5).no_entry -= 1
        out.append({"type": "NO_ENTRY", "add": True, "islandIndex": index})
        _input_done(s)
        return
    # Herald: resolve without modifiers, no-entry tiles ignored; Mother Nature stays put.
    before = s.mother_nature
    _input_done(s)
    _index, changed = _resolve(s, index, False, out)
    if s.mother_nature != before:
        out.append({"type": "MOVE_MOTHER_NATURE", "position": s.mother_nature})
    if changed and _ended_by_towers(s):
        _end_game(s, out)


def _apply_choose_color(s: GameState, seat: int, args: list[int], out: list[dict[str, Any]]) -> None:
    color = args[0]
    if s.pending == 10:
        s.mushroom = color
        _input_done(s)
        return
    _input_done(s)
    for player in range(s.n):   # Thief: up to 3 students of the colour back to the bag, seat by seat
        for _ in range(min(3, s.dining[player][color])):
            _leave_dining(s, player, color, out)
            s.bag[color] += 1
            out.append({"type": "MOVE_STUDENT", "from": f"DININGROOM:{player}", "to": "BAG",
                        "color": COLORS[color]})


def _apply_jester(s: GameState, seat: int, args: list[int], out: list[dict[str, Any]]) -> None:
    from_card, from_entrance = args
    card = s.card(2).students
    entrance = s.entrance[seat]
    entrance[from_entrance] -= 1
    card[from_entrance] += 1
    card[from_card] -= 1
    entrance[from_card] += 1
    out.append({"type": "MOVE_STUDENT", "from": f"ENTRANCE:{seat}", "to": "CARD:2", "color": COLORS[from_entrance]})
    out.append({"type": "MOVE_STUDENT", "from": "CARD:2", "to": f"ENTRANCE:{seat}", "color": COLORS[from_card]})
    _input_done(s)


def _apply_minstrel(s: GameState, seat: int, args: list[int], out: list[dict[str, Any]]) -> None:
    from_entrance, from_table = args
    if from_entrance != from_table:   # [FIX] a same-colour swap changes nothing (11 #39)
        s.entrance[seat][from_entrance] -= 1
        _enter_dining(s, seat, from_entrance, out)
        _leave_dining(s, seat, from_table, out)
        s.entrance[seat][from_table] += 1
    out.append({"type": "MOVE_STUDENT", "from": f"ENTRANCE:{seat}", "to": f"DININGROOM:{seat}",
                "color": COLORS[from_entrance]})
    out.append({"type": "MOVE_STUDENT", "from": f"DININGROOM:{seat}", "to": f"ENTRANCE:{seat}",
                "color": COLORS[from_table]})
    _input_done(s)


def _apply_end_selection(s: GameState, seat: int, args: list[int], out: list[dict[str, Any]]) -> None:
    s.pending, s.remaining = None, 0


_APPLY = {
    "PLAY_ASSISTANT_CARD": _apply_assistant,
    "MOVE_STUDENT_FROM_ENTRANCE_TO_ISLAND": _apply_to_island,
    "MOVE_STUDENT_FROM_ENTRANCE_TO_TABLE": _apply_to_table,
    "MOVE_MOTHER_NATURE": _apply_mother_nature,
    "CHOOSE_CLOUD": _apply_cloud,
    "ACTIVATE_CHARACTER_CARD": _apply_activate,
    "MOVE_STUDENT_FROM_CARD_TO_ISLAND": _apply_monk,
    "MOVE_STUDENT_FROM_CARD_TO_TABLE": _apply_princess,
    "CHOOSE_COLOR": _apply_choose_color,
    "CHOOSE_ISLAND": _apply_choose_island,
    "SWAP_STUDENT_CARD_ENTRANCE": _apply_jester,
    "SWAP_STUDENT_ENTRANCE_TABLE": _apply_minstrel,
    "END_SELECTION": _apply_end_selection,
}


# -- ejection (7.7) ------------------------------------------------------------------------

def eject(s: GameState, seat: int, reason: str) -> list[dict[str, Any]]:
    """Eject ``seat`` (reason ``EJECTED``, ``TIMEOUT`` or ``CONNECTION_LOST``) in place:
    its team is eliminated; the game ends when at most one team is left, otherwise a
    current seat of that team is skipped (7.6 rule 3). Returns the broadcasts."""
    if s.finished or s.ejected[seat]:
        return []
    s.ejected[seat] = True
    s.connected[seat] = False
    s.eliminated.add(s.team(seat))
    out: list[dict[str, Any]] = [{"type": "PLAYER_DISCONNECT", "username": s.usernames[seat],
                                  "roomClosed": False, "reason": reason}]
    if s.c.teams - len(s.eliminated) <= 1:
        _end_game(s, out)
    elif _skipped(s, s.current):
        if s.phase == PLANNING:
            _advance_planning(s, out)
        else:
            _end_turn(s, out)
    return out

