"""The twelve character cards (eriantys.md 2.5, 3.6, 4.3): for each card a scenario that
checks its effect and its broadcasts as a player sees them, with the [FIX]es of 11
(#3 prices, #4 no-entry tiles, #5 Knight, #6-8 Herald, #9 Monk, #10 and #41 full tables
and impossible inputs, #39 same-colour Minstrel swaps, #44 Mushroom Man / Thief colours)."""

from __future__ import annotations

import pytest

from gameroom.games.eriantys.pieces import base_cost
from gameroom.games.eriantys.strategies import first_legal
from tests.games.eriantys.helpers import ACK, Table, fill, give_coins, in_action, nack

ACT = "ACTIVATE_CHARACTER_CARD"
NOT_NOW = nack("this move is not allowed at this stage of the game")


def activation(card: int, seat: int, price: int) -> list[dict]:
    return [{"type": "ACTIVATE_CHARACTER_CARD", "characterCardIndex": card, "player": seat},
            {"type": "REMOVE_COIN", "player": seat, "amount": price}, ACK]


def table_with(card: int, others: tuple[int, int] = (1, 4), coins: int = 3, values: tuple[int, ...] = (1, 3)) -> Table:
    others = tuple(o for o in (*others, 9, 6) if o != card)[:2]
    table = in_action(2, True, cards=[card, *others], values=values)
    table.arrange(give_coins(0, coins - 1))
    return table


def move_students(table: Table, seat: int = 0, island: int = 6) -> None:
    while table.state.phase == 1:
        s = table.state
        color = next(c for c, k in zip("GREEN RED YELLOW PINK BLUE".split(), s.entrance[seat]) if k)
        table.ok(seat, "MOVE_STUDENT_FROM_ENTRANCE_TO_ISLAND", color=color, islandIndex=island)


def test_expert_setup_broadcast_and_counts() -> None:
    for n, bank, bag in ((2, 18, 106), (3, 17, 93), (4, 16, 92)):
        table = Table(n, True, first=0, cards=[0, 2, 5])
        types = [m["type"] for m in table.setup]
        assert types[11:13] == ["NOTIFY_CHARACTER_CARD", "ADD_STUDENT_TO"]
        assert [m for m in table.setup if m["type"] == "NOTIFY_CHARACTER_CARD"] == [
            {"type": "NOTIFY_CHARACTER_CARD", "card": 0, "price": 1},
            {"type": "NOTIFY_CHARACTER_CARD", "card": 2, "price": 1},
            {"type": "NOTIFY_CHARACTER_CARD", "card": 5, "price": 2}]
        assert [m["player"] for m in table.setup if m["type"] == "ADD_COIN"] == list(range(n))
        snap = table.snap
        assert snap["bank"] == bank and snap["bag"] == bag - 10 - (6 if n == 2 else 12)
        assert [c["noEntryTiles"] for c in snap["characterCards"]] == [None, None, 4]


def test_seeded_character_selection_is_three_distinct_cards() -> None:
    for seed in range(30):
        table = Table(3, True, first=None, seed=seed)
        ids = [c["id"] for c in table.snap["characterCards"]]
        assert len(set(ids)) == 3
        assert Table(3, True, first=None, seed=seed).setup == table.setup   # a seed replays the setup


def test_activation_checks_in_order() -> None:
    table = table_with(8, coins=2)
    assert table.send(0, ACT, cardId=3) == [nack("This card is not present in the game")]
    assert table.send(0, ACT, cardId=8) == [nack("You don't have enough coins")]
    assert table.send(0, ACT, cardId=1) == activation(1, 0, 1)
    assert table.send(0, ACT, cardId=4) == [nack("You already activated a card")]


@pytest.mark.parametrize("card", range(12))
def test_fix_3_every_price_rises_by_one_after_the_first_use(card: int) -> None:
    table = table_with(card, coins=4)
    table.arrange(give_coins(1, 4))
    price = base_cost(card)
    assert table.send(0, ACT, cardId=card) == activation(card, 0, price)
    snap = table.snap
    assert snap["characterCards"][0] == {**snap["characterCards"][0], "price": price + 1, "used": True}
    assert snap["bank"] == 18 - 3 - 4 + price - 1
    while table.state.current == 0:
        table.play(0, first_legal(table.snap))
    bank = table.snap["bank"]
    assert table.send(1, ACT, cardId=card) == activation(card, 1, price + 1)
    assert table.snap["bank"] == bank + price + 1


