"""Eriantys rules from the spec, seen as a player sees them: replies, broadcasts, winners.

Covers the order of checks (4.2-4.3), assistants and the [FIX]es 1-2, Mother Nature,
influence, towers and merges, professors and coins ([FIX] 16), clouds, the bag running
out ([FIX] 11-12), end of game and ranking ([FIX] 13-15), 4-player teams and ejection (7.7).
"""

from __future__ import annotations

import pytest

from gameroom.games.eriantys.rules import eject, step
from gameroom.games.eriantys.state import snapshot
from tests.games.eriantys.helpers import ACK, Table, counts, fill, in_action, nack

EV = "PLAY_ASSISTANT_CARD"


# -- 4.2 order of checks ------------------------------------------------------------------

@pytest.mark.parametrize("event", [
    {"eventType": "FLY"}, {}, {"eventType": EV}, {"eventType": EV, "assistantCard": 11},
    {"eventType": EV, "assistantCard": "4"}, {"eventType": EV, "assistantCard": True},
    {"eventType": "MOVE_STUDENT_FROM_ENTRANCE_TO_TABLE", "color": "PURPLE"},
    {"eventType": "CHOOSE_COLOR"}, {"eventType": EV, "assistantCard": 4, "playerNumber": "0"},
    {"type": "LOGIN", "eventType": EV, "assistantCard": 4}, ["PLAY_ASSISTANT_CARD"],
])
def test_malformed_events_are_invalid_first(event) -> None:
    table = Table(2)
    # check 3 comes before the seat and turn checks: seat 1 is not the current player
    assert step(table.state, 1, event)[2] == nack("Invalid event")


def test_checks_come_in_the_order_of_4_2() -> None:
    table = Table(2, first=0)
    assert table.send(1, EV, assistantCard=4, playerNumber=0) == [nack("Player number does not match your seat")]
    assert table.send(1, EV, assistantCard=4) == [nack("It's not your turn")]
    assert table.send(0, "ACTIVATE_CHARACTER_CARD", cardId=1) == [
        nack("you cannot activate character cards in simple mode")]
    assert table.send(0, "MOVE_MOTHER_NATURE", amount=1) == [nack("this move is not allowed at this stage of the game")]
    assert table.send(0, EV, assistantCard=4, playerNumber=0)[-1] == ACK   # the right seat number is fine


def test_expert_activation_outside_the_action_phase_is_not_allowed() -> None:
    table = Table(2, True, first=0, cards=[1, 4, 6])
    assert table.send(0, "ACTIVATE_CHARACTER_CARD", cardId=1) == [
        nack("this move is not allowed at this stage of the game")]


def test_choose_cloud_tile_is_a_synonym() -> None:
    table = in_action()
    for color in "GREEN RED YELLOW PINK BLUE".split():
        while table.state.phase == 1 and table.snap["players"][0]["entrance"][color]:
            table.ok(0, "MOVE_STUDENT_FROM_ENTRANCE_TO_ISLAND", color=color, islandIndex=3)
    table.ok(0, "MOVE_MOTHER_NATURE", amount=1)
    assert table.send(0, "CHOOSE_CLOUD_TILE", cloudIndex=5) == [nack("there is no cloud number 5")]
    assert table.send(0, "CHOOSE_CLOUD_TILE", cloudIndex=0)[-1] == ACK
    assert table.send(1, "MOVE_STUDENT_FROM_ENTRANCE_TO_ISLAND", color="GREEN", islandIndex=12) == [
        nack("there is no island number 12")]


# -- assistants ---------------------------------------------------------------------------

def test_assistant_already_played_is_refused() -> None:
    table = Table(2, first=0)
    table.arrange(lambda s: s.hands[0].remove(7))
    assert table.send(0, EV, assistantCard=7) == [nack("you already played this card")]


def test_fix_1_and_2_a_duplicate_when_there_is_no_choice_and_the_earlier_player_goes_first() -> None:
    table = Table(3, first=0)

    def hands(s) -> None:
        s.hands[2] = [3, 4]
    table.arrange(hands)
    table.ok(0, EV, assistantCard=3)
    table.ok(1, EV, assistantCard=4)
    # seat 2 holds two cards, both already played: any of them is legal ([FIX] 11 #1)
    out = table.send(2, EV, assistantCard=3)
    assert out == [{"type": "PLAY_ASSISTANT_CARD", "assistantCard": 3, "player": 2},
                   {"type": "CHANGE_TURN", "playingPlayer": 0},
                   {"type": "CHANGE_PHASE", "gamePhase": "ACTION_PHASE_ONE"}, ACK]
    assert table.snap["actionOrder"] == [0, 2, 1]   # [FIX] 11 #2: the earlier 3 first


