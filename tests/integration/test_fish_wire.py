"""Fish over real TCP against hand-written peers (fish.md 6, 7).

* A peer written to the reference wire format (2040 spaces before each reply, trickled in
  small chunks) plays on ``gameroom serve fish``.
* Peers that answer with garbage, half a value, nothing, a disconnect, wrongly shaped JSON,
  an ERROR text, or a late answer are removed with their reason while the server still
  prints ``[W, F]``; a tournament of five goes on around a silent and a vanishing player
  and a bad sign-up.
* The query extension (spec Appendix A): a peer asks during ``take-turn`` and gets answers,
  the six calls it receives are the reference's, and ``--strategy querying`` clients play a
  whole tournament on the server.
* Our clients on a minimal server written from spec 6.3/6.4 alone.
"""

from __future__ import annotations

import json
import socket
import subprocess
import threading
import time
from typing import Any, Callable

import pytest

from conftest import read_json_values
from driver import Server, free_port, spawn, submit

from gameroom.games.fish.protocol import decode_call
from gameroom.games.fish.strategies import GreedyStrategy
from gameroom.games.fish.codec import decode_state, encode_move, encode_position

GREEDY = GreedyStrategy()
# Every call's limit: a well-behaved peer (a thread of this loaded test process) must never
# miss it, and only the cases that test a time-out wait it out (at the same time as each
# other). A 1 s limit ejected a well-behaved peer at a load of 10-37.
LIMIT = 10
# The sign-up window costs nothing when both peers come (the game starts at max-players) and
# is generous: under a load average of 50 a 4 s window closed before the second peer signed up.
FAST = {"server-wait": 30, "server-tries": 1, "min-players": 2, "max-players": 2, "time-per-turn": LIMIT,
        "ready-time": LIMIT, "start-timeout": LIMIT, "name-timeout": LIMIT}