def test_card_0_monk() -> None:
    table = table_with(0)

    def card(s) -> None:
        fill(s, s.card(0).students, "RED RED BLUE GREEN")
        s.draws = [2]   # the refill draws a YELLOW
    table.arrange(card)
    assert table.send(0, ACT, cardId=0) == activation(0, 0, 1)
    assert table.snap["turn"]["pendingInput"] == {"card": 0, "accepts": ["MOVE_STUDENT_FROM_CARD_TO_ISLAND"],
                                                  "remaining": 1}
    assert table.send(0, "MOVE_STUDENT_FROM_ENTRANCE_TO_TABLE", color="RED") == [NOT_NOW]
    # [FIX] 11 #9: a colour not on the card and island == count are refused; the input stays pending
    assert table.send(0, "MOVE_STUDENT_FROM_CARD_TO_ISLAND", color="PINK", islandIndex=3) == [
        nack("the card doesn't have this student")]
    assert table.send(0, "MOVE_STUDENT_FROM_CARD_TO_ISLAND", color="RED", islandIndex=12) == [
        nack("there is no island number 12")]
    assert table.send(0, "MOVE_STUDENT_FROM_CARD_TO_ISLAND", color="RED", islandIndex=5) == [
        {"type": "MOVE_STUDENT", "from": "CARD:0", "to": "ISLAND:5", "color": "RED"},
        {"type": "ADD_STUDENT_TO", "to": "CARD:0", "color": "YELLOW"}, ACK]
    snap = table.snap
    assert snap["characterCards"][0]["students"] == {"GREEN": 1, "RED": 1, "YELLOW": 1, "PINK": 0, "BLUE": 1}
    assert snap["turn"]["pendingInput"] is None and snap["turn"]["studentsToMove"] == 3
    assert snap["phase"] == "ACTION_PHASE_ONE" and snap["characterCards"][0]["price"] == 2


def test_card_0_monk_drawing_the_last_student_makes_it_the_last_round() -> None:
    table = table_with(0)

    def one_left(s) -> None:
        for c in range(5):
            keep = 1 if c == 3 else 0
            s.islands[6].students[c] += s.bag[c] - keep
            s.bag[c] = keep
    table.arrange(one_left)
    table.ok(0, ACT, cardId=0)
    color = next(c for c, k in table.snap["characterCards"][0]["students"].items() if k)
    assert table.ok(0, "MOVE_STUDENT_FROM_CARD_TO_ISLAND", color=color, islandIndex=2) == [
        {"type": "MOVE_STUDENT", "from": "CARD:0", "to": "ISLAND:2", "color": color},
        {"type": "ADD_STUDENT_TO", "to": "CARD:0", "color": "PINK"}]
    assert table.snap["lastRound"] and table.snap["bag"] == 0
    while table.state.current == 0:
        table.play(0, first_legal(table.snap))
    table.arrange(give_coins(1, 1))
    table.ok(1, ACT, cardId=0)   # the card still holds students; the bag gives nothing back
    color = next(c for c, k in table.snap["characterCards"][0]["students"].items() if k)
    assert table.ok(1, "MOVE_STUDENT_FROM_CARD_TO_ISLAND", color=color, islandIndex=2) == [
        {"type": "MOVE_STUDENT", "from": "CARD:0", "to": "ISLAND:2", "color": color}]
    while not table.state.finished:
        table.play(table.state.current, first_legal(table.snap))
    assert table.state.round == 1


def test_card_1_magic_mailman() -> None:
    table = table_with(1)
    move_students(table)
    assert table.send(0, "MOVE_MOTHER_NATURE", amount=2) == [nack("you cannot move mother nature more than 1")]
    assert table.send(0, ACT, cardId=1) == activation(1, 0, 1)
    assert table.snap["turn"]["motherNatureLimit"] == 3
    assert table.send(0, "MOVE_MOTHER_NATURE", amount=4) == [nack("you cannot move mother nature more than 3")]
    assert table.ok(0, "MOVE_MOTHER_NATURE", amount=3)[0]["type"] in ("MOVE_MOTHER_NATURE", "MOVE_TOWERS")