def test_a_duplicate_with_an_alternative_is_refused() -> None:
    table = Table(3, first=1)
    table.arrange(lambda s: s.hands[0].__setitem__(slice(None), [3, 4, 5]))
    table.ok(1, EV, assistantCard=3)
    table.ok(2, EV, assistantCard=4)
    assert table.send(0, EV, assistantCard=3) == [nack("You can't play this Assistant Card.")]
    assert table.send(0, EV, assistantCard=4) == [nack("You can't play this Assistant Card.")]
    assert table.ok(0, EV, assistantCard=5)[0]["assistantCard"] == 5
    assert table.snap["actionOrder"] == [1, 2, 0]


def test_planning_order_of_the_next_round_starts_with_the_lowest_card() -> None:
    table = in_action(3, values=(9, 2, 5))
    assert table.snap["actionOrder"] == [1, 2, 0]
    out = play_out_round(table)
    # 11 #32: from round 2 on the new planner is announced before the cloud refill
    turn = next(i for i, m in enumerate(out) if m["type"] == "CHANGE_TURN")
    assert out[turn] == {"type": "CHANGE_TURN", "playingPlayer": 1}
    assert {m["type"] for m in out[turn + 1:-1]} == {"ADD_STUDENT_TO"} and len(out[turn + 1:-1]) == 12
    assert out[-1] == {"type": "CHANGE_PHASE", "gamePhase": "PLANNING_PHASE"}
    snap = table.snap
    assert snap["round"] == 2 and snap["planningOrder"] == [1, 2, 0] and snap["currentPlayer"] == 1
    assert snap["actionOrder"] == [1, 2, 0]   # still the previous round's during planning


def play_out_round(table: Table) -> list[dict]:
    """Every remaining turn of the round the simplest way; the broadcasts of the last event."""
    out: list[dict] = []
    start = table.state.round
    while table.state.round == start and not table.state.finished:
        s = table.state
        seat = s.current
        if s.phase == 1:
            color = next(c for c, k in zip("GREEN RED YELLOW PINK BLUE".split(), s.entrance[seat]) if k)
            out = table.ok(seat, "MOVE_STUDENT_FROM_ENTRANCE_TO_ISLAND", color=color, islandIndex=0)
        elif s.phase == 2:
            out = table.ok(seat, "MOVE_MOTHER_NATURE", amount=1)
        elif s.phase == 3:
            out = table.ok(seat, "CHOOSE_CLOUD", cloudIndex=next(i for i, c in enumerate(s.clouds) if any(c)))
        else:
            raise AssertionError("planning reached")
    return out


# -- student moves, professors, coins ---------------------------------------------------------

def test_student_moves_are_checked() -> None:
    table = in_action()
    table.arrange(lambda s: (fill(s, s.entrance[0], "GREEN GREEN RED RED RED BLUE BLUE"),
                             fill(s, s.dining[0], " ".join(["RED"] * 10))))
    assert table.send(0, "MOVE_STUDENT_FROM_ENTRANCE_TO_TABLE", color="PINK") == [
        nack("No student of this color are present")]
    assert table.send(0, "MOVE_STUDENT_FROM_ENTRANCE_TO_TABLE", color="RED") == [
        nack("No more students of this color can be added to this holder")]
    assert table.send(0, "MOVE_STUDENT_FROM_ENTRANCE_TO_ISLAND", color="PINK", islandIndex=-1) == [
        nack("there is no island number -1")]
    assert table.send(0, "MOVE_STUDENT_FROM_ENTRANCE_TO_ISLAND", color="PINK", islandIndex=2) == [
        nack("No student of this color are present")]


