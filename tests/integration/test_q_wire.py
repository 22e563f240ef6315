"""Q over real TCP against hand-written peers: a client written to the reference wire
format (5000-space padding, trickled chunks, exact keys) plays on our server; clients that
send garbage, half a value, an oversized value, a wrong key set, nothing at all, or that
disconnect mid-game are ejected with their reason while the server still prints the
result; and our clients play on a minimal server written from the spec alone."""

from __future__ import annotations

import json
import socket
import subprocess
import threading
from typing import Any, Callable

import pytest

from conftest import read_json_values
from driver import Server, free_port, spawn, submit
from peer import Peer

from gameroom.games.q import codec
from gameroom.games.q.strategies import STRATEGIES, iterate

RED_STAR = {"color": "red", "shape": "star"}
HAND_A = [{"color": "red", "shape": "circle"}, {"color": "blue", "shape": "star"}]
HAND_B = [{"color": "green", "shape": "star"}, {"color": "red", "shape": "square"}]


# Every call's limit: the well-behaved player (a thread of this loaded test process) never
# misses it; only the cases that test a time-out wait it out, at the same time as each other.
PER_TURN = 10


def server_config(per_turn: int = PER_TURN) -> dict[str, Any]:
    """Two players of a tiny game. A and B sign up in the first of many short periods (a
    period ends the sign-up once two are in), however late a loaded machine lets them come."""
    state = {"map": [[0, [0, RED_STAR]]],
             "players": [{"name": "A", "score": 0, "tile*": HAND_A}, {"name": "B", "score": 0, "tile*": HAND_B}],
             "tile*": [{"color": "yellow", "shape": "clover"}] * 10}
    return {"port": 45678, "server-tries": 9, "server-wait": 3, "wait-for-signup": 9, "quiet": False,
            "ref-spec": {"state0": state, "quiet": False, "config-s": {"qbo": 6, "fbo": 6},
                         "per-turn": per_turn, "observe": False}}


def reference_style_player(name: str, misbehave: Callable[[Peer, Any], bool] | None = None,
                           port: int = 0) -> threading.Thread:
    """A dag player written against the wire format only; ``misbehave(peer, call)`` may take
    over a take-turn call (returning True when it did)."""

    def run() -> None:
        peer = Peer.connect(port)
        peer.send(name)
        while (call := peer.recv()) is not None:
            method, args = call
            if method == "take-turn":
                if misbehave is not None and misbehave(peer, call):
                    continue
                pub = codec.decode_pub(args[0])
                peer.send(codec.encode_choice(iterate(STRATEGIES["dag"], pub)))
            else:
                peer.send("void")
                if method == "win":
                    break
        peer.sock.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def play_against(misbehave: Callable[[Peer, Any], bool] | None) -> tuple[Any, str]:
    server = Server("q", json.dumps(server_config()).encode())
    reference_style_player("A", port=server.port)
    server.wait_for(r"signed up A \(1\)")   # sign-up order: A first
    reference_style_player("B", misbehave, port=server.port)
    out, err = server.finish(timeout=300)
    return read_json_values(out), err


def _send_raw(data: bytes) -> Callable[[Peer, Any], bool]:
    def misbehave(peer: Peer, _call: Any) -> bool:
        peer.sock.sendall(data)
        return True
    return misbehave


def _wrong_keys(peer: Peer, call: Any) -> bool:
    pub = codec.decode_pub(call[1][0])
    reply = codec.encode_choice(iterate(STRATEGIES["dag"], pub))
    if isinstance(reply, list):
        reply[0]["extra"] = 1
    peer.send(reply)
    return True


def _disconnect(peer: Peer, _call: Any) -> bool:
    peer.sock.shutdown(socket.SHUT_RDWR)
    peer.sock.close()
    return True


def _silent(_peer: Peer, _call: Any) -> bool:
    return True


CASES = {
    "well-behaved": (None, [["B"], []], None),   # B scores more with its hand on this map
    "garbage": (_send_raw(b"this is not json\n"), [["A"], ["B"]], "not JSON"),
    "half-a-value": (_send_raw(b'[{"coordinate": {"row": 1,'), [["A"], ["B"]], "time limit"),
    "oversized": (_send_raw(b"[" + b'"xxxxxxxx",' * 200_000), [["A"], ["B"]], "exceeds"),
    "wrong-key-set": (_wrong_keys, [["A"], ["B"]], "unexpected key"),
    "nothing": (_silent, [["A"], ["B"]], "time limit"),
    "disconnect": (_disconnect, [["A"], ["B"]], "closed"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_server_survives_client(case: str, request: pytest.FixtureRequest) -> None:
    for other in CASES:
        submit(("q-wire", other), play_against, CASES[other][0], waits=True)
    result, err = submit(("q-wire", case), play_against, CASES[case][0], waits=True).result()
    _misbehave, expected, reason = CASES[case]
    if case == "well-behaved":
        assert result[0][1] == [] and len(result) == 1
        return
    assert result == [expected], err
    assert "B dropped out on take-turn" in err and reason in err


def test_our_clients_play_on_a_spec_server() -> None:
    """A server written from q.md 6.6 alone drives two of our clients through a game."""
    port = free_port()
    listener = socket.create_server(("127.0.0.1", port))
    clients = spawn(["clients", "q", "--port", str(port)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    config = {"host": "127.0.0.1", "port": port, "quiet": True, "wait": 2,
              "players": [["A", "dag"], ["B", "ldasg"]]}
    clients.stdin.write(json.dumps(config).encode())
    clients.stdin.close()
    clients.stdin = None
    peers = []
    for _ in range(2):
        sock, _addr = listener.accept()
        peer = Peer(sock)
        peers.append((peer.recv(), peer))
    assert [name for name, _ in peers] == ["A", "B"]
    a, b = peers[0][1], peers[1][1]
    pub = {"map": [[0, [0, {"color": "yellow", "shape": "clover"}]]], "tile*": 4,
           "players": [{"name": "A", "score": 0, "tile*": [{"color": "green", "shape": "clover"}]}, 0]}
    a.send(["setup", [pub, [{"color": "green", "shape": "clover"}]]], pad=0, trickle=False)
    assert a.recv() == "void"
    b_pub = dict(pub, players=[{"name": "B", "score": 0, "tile*": []}, 0])
    b.send(["setup", [b_pub, []]], pad=0, trickle=False)
    assert b.recv() == "void"
    a.send(["take-turn", [pub]], pad=0, trickle=False)
    reply = a.recv()
    assert reply == [{"coordinate": {"row": -1, "column": 0}, "1tile": {"color": "green", "shape": "clover"}}]
    a.send(["win", [True]], pad=0, trickle=False)
    assert a.recv() == "void"
    b.send(["win", [False]], pad=0, trickle=False)
    assert b.recv() == "void"
    out, _err = clients.communicate(timeout=30)
    assert out.decode().strip() == "all done"
    listener.close()