def test_card_2_jester() -> None:
    table = table_with(2)
    table.arrange(lambda s: (fill(s, s.card(2).students, "RED RED RED BLUE BLUE BLUE"),
                             fill(s, s.entrance[0], "GREEN GREEN GREEN GREEN PINK PINK YELLOW")))
    assert table.send(0, ACT, cardId=2) == activation(2, 0, 1)
    assert table.send(0, "SWAP_STUDENT_CARD_ENTRANCE", studentFromCard="PINK", studentFromEntrance="GREEN") == [
        nack("the card doesn't have this student")]
    assert table.send(0, "SWAP_STUDENT_CARD_ENTRANCE", studentFromCard="RED", studentFromEntrance="BLUE") == [
        nack("the player doesn't have this student in the entrance")]
    assert table.send(0, "SWAP_STUDENT_CARD_ENTRANCE", studentFromCard="RED", studentFromEntrance="GREEN") == [
        {"type": "MOVE_STUDENT", "from": "ENTRANCE:0", "to": "CARD:2", "color": "GREEN"},
        {"type": "MOVE_STUDENT", "from": "CARD:2", "to": "ENTRANCE:0", "color": "RED"}, ACK]
    # 11 #38: the student just put on the card may be taken back
    assert table.ok(0, "SWAP_STUDENT_CARD_ENTRANCE", studentFromCard="GREEN", studentFromEntrance="PINK")[1][
        "color"] == "GREEN"
    assert table.snap["turn"]["pendingInput"]["remaining"] == 1
    assert table.send(0, "END_SELECTION") == [ACK]   # stops early, broadcasts nothing
    assert table.snap["turn"]["pendingInput"] is None
    assert table.send(0, "END_SELECTION") == [NOT_NOW]
    assert table.snap["players"][0]["entrance"] == {"GREEN": 4, "RED": 1, "YELLOW": 1, "PINK": 1, "BLUE": 0}


def test_card_2_jester_input_ends_after_three_swaps() -> None:
    table = table_with(2)
    table.arrange(lambda s: fill(s, s.card(2).students, "RED RED RED BLUE BLUE BLUE"))
    table.ok(0, ACT, cardId=2)
    for _ in range(3):
        entrance = next(c for c, k in table.snap["players"][0]["entrance"].items() if k)
        table.ok(0, "SWAP_STUDENT_CARD_ENTRANCE", studentFromCard="BLUE", studentFromEntrance=entrance)
    assert table.snap["turn"]["pendingInput"] is None
    assert table.send(0, "SWAP_STUDENT_CARD_ENTRANCE", studentFromCard="RED", studentFromEntrance="BLUE") == [
        NOT_NOW]