def test_professor_needs_strictly_more_students() -> None:
    table = in_action()
    table.arrange(lambda s: (fill(s, s.entrance[0], "GREEN GREEN RED RED RED BLUE BLUE"),
                             fill(s, s.dining[0], "RED"), fill(s, s.dining[1], "RED RED"),
                             s.professors.__setitem__(1, 1)))
    assert table.ok(0, "MOVE_STUDENT_FROM_ENTRANCE_TO_TABLE", color="RED") == [
        {"type": "MOVE_STUDENT", "from": "ENTRANCE:0", "to": "DININGROOM:0", "color": "RED"}]
    assert table.ok(0, "MOVE_STUDENT_FROM_ENTRANCE_TO_TABLE", color="RED") == [
        {"type": "SET_PROFESSOR_TO", "color": "RED", "player": 0},
        {"type": "MOVE_STUDENT", "from": "ENTRANCE:0", "to": "DININGROOM:0", "color": "RED"}]


def test_fix_16_coins_in_expert_mode_only_and_within_the_bank() -> None:
    table = in_action(2, True, cards=[1, 4, 6])
    table.arrange(lambda s: (fill(s, s.entrance[0], "GREEN GREEN RED RED RED BLUE BLUE"),
                             fill(s, s.dining[0], "RED RED")))
    assert table.ok(0, "MOVE_STUDENT_FROM_ENTRANCE_TO_TABLE", color="RED") == [
        {"type": "SET_PROFESSOR_TO", "color": "RED", "player": 0}, {"type": "ADD_COIN", "player": 0},
        {"type": "MOVE_STUDENT", "from": "ENTRANCE:0", "to": "DININGROOM:0", "color": "RED"}]
    assert table.snap["bank"] == 17 and table.snap["players"][0]["coins"] == 2

    def empty_bank(s) -> None:
        s.coins[1] += s.bank
        s.bank = 0
        fill(s, s.dining[0], "RED RED RED RED RED")
    table.arrange(empty_bank)
    assert table.ok(0, "MOVE_STUDENT_FROM_ENTRANCE_TO_TABLE", color="RED") == [
        {"type": "MOVE_STUDENT", "from": "ENTRANCE:0", "to": "DININGROOM:0", "color": "RED"}]
    simple = in_action(2, False)
    simple.arrange(lambda s: (fill(s, s.entrance[0], "GREEN GREEN RED RED RED BLUE BLUE"),
                              fill(s, s.dining[0], "RED RED")))
    out = simple.ok(0, "MOVE_STUDENT_FROM_ENTRANCE_TO_TABLE", color="RED")
    assert all(m["type"] != "ADD_COIN" for m in out)
    assert simple.snap["bank"] is None and simple.snap["players"][0]["coins"] is None


# -- Mother Nature, towers, merges ---------------------------------------------------------------

def to_step_two(table: Table, seat: int = 0, island: int = 0) -> None:
    while table.state.phase == 1:
        color = next(c for c, k in zip("GREEN RED YELLOW PINK BLUE".split(), table.state.entrance[seat]) if k)
        table.ok(seat, "MOVE_STUDENT_FROM_ENTRANCE_TO_ISLAND", color=color, islandIndex=island)


def test_mother_nature_must_move_forward_within_the_limit() -> None:
    table = in_action(values=(3, 4))
    to_step_two(table)
    assert table.send(0, "MOVE_MOTHER_NATURE", amount=3) == [nack("you cannot move mother nature more than 2")]
    assert table.send(0, "MOVE_MOTHER_NATURE", amount=0) == [nack("Mother nature can only be moved forward")]
    assert table.send(0, "MOVE_MOTHER_NATURE", amount=-2) == [nack("Mother nature can only be moved forward")]


def test_no_influence_winner_on_a_tie_changes_nothing() -> None:
    table = in_action()
    to_step_two(table, island=5)

    def tie(s) -> None:
        fill(s, s.islands[1].students, "GREEN RED")
        s.professors[0], s.professors[1] = 0, 1
    table.arrange(tie)
    assert table.ok(0, "MOVE_MOTHER_NATURE", amount=1) == [
        {"type": "MOVE_MOTHER_NATURE", "position": 1}, {"type": "CHANGE_PHASE", "gamePhase": "ACTION_PHASE_THREE"}]