class Peer:
    """A hand-written client: newline-framed reads, reference-style writes."""

    def __init__(self, port: int, name: Any, pad: int = 2040, trickle: bool = True,
                 server: Server | None = None) -> None:
        self.server = server   # what it says, for a peer that waits for it
        # until the server listens: its process may take long to start on a loaded machine
        deadline = time.monotonic() + 120
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", port))
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        self.file = self.sock.makefile("rb")
        self.pad, self.trickle = pad, trickle
        self.calls: list[Any] = []
        if name is not None:
            self.send(name)

    def send(self, value: Any) -> None:
        self.send_raw(json.dumps(value).encode() + b"\n")

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(b" " * self.pad)
        size = max(len(data) // 100, 10) if self.trickle else len(data)
        for i in range(0, len(data), size):
            self.sock.sendall(data[i:i + size])
            if self.trickle:
                time.sleep(0.005)

    def recv(self) -> Any:
        line = self.file.readline()
        return json.loads(line) if line.strip() else None

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


Behaviour = Callable[[Peer, str, list[Any]], bool]   # True: it answered (or broke) by itself


def greedy_answer(method: str, args: list[Any]) -> Any:
    if method == "setup":
        return encode_position(GREEDY.place(decode_state(args[0])))
    if method == "take-turn":
        return encode_move(GREEDY.move(decode_state(args[0])))
    return "void"


def play_peer(port: int, name: str, behave: Behaviour | None = None, server: Server | None = None,
              **framing: Any) -> threading.Thread:
    def run() -> None:
        peer = Peer(port, name, server=server, **framing)
        try:
            while (call := peer.recv()) is not None:
                decode_call(call)   # the six reference calls, unchanged
                peer.calls.append(call[0])
                method, args = call
                if behave is not None and behave(peer, method, args):
                    continue
                peer.send(greedy_answer(method, args))
                if method == "end":
                    break
        except OSError:
            pass
        finally:
            peer.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def start_server(config: dict[str, Any]) -> Server:
    return Server("fish", json.dumps(config).encode())


def finish(server: Server) -> tuple[Any, str]:
    out, err = server.finish(timeout=300)
    values = read_json_values(out)
    return (values[0] if values else None), err


def finish_with_clients(server: Server, *flags: str) -> tuple[Any, str]:
    """Run ``gameroom clients fish`` with `flags` against the server until it reports."""
    clients = spawn(["clients", "fish", "--port", str(server.port), *flags],
                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        return finish(server)
    finally:
        clients.kill()
        clients.wait()


def two_player_game(behave: Behaviour | None, config: dict[str, Any] = FAST) -> tuple[Any, str]:
    """Peer A (well-behaved) signs up first, peer B behaves as given."""
    server = start_server(config)
    play_peer(server.port, "Alpha", server=server)
    server.wait_for(r"signed up Alpha \(1\)")
    play_peer(server.port, "Beta", behave, server=server)
    return finish(server)


def on(method: str, act: Callable[[Peer, list[Any]], None]) -> Behaviour:
    def behave(peer: Peer, called: str, args: list[Any]) -> bool:
        if called != method:
            return False
        act(peer, args)
        return True
    return behave


def raw(data: bytes) -> Callable[[Peer, list[Any]], None]:
    return lambda peer, _args: peer.send_raw(data)


def value(reply: Any) -> Callable[[Peer, list[Any]], None]:
    return lambda peer, _args: peer.send(reply)


def nothing(_peer: Peer, _args: list[Any]) -> None:
    return None


def hang_up(peer: Peer, _args: list[Any]) -> None:
    peer.sock.shutdown(socket.SHUT_RDWR)


def late(peer: Peer, args: list[Any]) -> None:
    """The answer once the server has given up on it (however late its clock fired)."""
    assert peer.server is not None
    peer.server.wait_for(r"Beta dropped out on take-turn")
    peer.send(greedy_answer("take-turn", args))


CASES: dict[str, tuple[Behaviour | None, str | None]] = {
    "well-behaved": (None, None),
    "garbage": (on("setup", raw(b"this is not json\n")), "not JSON"),
    "ill-formed-setup": (on("setup", raw(b"(0 0)\n")), "not JSON"),
    "half-a-value": (on("take-turn", raw(b"[[0, 0], [")), "time limit"),
    "silence": (on("take-turn", nothing), "time limit"),
    "late-answer": (on("take-turn", late), "time limit"),
    "disconnect": (on("setup", hang_up), "closed"),
    "position-object": (on("setup", value({"row": 0, "column": 0})), "invalid reply"),
    "position-triple": (on("setup", value([1, 0, 0])), "invalid reply"),
    "negative-position": (on("setup", value([0, -1])), "invalid reply"),
    "move-one-position": (on("take-turn", value([[0, 0]])), "invalid reply"),
    "skip-as-move": (on("take-turn", value("skip")), "invalid reply"),
    "error-text": (on("playing-as", value("ERROR: no")), "invalid reply"),
    "void-with-space": (on("playing-with", value("void ")), "invalid reply"),
    "occupied-setup": (on("setup", lambda p, a: p.send(decode_state(a[0]).penguins()[0])
                           if decode_state(a[0]).penguins() else p.send([9, 9])), "not a free tile"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_server_survives_a_misbehaving_peer(case: str) -> None:
    for other in CASES:
        submit(("fish-wire", other), two_player_game, CASES[other][0], waits=True)
    result, err = submit(("fish-wire", case), two_player_game, CASES[case][0], waits=True).result()
    reason = CASES[case][1]
    if reason is None:
        assert result is not None and result[1] == 0 and result[0] >= 1, err
        return
    assert result == [1, 1], err
    assert "Beta dropped out on" in err and reason in err, err


def tournament_around_trouble() -> tuple[Any, str]:
    """Six signed-up players: four of our greedy clients, a peer that goes silent in its
    first turn and one that vanishes during placement; plus a bad sign-up."""
    # The tournament waits for all six (its minimum), however long the clients process
    # takes to start: short periods, many of them (a loaded machine took over 15 s).
    config = {"server-wait": 2, "server-tries": 100, "min-players": 6, "max-players": 10, "time-per-turn": LIMIT,
              "ready-time": LIMIT, "start-timeout": LIMIT, "name-timeout": LIMIT}
    server = start_server(config)
    bad_name = Peer(server.port, "no digits 4 me")
    play_peer(server.port, "Quiet", on("take-turn", nothing))
    play_peer(server.port, "Gone", on("setup", hang_up))
    try:
        return finish_with_clients(server, "--count", "4")
    finally:
        bad_name.close()


def test_a_tournament_goes_on_around_misbehaving_players() -> None:
    result, err = submit(("fish-wire-tournament",), tournament_around_trouble, waits=True).result()
    assert result is not None and result[0] >= 1 and result[1] == 2, err
    assert "Quiet dropped out on take-turn" in err and "Gone dropped out on setup" in err
    # no reply to a name (fish.md 7.1): the server's line says why it was refused
    assert 'invalid name "no digits 4 me": a name is 1 to 12 ASCII letters (fish.md 7.1)' in err, err


def asking_peer(peer: Peer, method: str, args: list[Any]) -> bool:
    if method != "take-turn":
        return False
    answers = []
    for query in ({"query": "phase"}, {"query": "current-player"}, {"query": "legal-moves"},
                  {"query": "legal-moves", "state": args[0]}, {"query": "tournament-info"},
                  {"query": "nonsense"}):
        peer.send(query)
        answers.append(peer.recv())
    moves = answers[2]["answer"]
    assert answers[0] == {"answer": "playing"}
    assert answers[1] == {"answer": args[0]["players"][0]["color"]}
    assert answers[3] == answers[2] and moves
    assert answers[4]["answer"]["round"] == 1
    assert "error" in answers[5]
    peer.send({"query": "legal?", "move": moves[0]})
    assert peer.recv() == {"answer": True}
    peer.send(moves[0])
    peer.asked = True   # type: ignore[attr-defined]
    return True


def test_queries_over_the_wire_leave_the_six_calls_unchanged() -> None:
    # Seven round trips inside one call: within the generous limit of every case.
    result, err = submit(("fish-wire", "asking"), two_player_game, asking_peer, waits=True).result()
    assert result is not None and result[1] == 0, err


def querying_clients() -> tuple[Any, str]:
    config = dict(FAST, **{"min-players": 3, "max-players": 3})
    return finish_with_clients(start_server(config), "--count", "3", "--strategy", "querying")


def test_querying_clients_play_a_tournament() -> None:
    result, err = submit(("fish-wire", "querying"), querying_clients, waits=True).result()
    assert result is not None and result[0] >= 1 and result[1] == 0, err


def test_our_client_plays_on_a_spec_server() -> None:
    """A server written from spec 6.3/6.4 alone drives one of our clients through a game."""
    port = free_port()
    listener = socket.create_server(("127.0.0.1", port))
    client = spawn(["clients", "fish", "--port", str(port), "--count", "1"],
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    sock, _ = listener.accept()
    peer = Peer.__new__(Peer)
    peer.sock, peer.file, peer.pad, peer.trickle = sock, sock.makefile("rb"), 0, False
    assert peer.recv() == "Pz"
    state = {"players": [{"color": "red", "score": 0, "places": []},
                         {"color": "white", "score": 0, "places": [[0, 0]]}],
             "board": [[1, 2, 3], [4, 5, 1], [2, 2, 2]]}
    exchange = [(["start", [True]], "void"), (["playing-as", ["red"]], "void"),
                (["playing-with", [["white"]]], "void"), (["setup", [state]], [1, 1])]
    for call, expected in exchange:
        peer.send(call)
        assert peer.recv() == expected
    state["players"][0]["places"] = [[1, 1]]
    peer.send(["take-turn", [state, [[[0, 0], [2, 0]], "skip"]]])
    move = peer.recv()
    assert move in [encode_move(m) for m in decode_state(state).legal_moves()]
    peer.send(["end", [True]])
    assert peer.recv() == "void"
    out, _err = client.communicate(timeout=30)
    assert out.decode().strip() == "all done"
    listener.close()


def too_few_players() -> tuple[Any, str]:
    server = start_server({"server-wait": 1, "server-tries": 2})
    play_peer(server.port, "Lonely")
    return finish(server)


def test_too_few_players_after_two_periods_means_no_tournament() -> None:
    result, err = submit(("fish-wire", "too-few"), too_few_players, waits=True).result()
    assert result == [0, 0] and "too few players" in err