def test_card_3_minstrel() -> None:
    table = table_with(3)
    table.arrange(lambda s: (fill(s, s.entrance[0], "GREEN GREEN RED RED PINK PINK YELLOW"),
                             fill(s, s.dining[0], "RED RED BLUE " + " ".join(["PINK"] * 10)),
                             s.professors.__setitem__(3, 0), s.professors.__setitem__(4, 0)))
    table.ok(0, ACT, cardId=3)
    assert table.send(0, "SWAP_STUDENT_ENTRANCE_TABLE", studentFromEntrance="BLUE", studentFromTable="RED") == [
        nack("the player doesn't have this student in the entrance")]
    assert table.send(0, "SWAP_STUDENT_ENTRANCE_TABLE", studentFromEntrance="RED", studentFromTable="GREEN") == [
        nack("the player doesn't have this student in the table")]
    # [FIX] 11 #10: the entering colour's table is full
    assert table.send(0, "SWAP_STUDENT_ENTRANCE_TABLE", studentFromEntrance="PINK", studentFromTable="RED") == [
        nack("No more students of this color can be added to this holder")]
    # entry first (professor, coin at 3), then the removal, then the two moves
    assert table.send(0, "SWAP_STUDENT_ENTRANCE_TABLE", studentFromEntrance="RED", studentFromTable="BLUE") == [
        {"type": "SET_PROFESSOR_TO", "color": "RED", "player": 0}, {"type": "ADD_COIN", "player": 0},
        {"type": "MOVE_STUDENT", "from": "ENTRANCE:0", "to": "DININGROOM:0", "color": "RED"},
        {"type": "MOVE_STUDENT", "from": "DININGROOM:0", "to": "ENTRANCE:0", "color": "BLUE"}, ACK]
    assert table.snap["turn"]["pendingInput"]["remaining"] == 1
    # [FIX] 11 #39: a same-colour swap counts but changes nothing (RED stays at 3: no coin)
    assert table.send(0, "SWAP_STUDENT_ENTRANCE_TABLE", studentFromEntrance="RED", studentFromTable="RED") == [
        {"type": "MOVE_STUDENT", "from": "ENTRANCE:0", "to": "DININGROOM:0", "color": "RED"},
        {"type": "MOVE_STUDENT", "from": "DININGROOM:0", "to": "ENTRANCE:0", "color": "RED"}, ACK]
    snap = table.snap
    assert snap["turn"]["pendingInput"] is None and snap["players"][0]["coins"] == 2 + 1
    assert snap["players"][0]["diningRoom"]["RED"] == 3 and snap["players"][0]["diningRoom"]["BLUE"] == 0


def test_fix_39_same_colour_minstrel_swap_wins_no_tied_professor() -> None:
    table = table_with(3, others=(4, 1))
    table.arrange(lambda s: (fill(s, s.entrance[0], "RED GREEN GREEN GREEN GREEN GREEN GREEN"),
                             fill(s, s.dining[0], "RED RED"), fill(s, s.dining[1], "RED RED"),
                             s.professors.__setitem__(1, 1)))
    table.ok(0, ACT, cardId=3)
    out = table.ok(0, "SWAP_STUDENT_ENTRANCE_TABLE", studentFromEntrance="RED", studentFromTable="RED")
    assert [m["type"] for m in out] == ["MOVE_STUDENT", "MOVE_STUDENT"]
    assert table.snap["professors"]["RED"] == 1


def test_card_4_farmer_takes_tied_professors_at_the_next_dining_room_change() -> None:
    table = table_with(4)
    # 11 #19: ann already owns GREEN on a tie: no redundant SET_PROFESSOR_TO for it
    table.arrange(lambda s: (fill(s, s.entrance[0], "RED RED GREEN GREEN GREEN GREEN GREEN"),
                             fill(s, s.dining[0], "GREEN RED BLUE BLUE"),
                             fill(s, s.dining[1], "GREEN RED RED BLUE BLUE"), s.professors.__setitem__(0, 0),
                             s.professors.__setitem__(1, 1), s.professors.__setitem__(4, 1)))
    assert table.send(0, ACT, cardId=4) == activation(4, 0, 2)   # activation re-evaluates nothing
    assert table.ok(0, "MOVE_STUDENT_FROM_ENTRANCE_TO_TABLE", color="RED") == [
        {"type": "SET_PROFESSOR_TO", "color": "RED", "player": 0},
        {"type": "SET_PROFESSOR_TO", "color": "BLUE", "player": 0},
        {"type": "MOVE_STUDENT", "from": "ENTRANCE:0", "to": "DININGROOM:0", "color": "RED"}]
    # the effect ends with the turn: ben ties again and takes nothing back
    while table.state.current == 0:
        table.play(0, first_legal(table.snap))
    table.arrange(lambda s: fill(s, s.entrance[1], "RED GREEN GREEN GREEN GREEN GREEN GREEN"))
    table.arrange(lambda s: fill(s, s.dining[0], "RED RED RED BLUE BLUE " + " ".join(["GREEN"] * 5)))
    out = table.ok(1, "MOVE_STUDENT_FROM_ENTRANCE_TO_TABLE", color="RED")
    assert "SET_PROFESSOR_TO" not in [m["type"] for m in out]