def test_conquest_replaces_towers_and_merges_previous_then_next() -> None:
    table = in_action()
    to_step_two(table, island=6)

    def board(s) -> None:
        for i in (0, 2):
            s.islands[i].towers, s.islands[i].team = 1, 0
        s.islands[1].towers, s.islands[1].team = 1, 1
        s.supply[0], s.supply[1] = 6, 7
        fill(s, s.islands[1].students, "BLUE BLUE")
        s.professors[4] = 0
    table.arrange(board)
    assert table.ok(0, "MOVE_MOTHER_NATURE", amount=1) == [
        {"type": "MOVE_TOWERS", "from": "ISLAND:1", "to": "PLAYER:1", "amount": 1},
        {"type": "MOVE_TOWERS", "from": "PLAYER:0", "to": "ISLAND:1", "amount": 1},
        {"type": "MERGE_ISLANDS", "firstIslandIndex": 1, "secondIslandIndex": 0},
        {"type": "MERGE_ISLANDS", "firstIslandIndex": 0, "secondIslandIndex": 1},
        {"type": "MOVE_MOTHER_NATURE", "position": 0},
        {"type": "CHANGE_PHASE", "gamePhase": "ACTION_PHASE_THREE"}]
    snap = table.snap
    assert len(snap["islands"]) == 10 and snap["islands"][0]["towers"] == 3
    assert snap["towers"] == {"BLACK": 5, "WHITE": 8} and snap["motherNature"] == 0


def test_wrapping_merge_and_a_move_longer_than_the_ring() -> None:
    table = in_action(values=(9, 10))
    to_step_two(table, island=6)

    def board(s) -> None:
        s.islands[11].towers, s.islands[11].team = 1, 0
        s.supply[0] = 7
        fill(s, s.islands[0].students, "PINK")
        s.professors[3] = 0
    table.arrange(board)
    # 5 steps on a ring of... 12 islands from 0 is island 5: use the wrap instead: 12 + 0
    table.arrange(lambda s: setattr(s, "mother_nature", 7))
    assert table.ok(0, "MOVE_MOTHER_NATURE", amount=5) == [
        {"type": "MOVE_TOWERS", "from": "PLAYER:0", "to": "ISLAND:0", "amount": 1},
        {"type": "MERGE_ISLANDS", "firstIslandIndex": 0, "secondIslandIndex": 11},
        {"type": "MOVE_MOTHER_NATURE", "position": 0},
        {"type": "CHANGE_PHASE", "gamePhase": "ACTION_PHASE_THREE"}]


def black_towers_on_2_to_8(table: Table, supply: int, island_1: str, towers_1: int = 0) -> None:
    """Black (ann) has built on islands 2..8 and owns BLUE; island 1 holds ``island_1``
    and ``towers_1`` white towers; Mother Nature is on island 0, seat 0 in step 2."""
    to_step_two(table, island=6)

    def board(s) -> None:
        for i in range(2, 9):
            s.islands[i].towers, s.islands[i].team = 1, 0
        if towers_1:
            s.islands[1].towers, s.islands[1].team = towers_1, 1
        s.supply[0], s.supply[1] = supply, 8 - towers_1
        fill(s, s.islands[1].students, island_1)
        s.professors[4] = 0
    table.arrange(board)


def test_placing_the_last_tower_ends_the_game_at_once() -> None:
    table = in_action()
    black_towers_on_2_to_8(table, 1, "BLUE")
    out = table.send(0, "MOVE_MOTHER_NATURE", amount=1)
    assert out == [
        {"type": "MOVE_TOWERS", "from": "PLAYER:0", "to": "ISLAND:1", "amount": 1},
        {"type": "MERGE_ISLANDS", "firstIslandIndex": 1, "secondIslandIndex": 2},
        {"type": "MOVE_MOTHER_NATURE", "position": 1},
        {"type": "END_GAME", "winners": ["ann"]}, ACK]   # [FIX] 11 #13: nothing after END_GAME
    assert table.send(1, "PLAY_ASSISTANT_CARD", assistantCard=5) == [nack("Not yet in a room!")]
    assert table.snap["finished"] and table.snap["currentPlayer"] is None


def test_11_20_a_conqueror_short_of_towers_places_what_it_has_and_wins() -> None:
    table = in_action()
    black_towers_on_2_to_8(table, 1, "BLUE BLUE BLUE", towers_1=2)
    out = table.send(0, "MOVE_MOTHER_NATURE", amount=1)
    assert out[:2] == [{"type": "MOVE_TOWERS", "from": "ISLAND:1", "to": "PLAYER:1", "amount": 2},
                       {"type": "MOVE_TOWERS", "from": "PLAYER:0", "to": "ISLAND:1", "amount": 2}]
    assert out[-2:] == [{"type": "END_GAME", "winners": ["ann"]}, ACK]
    assert table.snap["towers"] == {"BLACK": 0, "WHITE": 8}


