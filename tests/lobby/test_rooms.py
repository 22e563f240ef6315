"""Rooms of every game in one lobby (docs/lobby.md), through the real ``gameroom lobby``
and real sockets: the games and their room options; bots of Q, Fish, Bazaar and
Evolution filling rooms (``gameroom clients GAME --lobby``), cheaters among them ejected
by the game's own referee; a person (a scripted client of the moves offered) against
house bots with a spectator watching, a refused answer tried again; each seat seeing
its own view only; a time-out, a disconnect and an unreadable reply ejecting a seat
while the game goes on; the listing, its filters and every refusal of a room."""

from __future__ import annotations

import json
import random
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from driver import run_gameroom
from gameroom.games import registry
from tests.lobby.rooms import LobbyProcess, RoomClient, play_person

CALL_GAMES = ["q", "fish", "bazaar", "evolution"]
CHEATS = {"q": "cheat-not-a-line", "fish": "bad-turn-choice", "bazaar": "cheat-use-non-existent-equation",
          "evolution": "no-fc"}   # each misbehaves at its first chance, whatever the deal
PLAYERS = {"q": 2, "fish": 2, "bazaar": 2, "evolution": 3}
BOTS = {"q": "dag", "fish": "greedy", "bazaar": "purchase-points", "evolution": "silly"}


@pytest.fixture(scope="module")
def lobby(tmp_path_factory: pytest.TempPathFactory) -> Any:
    # generous limits for the program seats: the machine is shared and may be loaded
    server = LobbyProcess(tmp_path_factory.mktemp("rooms"), {"callTimeoutSeconds": 60})
    yield server
    server.stop()


def test_the_lobby_says_which_games_it_serves_and_their_room_options(lobby: LobbyProcess) -> None:
    client = lobby.connect("gina")
    games = {g["name"]: g for g in client.request({"type": "GET_GAMES"}, "GAMES")["games"]}
    assert set(CALL_GAMES) | {"eriantys"} <= set(games)
    assert games["eriantys"]["default"] and games["eriantys"]["plays"] == "events"
    assert [o["name"] for o in games["eriantys"]["options"]] == ["expert"]
    fish = games["fish"]
    assert fish["plays"] == "calls" and fish["numberOfPlayers"] == [2, 3, 4] and not fish["default"]
    assert [(o["name"], o["kind"], o["default"]) for o in fish["options"]] == [
        ("rows", "int", 5), ("columns", "int", 5), ("fish", "int", None)]
    assert fish["options"][0]["low"] == 2 and "board rows" in fish["options"][0]["help"]
    assert games["evolution"]["numberOfPlayers"] == [3, 4, 5, 6, 7, 8]
    assert games["evolution"]["options"][0]["choices"] == ["sorted", "shuffled"]
    assert [o["name"] for o in games["q"]["options"]] == ["q-bonus", "finish-bonus"]
    assert "letters" in games["q"]["names"]
    descriptors = registry.games()
    assert all(g["personLimit"] == descriptors[name].person_limit >= g["callLimit"] and g["bots"]
               for name, g in games.items())


