"""The worked transcript of eriantys.md 6.7, reproduced message for message (the game part:
from START_GAME on; the lobby messages belong to the lobby). The draws and the first
player are fixed with the test hooks of 8.1."""

from __future__ import annotations

from tests.games.eriantys.helpers import ACK, Table, nack

ISLANDS = "BLUE RED GREEN PINK YELLOW GREEN RED YELLOW BLUE PINK"
ENTRANCE_0 = "GREEN GREEN RED PINK PINK BLUE BLUE"
ENTRANCE_1 = "GREEN RED RED YELLOW YELLOW YELLOW BLUE"
CLOUDS = "RED YELLOW BLUE GREEN PINK PINK"


def add(to: str, colors: str) -> list[dict]:
    return [{"type": "ADD_STUDENT_TO", "to": to, "color": c} for c in colors.split()]


def test_setup_broadcast_matches_the_transcript() -> None:
    table = Table(2, False, first=1, draws=" ".join([ISLANDS, ENTRANCE_0, ENTRANCE_1, CLOUDS]))
    islands = [1, 2, 3, 4, 5, 7, 8, 9, 10, 11]
    expected = [{"type": "START_GAME", "expert": False, "numberOfPlayers": 2, "players": ["ann", "ben"]}]
    expected += [m for i, c in zip(islands, ISLANDS.split()) for m in add(f"ISLAND:{i}", c)]
    expected += add("ENTRANCE:0", ENTRANCE_0) + add("ENTRANCE:1", ENTRANCE_1)
    expected += add("CLOUD:0", "RED YELLOW BLUE") + add("CLOUD:1", "GREEN PINK PINK")
    expected += [{"type": "CHANGE_TURN", "playingPlayer": 1}, {"type": "CHANGE_PHASE", "gamePhase": "PLANNING_PHASE"}]
    assert table.setup == expected


def test_first_turns_match_the_transcript() -> None:
    table = Table(2, False, first=1, draws=" ".join([ISLANDS, ENTRANCE_0, ENTRANCE_1, CLOUDS]))
    assert table.send(1, "PLAY_ASSISTANT_CARD", assistantCard=4) == [
        {"type": "PLAY_ASSISTANT_CARD", "assistantCard": 4, "player": 1},
        {"type": "CHANGE_TURN", "playingPlayer": 0}, ACK]
    assert table.send(0, "PLAY_ASSISTANT_CARD", assistantCard=4) == [nack("You can't play this Assistant Card.")]
    assert table.send(0, "PLAY_ASSISTANT_CARD", assistantCard=2) == [
        {"type": "PLAY_ASSISTANT_CARD", "assistantCard": 2, "player": 0},
        {"type": "CHANGE_TURN", "playingPlayer": 0},
        {"type": "CHANGE_PHASE", "gamePhase": "ACTION_PHASE_ONE"}, ACK]
    assert table.send(0, "MOVE_STUDENT_FROM_ENTRANCE_TO_TABLE", color="GREEN") == [
        {"type": "SET_PROFESSOR_TO", "color": "GREEN", "player": 0},
        {"type": "MOVE_STUDENT", "from": "ENTRANCE:0", "to": "DININGROOM:0", "color": "GREEN"}, ACK]
    assert table.send(0, "MOVE_STUDENT_FROM_ENTRANCE_TO_ISLAND", color="PINK", islandIndex=4) == [
        {"type": "MOVE_STUDENT", "from": "ENTRANCE:0", "to": "ISLAND:4", "color": "PINK"}, ACK]
    assert table.send(0, "MOVE_STUDENT_FROM_ENTRANCE_TO_TABLE", color="BLUE") == [
        {"type": "SET_PROFESSOR_TO", "color": "BLUE", "player": 0},
        {"type": "MOVE_STUDENT", "from": "ENTRANCE:0", "to": "DININGROOM:0", "color": "BLUE"},
        {"type": "CHANGE_PHASE", "gamePhase": "ACTION_PHASE_TWO"}, ACK]
    assert table.send(0, "MOVE_MOTHER_NATURE", amount=2) == [nack("you cannot move mother nature more than 1")]
    assert table.send(0, "MOVE_MOTHER_NATURE", amount=1) == [
        {"type": "MOVE_TOWERS", "from": "PLAYER:0", "to": "ISLAND:1", "amount": 1},
        {"type": "MOVE_MOTHER_NATURE", "position": 1},
        {"type": "CHANGE_PHASE", "gamePhase": "ACTION_PHASE_THREE"}, ACK]
    assert table.send(0, "CHOOSE_CLOUD", cloudIndex=1) == [
        {"type": "MOVE_STUDENT", "from": "CLOUD:1", "to": "ENTRANCE:0", "color": "GREEN"},
        {"type": "MOVE_STUDENT", "from": "CLOUD:1", "to": "ENTRANCE:0", "color": "PINK"},
        {"type": "MOVE_STUDENT", "from": "CLOUD:1", "to": "ENTRANCE:0", "color": "PINK"},
        {"type": "CHANGE_TURN", "playingPlayer": 1},
        {"type": "CHANGE_PHASE", "gamePhase": "ACTION_PHASE_ONE"}, ACK]
    snap = table.snap
    assert snap["islands"][1] == {"students": {"GREEN": 0, "RED": 0, "YELLOW": 0, "PINK": 0, "BLUE": 1},
                                  "towers": 1, "towerColor": "BLACK", "noEntry": 0}
    assert snap["towers"] == {"BLACK": 7, "WHITE": 8}
    assert snap["actionOrder"] == [0, 1] and snap["planningOrder"] == [1, 0]
    assert snap["turn"]["studentsToMove"] == 3 and snap["turn"]["motherNatureLimit"] == 2