def test_three_islands_left_end_the_game_and_rank() -> None:
    table = in_action()
    to_step_two(table, island=6)

    def board(s) -> None:
        # islands 2..10 already black and merged into one: 4 islands, 1 of them white
        for island in s.islands[2:11]:
            fill(s, island.students, "")
        s.islands[2:11] = [s.islands[2]]
        s.islands[2].towers, s.islands[2].team = 3, 0
        s.islands[3].towers, s.islands[3].team = 1, 1
        s.supply[0], s.supply[1] = 5, 7
        fill(s, s.islands[1].students, "BLUE")
        s.professors[4] = 0
    table.arrange(board)
    out = table.send(0, "MOVE_MOTHER_NATURE", amount=1)
    assert [m["type"] for m in out] == ["MOVE_TOWERS", "MERGE_ISLANDS", "MOVE_MOTHER_NATURE", "END_GAME", "ACK"]
    assert len(table.snap["islands"]) == 3 and out[-2]["winners"] == ["ann"]


# -- clouds and the bag ----------------------------------------------------------------------

def test_empty_cloud_is_refused() -> None:
    table = in_action()
    to_step_two(table)
    table.ok(0, "MOVE_MOTHER_NATURE", amount=1)
    table.ok(0, "CHOOSE_CLOUD", cloudIndex=1)
    to_step_two(table, seat=1)
    table.ok(1, "MOVE_MOTHER_NATURE", amount=1)
    assert table.send(1, "CHOOSE_CLOUD", cloudIndex=1) == [nack("This cloud was already empty")]


def test_fix_11_bag_running_out_fills_partially_and_ends_the_round() -> None:
    table = in_action(3)

    def low_bag(s) -> None:   # 5 students left: cloud 0 gets 4, cloud 1 gets 1, cloud 2 none
        extra = [k - 1 for k in s.bag]
        extra[0] -= 0
        for c in range(5):
            s.islands[6].students[c] += extra[c]
            s.bag[c] -= extra[c]
    table.arrange(low_bag)
    out = play_out_round(table)
    refill = [m for m in out if m["type"] == "ADD_STUDENT_TO"]
    assert [m["to"] for m in refill] == ["CLOUD:0"] * 4 + ["CLOUD:1"]
    assert out[-1] == {"type": "CHANGE_PHASE", "gamePhase": "PLANNING_PHASE"}
    snap = table.snap
    assert snap["bag"] == 0 and snap["lastRound"] and sum(snap["clouds"][2].values()) == 0
    table.plan(2, 4, 6)
    end = play_out_round(table)
    assert end[-1]["type"] == "END_GAME" and table.snap["finished"]


def test_fix_12_when_every_cloud_is_empty_step_three_is_done_at_once() -> None:
    table = in_action(2)

    def no_bag(s) -> None:
        for c in range(5):
            s.islands[6].students[c] += s.bag[c]
            s.bag[c] = 0
    table.arrange(no_bag)
    play_out_round(table)
    assert table.snap["lastRound"] and not any(sum(c.values()) for c in table.snap["clouds"])
    table.plan(2, 4)
    to_step_two(table, 0)
    assert table.ok(0, "MOVE_MOTHER_NATURE", amount=1)[-3:] == [
        {"type": "CHANGE_PHASE", "gamePhase": "ACTION_PHASE_THREE"},
        {"type": "CHANGE_TURN", "playingPlayer": 1}, {"type": "CHANGE_PHASE", "gamePhase": "ACTION_PHASE_ONE"}]
    to_step_two(table, 1)
    out = table.ok(1, "MOVE_MOTHER_NATURE", amount=1)
    assert out[-2:] == [{"type": "CHANGE_PHASE", "gamePhase": "ACTION_PHASE_THREE"}, out[-1]]
    assert out[-1]["type"] == "END_GAME"


# -- end of game and ranking ------------------------------------------------------------------

def last_round(table: Table) -> None:
    """One assistant left in every hand; Mother Nature's next stops (islands 1-4) are empty,
    so that nobody builds during the last round."""
    def change(s) -> None:
        for seat, hand in enumerate(s.hands):
            hand[:] = [seat + 1]
        for i in (1, 2, 3, 4):
            fill(s, s.islands[i].students, "")
    table.arrange(change)


