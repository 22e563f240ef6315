"""A person's seat in a lobby room composes an answer no list offers (a Q turn of several
tiles, docs/lobby.md "Rooms played by calls"): ``CHECK`` asks the game's own rules what is
wrong with tentative answers, nothing taken; a legal composed ``REPLY`` is taken, an
illegal one refused with the rule's reason, and the person may try again; ``CHECK`` out of
turn, from a spectator, or too long is refused."""

from __future__ import annotations

import random
from typing import Any

import pytest

from gameroom.remote.jsonstream import encode
from tests.lobby.rooms import LobbyProcess


@pytest.fixture(scope="module")
def lobby(tmp_path_factory: pytest.TempPathFactory) -> Any:
    server = LobbyProcess(tmp_path_factory.mktemp("composed"), {"callTimeoutSeconds": 60})
    yield server
    server.stop()


def test_a_person_places_several_q_tiles_in_one_turn(lobby: LobbyProcess) -> None:
    ann = lobby.connect("anncomp")
    room = ann.request({"type": "CREATE_ROOM", "game": "q", "numberOfPlayers": 2, "isPrivate": True,
                        "person": True}, "ROOM_ID")["id"]
    watcher = lobby.connect("watchcomp")
    assert watcher.request({"type": "WATCH_ROOM", "id": room}, "ACK")["type"] == "ACK"
    assert ann.request({"type": "CHECK", "results": []}, "CHECKED") == {
        "type": "NACK", "errorMessage": "The game has not started yet"}
    ann.send({"type": "ADD_BOT", "strategy": "dag"})
    rng = random.Random(1)
    composed = refused = 0
    while True:
        m = ann.recv()
        assert m is not None
        if m["type"] == "END_GAME":
            break
        if m["type"] != "CALL" or m.get("oneWay"):
            continue
        singles = [move["action"] for move in m["moves"] if isinstance(move["action"], list)
                   and len(move["action"]) == 1]
        pairs = [a + b for a in singles for b in singles if a[0]["coordinate"] != b[0]["coordinate"]][:256]
        if m["method"] == "take-turn" and pairs:
            answer = ann.request({"type": "CHECK", "call": m["call"], "results": pairs}, "CHECKED")
            assert answer["type"] == "CHECKED" and answer["call"] == m["call"] and len(answer["problems"]) == len(pairs)
            legal = [pair for pair, problem in zip(pairs, answer["problems"]) if problem is None]
            wrong = [(pair, problem) for pair, problem in zip(pairs, answer["problems"]) if problem is not None]
            if wrong and not refused:   # an illegal composed turn: the rule's reason, and the call still waits
                refusal = ann.request({"type": "REPLY", "call": m["call"], "result": wrong[0][0]}, "ACK")
                assert refusal["type"] == "NACK" and refusal["errorMessage"].startswith(
                    f"Not one of the {len(m['moves'])} legal moves offered for take-turn, nor legal: "), refusal
                assert wrong[0][1] in refusal["errorMessage"]
                refused += 1
            if legal:
                assert ann.request({"type": "REPLY", "call": m["call"], "result": legal[0]}, "ACK") == {"type": "ACK"}
                composed += 1
                continue
        ann.request({"type": "REPLY", "call": m["call"], "result": rng.choice(m["moves"])["action"]}, "ACK")
    assert composed and refused
    assert watcher.request({"type": "CHECK", "results": []}, "CHECKED")["type"] == "NACK"
    for client in (ann, watcher):
        client.close()


def test_a_check_out_of_turn_or_too_long_is_refused(lobby: LobbyProcess) -> None:
    bo = lobby.connect("bocomp")
    bo.request({"type": "CREATE_ROOM", "game": "q", "numberOfPlayers": 2, "isPrivate": True, "person": True},
               "ROOM_ID")
    bo.send({"type": "ADD_BOT", "strategy": "dag"})
    call = next(m for m in iter(bo.recv, None) if m["type"] == "CALL" and not m.get("oneWay"))
    too_long = bo.request({"type": "CHECK", "results": [[]] * 257}, "CHECKED")
    assert too_long == {"type": "NACK", "errorMessage": "A CHECK carries results: a list of at most 256 answers"}
    assert bo.request({"type": "CHECK", "results": "x"}, "CHECKED")["type"] == "NACK"
    offered = bo.request({"type": "CHECK", "results": [call["moves"][0]["action"], {"no": 1}]}, "CHECKED")
    assert offered["problems"][0] is None and "expected" in offered["problems"][1], offered
    # the reply and a check in one write: handled in order, the check after the call is answered
    bo.sock.sendall(encode({"type": "REPLY", "call": call["call"], "result": call["moves"][0]["action"]})
                    + encode({"type": "CHECK", "results": []}))
    assert bo.until("ACK")[-1] == {"type": "ACK"}
    assert bo.until("NACK", "CHECKED")[-1] == {"type": "NACK", "errorMessage": "No call is waiting for your reply"}
    bo.close()