@pytest.mark.parametrize("game", CALL_GAMES)
def test_bots_fill_rooms_and_a_cheater_is_ejected_by_the_games_referee(lobby: LobbyProcess, game: str) -> None:
    players = PLAYERS[game]
    run = run_gameroom(["clients", game, "--lobby", "--port", str(lobby.port), "--rooms", "3", "--players",
                        str(players), "--baddie", CHEATS[game], "--quiet"], b"", timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert len(lines) == 3 and len({line["room"] for line in lines}) == 3
    for line in lines:
        assert set(line["winners"]) <= set(line["players"]) and len(line["players"]) == players
    cheater = lines[0]["players"][-1]
    assert cheater not in lines[0]["winners"] and lines[0]["winners"], lines[0]
    assert len(lines[0].get("out", [])) == 1 and ": EJECTED: " in lines[0]["out"][0], (lines, run.stderr)
    assert lines[0]["out"] == [f"{cheater}: EJECTED: " + lines[0]["out"][0].split(": EJECTED: ", 1)[1]], lines[0]
    assert all("out" not in line and line["winners"] for line in lines[1:]), lines


@pytest.mark.parametrize("game", CALL_GAMES)
def test_a_person_plays_against_house_bots_while_a_spectator_watches(lobby: LobbyProcess, game: str) -> None:
    person, watcher = lobby.connect(f"ann{game}"), lobby.connect(f"walt{game}")
    players = PLAYERS[game]
    room = person.request({"type": "CREATE_ROOM", "game": game, "numberOfPlayers": players, "isPrivate": True,
                           "person": True}, "ROOM_ID")["id"]
    watcher.send({"type": "WATCH_ROOM", "id": room})
    before = watcher.until("ACK")   # the players seated so far, then ACK
    for _ in range(players - 1):
        assert person.request({"type": "ADD_BOT", "strategy": BOTS[game]}, "ACK") == {"type": "ACK"}
    with ThreadPoolExecutor(1) as pool:   # the spectator reads while the person plays
        watching = pool.submit(watcher.until, "END_GAME")
        seen = play_person(person, random.Random(7))
        watched = before + watching.result()
    refusal = seen["refusals"][0]
    # the game's codec cannot read it, or it can and it is not one of the moves offered
    assert refusal["type"] == "NACK" and refusal["errorMessage"].startswith(("Invalid reply to ", "Not one of the ")), (
        refusal)
    assert seen["decisions"] >= 1 and seen["end"]["type"] == "END_GAME", seen["end"]
    assert person.name not in seen["end"].get("misbehaved", [])
    assert [s["step"] for s in seen["states"]] == list(range(1, len(seen["states"]) + 1))
    kinds = [m["type"] for m in watched]
    assert kinds.count("ADD_PLAYER") == players and kinds.count("START_GAME") == 1
    start = next(m for m in watched if m["type"] == "START_GAME")
    assert start["game"] == game and start["players"][0] == person.name
    spectated = [m for m in watched if m["type"] == "GAME_STATE"]
    assert [s["step"] for s in spectated] == [s["step"] for s in seen["states"]]
    assert [s["caption"] for s in spectated] == [s["caption"] for s in seen["states"]]
    assert watched[-1] == seen["end"]
    assert not [m for m in watched if m["type"] == "CALL"]   # a spectator is asked nothing
    # the room is gone: everybody is back in the lobby
    assert person.request({"type": "ACCESS_ROOM", "id": room}, "ACK")["errorMessage"] == "Not an initializing room"


def test_each_seat_sees_its_own_view_and_a_spectator_no_hand(lobby: LobbyProcess) -> None:
    ada, bo, spy = lobby.connect("Ada"), lobby.connect("Bo"), lobby.connect("Spy")
    room = ada.request({"type": "CREATE_ROOM", "game": "q", "numberOfPlayers": 3, "isPrivate": False,
                        "person": True, "q-bonus": 8}, "ROOM_ID")["id"]
    spy.request({"type": "WATCH_ROOM", "id": room}, "ACK")
    assert bo.request({"type": "ACCESS_ROOM", "id": room, "person": True}, "ACK") == {"type": "ACK"}
    ada.request({"type": "ADD_BOT", "strategy": "ldasg"}, "ACK")
    with ThreadPoolExecutor(3) as pool:   # both people play at once, the spectator reads meanwhile
        watching = pool.submit(spy.until, "END_GAME")
        games = list(pool.map(lambda person: play_person(person, random.Random(person.name)), (ada, bo)))
        watched = watching.result()
    for person, seen in zip((ada, bo), games):
        assert seen["end"]["type"] == "END_GAME" and seen["decisions"] >= 1
        for state in seen["states"]:
            me, *others = state["state"]["players"]
            assert me["name"] == person.name and isinstance(me["tile*"], list)
            assert all(isinstance(score, int) for score in others)   # the others' scores only
    start = next(m for m in watched if m["type"] == "START_GAME")
    assert start["q-bonus"] == 8 and start["finish-bonus"] == 6 and start["players"] == ["Ada", "Bo", "ldasg1"]
    for m in watched:
        if m["type"] == "GAME_STATE":
            assert all(isinstance(p["tile*"], int) for p in m["state"]["players"])   # hand sizes, no tiles


def decision(client: RoomClient) -> dict[str, Any]:
    """The first CALL that wants an answer (one-way calls only tell)."""
    while True:
        call = client.until("CALL")[-1]
        if not call.get("oneWay"):
            return call


@pytest.mark.parametrize("game", CALL_GAMES)
def test_a_time_out_a_disconnect_and_an_unreadable_reply_eject_their_seats(tmp_path: Path, game: str) -> None:
    lobby = LobbyProcess(tmp_path, {"callTimeoutSeconds": 1})
    try:
        sleepy, leaver, garbler, watcher = (lobby.connect(n) for n in ("sleepy", "leaver", "garbler", "watcher"))
        room = sleepy.request({"type": "CREATE_ROOM", "game": game, "numberOfPlayers": 4, "isPrivate": False},
                              "ROOM_ID")["id"]
        watcher.request({"type": "WATCH_ROOM", "id": room}, "ACK")
        leaver.request({"type": "ACCESS_ROOM", "id": room}, "ACK")
        garbler.request({"type": "ACCESS_ROOM", "id": room}, "ACK")
        sleepy.request({"type": "ADD_BOT", "strategy": BOTS[game]}, "ACK")
        call = decision(sleepy)   # never answered
        assert call["limit"] == 1 and "moves" not in call, call
        decision(leaver)
        leaver.close()
        call = decision(garbler)
        nack = garbler.request({"type": "REPLY", "call": call["call"], "result": {"not": ["a", "result"]}}, "ACK")
        assert nack["errorMessage"].startswith(f"Invalid reply to {call['method']}: "), nack
        out = garbler.until("PLAYER_DISCONNECT")[-1]
        assert out["username"] == "garbler" and out["reason"] == "EJECTED" and "invalid reply" in out["message"]
        watched = watcher.until("END_GAME")
        gone = {m["username"]: m for m in watched if m["type"] == "PLAYER_DISCONNECT"}
        assert gone["sleepy"]["reason"] == "TIMEOUT" and gone["sleepy"]["message"] == (
            "no reply within the time limit of 1 s")
        assert gone["leaver"] == {"type": "PLAYER_DISCONNECT", "username": "leaver", "roomClosed": False,
                                  "reason": "CONNECTION_LOST"}
        *people, bot = next(m for m in watched if m["type"] == "START_GAME")["players"]
        assert people == ["sleepy", "leaver", "garbler"] and bot.startswith(BOTS[game].replace("-", "")[:12])
        end = watched[-1]
        assert end["winners"] == [bot] and set(end["misbehaved"]) == {"sleepy", "leaver", "garbler"}, end
        # the ejected are back in the lobby, still logged in
        assert sleepy.request({"type": "GET_PUBLIC_ROOMS", "game": game}, "PUBLIC_ROOMS")["rooms"] == []
    finally:
        log = lobby.stop()
    assert f"{game} game 0 (seed 7) starts: sleepy, leaver, garbler, {bot}" in log and "game over" in log


def test_the_listing_its_filters_and_the_refusals_of_a_room(lobby: LobbyProcess) -> None:
    a, b, c, d = (lobby.connect(n) for n in ("lia", "max", "ned", "ola"))
    fish = a.request({"type": "CREATE_ROOM", "game": "fish", "numberOfPlayers": 4, "rows": 4, "columns": 3,
                      "isPrivate": False}, "ROOM_ID")["id"]
    q = d.request({"type": "CREATE_ROOM", "game": "q", "numberOfPlayers": 2, "isPrivate": False}, "ROOM_ID")["id"]
    listed = b.request({"type": "GET_PUBLIC_ROOMS", "game": "*"}, "PUBLIC_ROOMS")["rooms"]
    mine = {r["id"]: r for r in listed if r["id"] in (fish, q)}
    assert mine[fish] == {"id": fish, "numberOfPlayers": 4, "rows": 4, "columns": 3, "fish": None, "isPrivate": False,
                          "currentPlayers": 1, "game": "fish"}
    assert mine[q] == {"id": q, "numberOfPlayers": 2, "q-bonus": 6, "finish-bonus": 6, "isPrivate": False,
                       "currentPlayers": 1, "game": "q"}
    assert fish not in [r["id"] for r in b.request({"type": "GET_PUBLIC_ROOMS"}, "PUBLIC_ROOMS")["rooms"]]
    assert [r["id"] for r in b.request({"type": "GET_PUBLIC_ROOMS", "game": "fish", "rows": 4}, "PUBLIC_ROOMS")
            ["rooms"]] == [fish]
    assert b.request({"type": "GET_PUBLIC_ROOMS", "game": "fish", "rows": 7}, "PUBLIC_ROOMS")["rooms"] == []
    for message, error in [
        ({"type": "GET_PUBLIC_ROOMS", "game": "fish", "rows": "four"}, "Invalid rows filter"),
        ({"type": "GET_PUBLIC_ROOMS", "game": "fish", "numberOfPlayers": 5}, "Invalid number of players"),
        ({"type": "GET_PUBLIC_ROOMS", "game": "chess"}, "Unknown game 'chess'; the games: eriantys, "),
        ({"type": "CREATE_ROOM", "game": "fish", "numberOfPlayers": 4, "rows": 2, "columns": 3},
         "Invalid room settings: a 2 x 3 board has 6 tiles, too few for the 8 penguins of 4 players"),
        ({"type": "CREATE_ROOM", "game": "fish", "numberOfPlayers": 2, "rows": 9}, "Invalid room settings: rows must "
                                                                                    "lie in 2..8, got 9"),
        ({"type": "CREATE_ROOM", "game": "evolution", "numberOfPlayers": 3, "deck": "stacked"},
         "Invalid room settings: deck: invalid choice 'stacked'; choose from sorted, shuffled"),
        ({"type": "CREATE_ROOM", "game": "q", "numberOfPlayers": 2, "person": "yes"}, "Invalid room settings: person"),
        ({"type": "ADD_BOT", "strategy": "dag"}, "Not yet in a room!"),
        ({"type": "REPLY", "result": 1}, "Not yet in a room!"),
        ({"type": "WATCH_ROOM", "id": 17}, "Not a room"),
    ]:
        answer = b.request(message, "ROOM_ID", "PUBLIC_ROOMS", "ACK")
        assert answer["type"] == "NACK" and answer["errorMessage"].startswith(error), (message, answer)
    bad_name = lobby.connect("bad_name")   # Q's calls carry names of letters and digits only
    refused = bad_name.request({"type": "ACCESS_ROOM", "id": q}, "ACK")
    assert refused["errorMessage"].startswith("Unable to access room: q needs player names of 1 to 20 ASCII")
    assert a.request({"type": "ADD_BOT", "strategy": "dag"}, "ACK")["errorMessage"].startswith(
        "Unknown bot 'dag'; choose from greedy")
    # leaving a room before its game frees the seat; the seats after it move up one
    b.request({"type": "ACCESS_ROOM", "id": fish}, "ACK")
    c.request({"type": "ACCESS_ROOM", "id": fish}, "ACK")
    assert b.request({"type": "LEAVE_ROOM"}, "ACK") == {"type": "ACK"}
    assert c.until("PLAYER_DISCONNECT")[-1] == {"type": "PLAYER_DISCONNECT", "username": "max", "roomClosed": False,
                                               "reason": "LEFT"}
    b.send({"type": "ACCESS_ROOM", "id": fish})
    assert [(m["username"], m["position"]) for m in b.until("ACK") if m["type"] == "ADD_PLAYER"] == [
        ("lia", 0), ("ned", 1), ("max", 2)]
    # a room whose players all leave is closed
    for member in (a, b, c):
        assert member.request({"type": "LEAVE_ROOM"}, "ACK") == {"type": "ACK"}
    assert lobby.connect("pia").request({"type": "ACCESS_ROOM", "id": fish}, "ACK")["errorMessage"] == (
        "Not an initializing room")