def test_end_after_the_last_assistant_and_fix_14_professors_break_a_three_way_tie() -> None:
    table = Table(3, first=0)
    last_round(table)

    def profs(s) -> None:
        s.professors[:] = [1, 1, 0, 2, None]
        for color, seat in enumerate(s.professors):
            if seat is not None:
                fill(s, s.dining[seat], ["GREEN", "RED", "YELLOW", "PINK", "BLUE"][color])
        fill(s, s.dining[1], "GREEN RED")
    table.arrange(profs)
    table.plan(1, 2, 3)
    assert table.snap["lastRound"]
    out = play_out_round(table)
    assert out[-1] == {"type": "END_GAME", "winners": ["ben"]}
    assert [m["type"] for m in out[-2:]] == ["MOVE_STUDENT", "END_GAME"]


def test_fewest_towers_left_wins_and_fix_15_full_ties_give_several_winners() -> None:
    table = Table(3, first=0)
    last_round(table)

    def towers(s) -> None:
        for i, team in ((6, 0), (9, 1)):
            s.islands[i].towers, s.islands[i].team = 1, team
        s.supply[0] = s.supply[1] = 5
        s.professors[:] = [0, 1, 2, 2, None]
        for _color, seat in enumerate(s.professors[:4]):
            fill(s, s.dining[seat], " ".join(["GREEN", "RED", "YELLOW", "PINK"][c] for c in range(4)
                                             if s.professors[c] == seat))
    table.arrange(towers)
    table.plan(1, 2, 3)
    out = play_out_round(table)
    # grey (cyd) owns most professors but built nothing; black and white tie on towers and professors
    assert out[-1] == {"type": "END_GAME", "winners": ["ann", "ben"]}


# -- four players: teams --------------------------------------------------------------------------

def test_four_players_play_in_teams() -> None:
    table = in_action(4, values=(1, 3, 5, 7))
    snap = table.snap
    assert [p["towerColor"] for p in snap["players"]] == ["BLACK", "WHITE", "BLACK", "WHITE"]
    assert snap["towers"] == {"BLACK": 8, "WHITE": 8}
    play_out_round_until(table, seat=2)
    to_step_two(table, seat=2, island=6)

    def board(s) -> None:
        # island 1: 1 blue (professor of seat 0) + 1 green (seat 2) for black, 1 red + 1 pink for white
        # teams add their members' professors: 2 vs 2 is a tie; a yellow for seat 2 breaks it
        fill(s, s.islands[s.mother_nature + 1].students, "BLUE GREEN RED PINK YELLOW")
        s.professors[:] = [2, 1, 2, 3, 0]
        for _color, seat in enumerate(s.professors):
            fill(s, s.dining[seat], " ".join(["GREEN", "RED", "YELLOW", "PINK", "BLUE"][c]
                                             for c in range(5) if s.professors[c] == seat))
    table.arrange(board)
    out = table.ok(2, "MOVE_MOTHER_NATURE", amount=1)
    position = table.snap["motherNature"]
    assert out[0] == {"type": "MOVE_TOWERS", "from": "PLAYER:0", "to": f"ISLAND:{position}", "amount": 1}
    assert table.snap["towers"]["BLACK"] == 7 and table.snap["islands"][position]["towerColor"] == "BLACK"


def play_out_round_until(table: Table, seat: int) -> None:
    while table.state.current != seat:
        s = table.state
        cur = s.current
        if s.phase == 1:
            color = next(c for c, k in zip("GREEN RED YELLOW PINK BLUE".split(), s.entrance[cur]) if k)
            table.ok(cur, "MOVE_STUDENT_FROM_ENTRANCE_TO_ISLAND", color=color, islandIndex=6)
        elif s.phase == 2:
            table.ok(cur, "MOVE_MOTHER_NATURE", amount=1)
        else:
            table.ok(cur, "CHOOSE_CLOUD", cloudIndex=next(i for i, c in enumerate(s.clouds) if any(c)))


def test_four_player_team_winners_are_listed_in_seat_order() -> None:
    table = Table(4, first=3)
    last_round(table)

    def towers(s) -> None:
        s.islands[4].towers, s.islands[4].team = 1, 1
        s.supply[1] = 7
    table.arrange(towers)
    table.plan(4, 1, 2, 3)
    out = play_out_round(table)
    assert out[-1] == {"type": "END_GAME", "winners": ["ben", "dot"]}


# -- ejection (7.7) ----------------------------------------------------------------------------

