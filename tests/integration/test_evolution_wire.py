"""Evolution over real TCP (evolution.md 6, 7): ``gameroom serve evolution`` with ``gameroom
clients evolution`` prints the same result lines as ``xmain`` (ids aside, 7.3) for 3 and 5
players, also with the reference's framing; 8-player games with every in-game baddie and
every sign-up baddie end with the offenders removed (or never signed up) and the results
printed; and hand-written clients that follow the reference client's state machine (5000
spaces, trickled bytes) play on our server, while one that sends garbage, one that
hangs up mid-game and one that hangs up when asked to feed (mid-feeding) are removed with
their reasons."""

from __future__ import annotations

import json
import re
import subprocess
import threading
from typing import Any, Callable

import pytest

from driver import GAMEROOM, free_port, run_gameroom, run_server_and_clients, submit
from peer import Peer

from gameroom.games.evolution.players import SillyFailed, silly_choice, silly_feeding
from gameroom.games.evolution.codec import decode_boards, decode_cards, decode_lob, encode_feeding_choice

# Every call's limit (evolution.md's is 1 s): an honest client on a loaded machine never
# misses it; the baddies that loop wait it out, at the same time as the other cases.
LIMIT = 10
# After the minimum, each further player is awaited this long: long enough for the next
# connection of a loaded machine, short for the wait after the last one.
FAST = {"server": {"extra_player_wait_s": 5, "signup_first_byte_s": 1, "signup_complete_s": 1},
        "referee": {"call_timeout_s": LIMIT}}


def _config(value: dict[str, Any]) -> bytes:
    return json.dumps(value).encode()


def xmain_lines(n: int) -> list[str]:
    """``xmain n`` with the ids of a server game of silly clients (``good guy#k``)."""
    run = run_gameroom(["harness", "evolution", "xmain"], str(n).encode())
    return [re.sub(r"id: \d+#(\d+)", r"id: good guy#\1", line) for line in run.stdout.splitlines()]


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines() if line.strip()]


def _server_game(config: dict[str, Any], flags: list[str]) -> Any:
    return submit(("evolution-remote", json.dumps(config), tuple(flags)), run_server_and_clients, "evolution",
                  _config(config), b"", flags, 300, waits=True)


CASES = {
    # the spec's defaults but the call limit (reference framing trickles every reply)
    "3-default-reference-framing": ({"referee": {"call_timeout_s": LIMIT}}, ["--count", "3", "--reference-framing"]),
    "5": (FAST, ["--count", "5"]),
    "8-with-game-baddies": (FAST, ["--count", "3", "--baddie", "over", "no-fc", "cinf", "finf", "feed"]),
    "3-with-signup-baddies": (FAST, ["--count", "3", "--baddie", "ill", "huge", "deep", "infsu"]),
}


@pytest.fixture(scope="module", autouse=True)
def _start_all() -> None:
    for config, flags in CASES.values():
        _server_game(config, flags)


@pytest.mark.parametrize("players, case", [(3, "3-default-reference-framing"), (5, "5"),
                                           (3, "3-with-signup-baddies")])
def test_server_and_clients_print_the_xmain_results(players: int, case: str) -> None:
    run = _server_game(*CASES[case]).result()
    assert run.returncode == 0, run.stderr
    assert _lines(run.stdout) == xmain_lines(players), run.stderr
    if case == "3-with-signup-baddies":
        assert run.stderr.count("improper sign-up") == 4


def test_eight_players_with_every_in_game_baddie() -> None:
    run = _server_game(*CASES["8-with-game-baddies"]).result()
    assert run.returncode == 0, run.stderr
    lines = _lines(run.stdout)
    assert lines[:2] == ["results", "-" * 24]
    ranked = [re.match(r"\d+ player id: (.*)#\d+ score: \d+", line).group(1) for line in lines[2:]]
    for name, reason in (("bad pop growth 0", "invalid action"), ("no fc 1", "invalid reply to choose"),
                         ("bad choice inf 2", f"time limit of {LIMIT} s")):
        assert re.search(rf"{name}#\d+ dropped out on choose: .*{reason}", run.stderr), run.stderr
        assert name not in ranked
    assert ranked.count("good guy") == 3


# -- hand-written clients following the reference client's state machine (6.4) -----------