def test_card_5_grandma_herbs_and_fix_4_tiles_return() -> None:
    table = table_with(5)
    assert table.send(0, ACT, cardId=5) == activation(5, 0, 2)
    assert table.send(0, "CHOOSE_ISLAND", islandIndex=12) == [nack("there is no island number 12")]
    assert table.send(0, "CHOOSE_ISLAND", islandIndex=1) == [{"type": "NO_ENTRY", "add": True, "islandIndex": 1}, ACK]
    assert table.snap["characterCards"][0]["noEntryTiles"] == 3 and table.snap["islands"][1]["noEntry"] == 1
    move_students(table)
    table.arrange(lambda s: (fill(s, s.islands[1].students, "BLUE"), s.professors.__setitem__(4, 0)))
    assert table.ok(0, "MOVE_MOTHER_NATURE", amount=1) == [
        {"type": "MOVE_MOTHER_NATURE", "position": 1}, {"type": "NO_ENTRY", "add": False, "islandIndex": 1},
        {"type": "CHANGE_PHASE", "gamePhase": "ACTION_PHASE_THREE"}]
    assert table.snap["characterCards"][0]["noEntryTiles"] == 4 and table.snap["towers"]["BLACK"] == 8


def test_fix_4_herbs_cannot_be_activated_without_tiles() -> None:
    table = table_with(5)

    def spread(s) -> None:
        s.card(5).no_entry = 0
        for i in (2, 3, 4, 8):
            s.islands[i].no_entry = 1
    table.arrange(spread)
    assert table.send(0, ACT, cardId=5) == [nack("No more no entry tiles on this card")]


def conquest_board(s, ours: str, theirs: str, island: int = 1, towers: int = 0, team: int | None = None) -> None:
    """Island ``island`` holds ``ours`` (colours whose professors seat 0 owns) and ``theirs``
    (professors of seat 1)."""
    fill(s, s.islands[island].students, f"{ours} {theirs}")
    for name in ours.split():
        s.professors["GREEN RED YELLOW PINK BLUE".split().index(name)] = 0
    for name in theirs.split():
        s.professors["GREEN RED YELLOW PINK BLUE".split().index(name)] = 1
    if towers:
        s.islands[island].towers, s.islands[island].team = towers, team
        s.supply[team] -= towers


def test_card_6_knight_and_fix_5_plus_two_once() -> None:
    table = table_with(6)
    move_students(table)
    table.arrange(lambda s: (conquest_board(s, "GREEN", "BLUE BLUE BLUE"), s.professors.__setitem__(1, 0)))
    table.ok(0, ACT, cardId=6)
    # 1 + 2 (Knight, once) against 3: a tie; the reference's +2 per professor would have given 5
    assert table.ok(0, "MOVE_MOTHER_NATURE", amount=1)[0] == {"type": "MOVE_MOTHER_NATURE", "position": 1}
    assert table.snap["islands"][1]["towers"] == 0


def test_card_6_knight_wins_without_professors() -> None:
    table = table_with(6)
    move_students(table)
    table.arrange(lambda s: conquest_board(s, "", "BLUE"))
    table.ok(0, ACT, cardId=6)
    assert table.ok(0, "MOVE_MOTHER_NATURE", amount=1)[0] == {
        "type": "MOVE_TOWERS", "from": "PLAYER:0", "to": "ISLAND:1", "amount": 1}


def test_card_7_spoiled_princess() -> None:
    table = table_with(7)
    table.arrange(lambda s: (fill(s, s.card(7).students, "RED BLUE BLUE GREEN"),
                             fill(s, s.dining[0], " ".join(["RED"] * 10)), setattr(s, "draws", [3]),
                             s.professors.__setitem__(1, 0)))
    assert table.send(0, ACT, cardId=7) == activation(7, 0, 2)
    assert table.send(0, "MOVE_STUDENT_FROM_CARD_TO_TABLE", color="RED") == [
        nack("No more students of this color can be added to this holder")]
    assert table.send(0, "MOVE_STUDENT_FROM_CARD_TO_TABLE", color="PINK") == [
        nack("the card doesn't have this student")]
    assert table.send(0, "MOVE_STUDENT_FROM_CARD_TO_TABLE", color="BLUE") == [
        {"type": "SET_PROFESSOR_TO", "color": "BLUE", "player": 0},
        {"type": "MOVE_STUDENT", "from": "CARD:7", "to": "DININGROOM:0", "color": "BLUE"},
        {"type": "ADD_STUDENT_TO", "to": "CARD:7", "color": "PINK"}, ACK]