def test_ejection_with_three_players_skips_the_eliminated_seat() -> None:
    table = Table(3, first=0)
    out = eject(table.state, 0, "EJECTED")
    assert out == [{"type": "PLAYER_DISCONNECT", "username": "ann", "roomClosed": False, "reason": "EJECTED"},
                   {"type": "CHANGE_TURN", "playingPlayer": 1}]
    for message in out:
        table.view.apply(message)
    assert table.view.snapshot() == snapshot(table.state)
    table.ok(1, EV, assistantCard=2)
    out = table.ok(2, EV, assistantCard=1)
    assert out[-2:] == [{"type": "CHANGE_TURN", "playingPlayer": 2},
                        {"type": "CHANGE_PHASE", "gamePhase": "ACTION_PHASE_ONE"}]
    assert table.snap["actionOrder"] == [2, 1]


def test_ejection_in_the_action_phase_ends_the_turn() -> None:
    table = in_action(3)
    out = eject(table.state, 0, "TIMEOUT")
    assert out == [{"type": "PLAYER_DISCONNECT", "username": "ann", "roomClosed": False, "reason": "TIMEOUT"},
                   {"type": "CHANGE_TURN", "playingPlayer": 1},
                   {"type": "CHANGE_PHASE", "gamePhase": "ACTION_PHASE_ONE"}]


@pytest.mark.parametrize("n, seat, winners", [(2, 0, ["ben"]), (4, 1, ["ann", "cyd"]), (4, 2, ["ben", "dot"])])
def test_ejection_that_leaves_one_team_ends_the_game(n, seat, winners) -> None:
    table = Table(n, first=0)
    out = eject(table.state, seat, "EJECTED")
    assert out[1:] == [{"type": "END_GAME", "winners": winners}]
    assert step(table.state, 0, {"eventType": EV, "assistantCard": 1})[2] == nack("Not yet in a room!")


def test_draw_hooks_must_name_colours_in_the_bag() -> None:
    from gameroom.games.eriantys.state import HookError

    with pytest.raises(HookError):
        Table(2, draws="GREEN GREEN GREEN")
    assert counts("GREEN RED GREEN") == [2, 1, 0, 0, 0]


# -- 3.8.1 the generator's consumption order --------------------------------------------------

def _literal_draw(rng, bag: list[int]) -> int:
    r = rng.randrange(sum(bag))
    for color, count in enumerate(bag):
        if r < count:
            bag[color] -= 1
            return color
        r -= count
    raise AssertionError


@pytest.mark.parametrize("n, expert, seed", [(2, False, 0), (3, True, 5), (4, True, 11), (2, True, 42)])
def test_setup_consumes_the_generator_in_the_order_of_3_8_1(n: int, expert: bool, seed: int) -> None:
    import random

    from gameroom.games.eriantys.state import new_game

    names = ["GREEN", "RED", "YELLOW", "PINK", "BLUE"]
    rng = random.Random(seed)
    first = rng.randrange(n)
    setup_bag, bag = [2] * 5, [24] * 5
    expected = [("ISLAND:%d" % i, names[_literal_draw(rng, setup_bag)]) for i in (1, 2, 3, 4, 5, 7, 8, 9, 10, 11)]
    cards: list[int] = []
    while expert and len(cards) < 3:
        card = rng.randrange(12)
        if card not in cards:
            cards.append(card)
            expected += [(f"CARD:{card}", names[_literal_draw(rng, bag)]) for _ in range({0: 4, 2: 6, 7: 4}.get(card, 0))]
    for seat in range(n):
        drawn = sorted(_literal_draw(rng, bag) for _ in range(9 if n == 3 else 7))
        expected += [(f"ENTRANCE:{seat}", names[c]) for c in drawn]
    for cloud in range(n):
        drawn = sorted(_literal_draw(rng, bag) for _ in range(4 if n == 3 else 3))
        expected += [(f"CLOUD:{cloud}", names[c]) for c in drawn]
    _, setup = new_game(["a", "b", "c", "d"][:n], expert, seed)
    assert [(m["to"], m["color"]) for m in setup if m["type"] == "ADD_STUDENT_TO"] == expected
    assert [m["card"] for m in setup if m["type"] == "NOTIFY_CHARACTER_CARD"] == cards
    assert setup[-2] == {"type": "CHANGE_TURN", "playingPlayer": first}