def reference_client(port: int, name: str, log: list[Any],
                     misbehave: Callable[[Peer, str], bool] | None = None) -> threading.Thread:
    """Sign up, read "ok", then START/CHOOSE/FEED by message length, answering as the silly
    player; ``misbehave(peer, kind)`` may take over a call (True: stop)."""

    def run() -> None:
        peer = Peer.connect(port)
        try:
            peer.send(name)
            log.append(("ack", peer.recv()))
            boards: list[Any] = []
            cards: list[Any] = []
            while True:
                message = peer.recv()
                if message is None:
                    log.append(("closed",))
                    return
                kind = {4: "start", 2: "choose", 5: "feedNext"}[len(message)]
                log.append((kind,))
                if misbehave is not None and misbehave(peer, kind):
                    return
                if kind == "start":
                    boards, cards = decode_boards(message[2]), decode_cards(message[3])
                elif kind == "choose":
                    decode_lob(message[0]), decode_lob(message[1])
                    peer.send(silly_choice(boards, cards).to_wire())
                else:
                    boards, cards = decode_boards(message[1]), decode_cards(message[2])
                    try:
                        choice = silly_feeding(boards, message[3], decode_lob(message[4]))
                    except SillyFailed:
                        choice = False
                    peer.send(encode_feeding_choice(choice))
        finally:
            peer.sock.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def _garbage(peer: Peer, kind: str) -> bool:
    if kind == "choose":
        peer.send_raw(b"{this is not json\n")
        return True
    return False


def _hang_up_after_choosing(peer: Peer, kind: str) -> bool:
    if kind == "choose":
        peer.send([0, [], [], [], []])
        peer.sock.shutdown(2)
        return True
    return False


def _hang_up_mid_feeding(peer: Peer, kind: str) -> bool:
    if kind == "feedNext":   # asked to feed, it closes the connection instead of answering
        peer.sock.shutdown(2)
        return True
    return False


def _reference_clients_game() -> tuple[subprocess.CompletedProcess, list[list[Any]]]:
    port = free_port()
    server = subprocess.Popen(GAMEROOM + ["serve", "evolution", "--port", str(port)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    server.stdin.write(_config(FAST))
    server.stdin.close()
    server.stdin = None   # written and closed: communicate() must not flush it
    behaviours = [None, None, None, _garbage, _hang_up_after_choosing, _hang_up_mid_feeding]
    logs: list[list[Any]] = [[] for _ in behaviours]
    threads = []
    for i, misbehave in enumerate(behaviours):
        threads.append(reference_client(port, f"peer {i}", logs[i], misbehave))
        while not logs[i]:   # sign up one after another, so the order is known
            threading.Event().wait(0.05)
    out, err = server.communicate(timeout=300)
    for thread in threads:
        thread.join(120)   # generous: the clients read their last messages on a loaded machine
    return subprocess.CompletedProcess(server.args, server.returncode, out.decode(), err.decode()), logs


def test_reference_style_clients_play_and_offenders_are_removed() -> None:
    run, logs = submit(("evolution-reference-clients",), _reference_clients_game, waits=True).result()
    assert run.returncode == 0, run.stderr
    lines = _lines(run.stdout)
    assert lines[:2] == ["results", "-" * 24] and len(lines) == 5
    ranked = {re.match(r"\d+ player id: (.*#\d+) score", line).group(1) for line in lines[2:]}
    # newest first: peer 5 is #1, ..., peer 0 is #6
    assert ranked == {"peer 0#6", "peer 1#5", "peer 2#4"}
    assert re.search(r"peer 3#3 dropped out on choose: .*", run.stderr), run.stderr
    assert re.search(r"peer 4#2 dropped out on \w+: .*", run.stderr), run.stderr
    # peer 5 was asked to feed and hung up: removed in the middle of the feeding cycle
    assert ("feedNext",) in logs[5]
    assert re.search(r"peer 5#1 dropped out on feedNext: .*", run.stderr), run.stderr
    for log in logs[:3]:
        assert log[0] == ("ack", "ok") and log[1] == ("start",) and log[2] == ("choose",)
        assert log[-1] == ("closed",)


def _keep_alive_games() -> tuple[str, str]:
    port = free_port()
    config = {"server": {**FAST["server"], "keep_alive": True}, "observer": {"enabled": True}}
    server = subprocess.Popen(GAMEROOM + ["serve", "evolution", "--port", str(port)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    server.stdin.write(_config(config))
    server.stdin.close()
    try:
        for _game in range(2):
            subprocess.run(GAMEROOM + ["clients", "evolution", "--port", str(port), "--count", "3"],
                           capture_output=True, timeout=300)
    finally:
        server.kill()
        server.wait()
    return server.stdout.read().decode(), server.stderr.read().decode()


def test_keep_alive_plays_game_after_game_and_the_observer_logs_every_turn() -> None:
    out, err = submit(("evolution-keep-alive",), _keep_alive_games, waits=True).result()
    lines = _lines(out)
    assert lines == xmain_lines(3) * 2, err
    assert err.count("observer: turn 1: ") == 2 and "observer: turn 6: " in err