def test_fix_41_princess_needs_a_student_that_fits() -> None:
    table = table_with(7)
    table.arrange(lambda s: (fill(s, s.card(7).students, "RED RED RED RED"),
                             fill(s, s.dining[0], " ".join(["RED"] * 10))))
    assert table.send(0, ACT, cardId=7) == [nack("This card has no student that you can use")]


def test_card_8_herald_and_fix_6_the_supply_goes_down() -> None:
    table = table_with(8, coins=3)
    table.arrange(lambda s: conquest_board(s, "BLUE", "", island=4))
    table.ok(0, ACT, cardId=8)
    assert table.send(0, "CHOOSE_ISLAND", islandIndex=12) == [nack("this island doesn't exist")]
    assert table.send(0, "CHOOSE_ISLAND", islandIndex=4) == [
        {"type": "MOVE_TOWERS", "from": "PLAYER:0", "to": "ISLAND:4", "amount": 1}, ACK]
    assert table.snap["towers"]["BLACK"] == 7 and table.snap["motherNature"] == 0
    assert table.snap["phase"] == "ACTION_PHASE_ONE"


def test_fix_7_mother_nature_stays_on_her_island_after_herald_merges() -> None:
    table = table_with(8, coins=3)

    def board(s) -> None:
        conquest_board(s, "BLUE", "", island=4)
        for i in (3, 5):
            s.islands[i].towers, s.islands[i].team = 1, 0
        s.supply[0] -= 2
        s.mother_nature = 5
    table.arrange(board)
    table.ok(0, ACT, cardId=8)
    assert table.send(0, "CHOOSE_ISLAND", islandIndex=4) == [
        {"type": "MOVE_TOWERS", "from": "PLAYER:0", "to": "ISLAND:4", "amount": 1},
        {"type": "MERGE_ISLANDS", "firstIslandIndex": 4, "secondIslandIndex": 3},
        {"type": "MERGE_ISLANDS", "firstIslandIndex": 3, "secondIslandIndex": 4},
        {"type": "MOVE_MOTHER_NATURE", "position": 3}, ACK]


def test_herald_keeps_mother_nature_on_an_island_after_the_merged_one() -> None:
    table = table_with(8, coins=3)

    def board(s) -> None:
        conquest_board(s, "BLUE", "", island=4)
        s.islands[3].towers, s.islands[3].team = 1, 0
        s.supply[0] -= 1
        s.mother_nature = 9
    table.arrange(board)
    table.ok(0, ACT, cardId=8)
    out = table.ok(0, "CHOOSE_ISLAND", islandIndex=4)
    assert out[-1] == {"type": "MOVE_MOTHER_NATURE", "position": 8}


def test_11_8_herald_ignores_no_entry_tiles_and_leaves_them() -> None:
    table = table_with(8, others=(5, 1), coins=3)
    table.arrange(lambda s: (conquest_board(s, "BLUE", "", island=4), setattr(s.card(5), "no_entry", 3),
                             setattr(s.islands[4], "no_entry", 1)))
    table.ok(0, ACT, cardId=8)
    assert table.ok(0, "CHOOSE_ISLAND", islandIndex=4)[0]["type"] == "MOVE_TOWERS"
    assert table.snap["islands"][4]["noEntry"] == 1


def test_herald_can_end_the_game() -> None:
    table = table_with(8, coins=3)
    table.arrange(lambda s: (conquest_board(s, "BLUE", "", island=4), s.supply.__setitem__(0, 1),
                             [setattr(s.islands[i], "towers", 1) or setattr(s.islands[i], "team", 0)
                              for i in (6, 7, 8, 9, 10, 11, 0)]))
    table.ok(0, ACT, cardId=8)
    out = table.send(0, "CHOOSE_ISLAND", islandIndex=4)
    assert out == [{"type": "MOVE_TOWERS", "from": "PLAYER:0", "to": "ISLAND:4", "amount": 1},
                   {"type": "END_GAME", "winners": ["ann"]}, ACK]


def test_card_9_centaur_towers_do_not_count() -> None:
    table = table_with(9, coins=3)
    move_students(table)
    table.arrange(lambda s: conquest_board(s, "GREEN", "", towers=2, team=1))
    table.ok(0, ACT, cardId=9)
    assert table.ok(0, "MOVE_MOTHER_NATURE", amount=1)[:2] == [
        {"type": "MOVE_TOWERS", "from": "ISLAND:1", "to": "PLAYER:1", "amount": 2},
        {"type": "MOVE_TOWERS", "from": "PLAYER:0", "to": "ISLAND:1", "amount": 2}]
    assert table.snap["towers"] == {"BLACK": 6, "WHITE": 8}


def test_card_10_mushroom_man_and_fix_44() -> None:
    table = table_with(10, coins=3)
    move_students(table)
    table.arrange(lambda s: conquest_board(s, "BLUE", "RED RED"))
    assert table.send(0, ACT, cardId=10) == activation(10, 0, 3)
    assert table.send(0, "CHOOSE_COLOR", color="PURPLE") == [nack("Invalid event")]
    assert table.send(0, "CHOOSE_COLOR") == [nack("Invalid event")]
    assert table.send(0, "CHOOSE_COLOR", color="RED") == [ACK]   # no broadcast
    assert table.snap["turn"]["mushroomColor"] == "RED"
    assert table.ok(0, "MOVE_MOTHER_NATURE", amount=1)[0] == {
        "type": "MOVE_TOWERS", "from": "PLAYER:0", "to": "ISLAND:1", "amount": 1}


def test_card_11_thief_seat_by_seat_professors_before_each_move() -> None:
    table = table_with(11, coins=3)
    table.arrange(lambda s: (fill(s, s.dining[0], "RED RED RED RED BLUE"),
                             fill(s, s.dining[1], "RED RED BLUE BLUE"),
                             s.professors.__setitem__(1, 0), s.professors.__setitem__(4, 0)))
    table.ok(0, ACT, cardId=11)
    bag = table.snap["bag"]
    assert table.send(0, "CHOOSE_COLOR", color="RED") == [
        {"type": "MOVE_STUDENT", "from": "DININGROOM:0", "to": "BAG", "color": "RED"},
        {"type": "MOVE_STUDENT", "from": "DININGROOM:0", "to": "BAG", "color": "RED"},
        {"type": "MOVE_STUDENT", "from": "DININGROOM:0", "to": "BAG", "color": "RED"},
        # ben's dining room changes: he now out-numbers ann in BLUE (2 > 1) and takes it
        {"type": "SET_PROFESSOR_TO", "color": "BLUE", "player": 1},
        {"type": "MOVE_STUDENT", "from": "DININGROOM:1", "to": "BAG", "color": "RED"},
        {"type": "MOVE_STUDENT", "from": "DININGROOM:1", "to": "BAG", "color": "RED"}, ACK]
    snap = table.snap
    assert snap["bag"] == bag + 5 and snap["professors"]["RED"] == 0   # never lost by a removal
    assert snap["players"][0]["diningRoom"]["RED"] == 1 and snap["players"][1]["diningRoom"]["RED"] == 0


def test_cards_are_refused_during_another_cards_input_and_after_the_cloud() -> None:
    table = table_with(0)
    table.ok(0, ACT, cardId=0)
    assert table.send(0, ACT, cardId=1) == [NOT_NOW]
    table = table_with(1)
    while table.state.current == 0:
        table.play(0, first_legal(table.snap))
    assert table.send(0, ACT, cardId=1) == [nack("It's not your turn")]


def test_11_40_a_card_activated_too_late_is_accepted_and_wasted() -> None:
    table = table_with(1)
    move_students(table)
    table.ok(0, "MOVE_MOTHER_NATURE", amount=1)
    assert table.send(0, ACT, cardId=1) == activation(1, 0, 1)
    assert table.snap["phase"] == "ACTION_PHASE_THREE" and table.snap["turn"]["motherNatureLimit"] == 3
