"""The terminal client for people (``gameroom connect eriantys``) through a real
pseudo-terminal: log in, create a room, a bot joins, and the person plays a whole game by
typed commands (asking ``hint`` for a legal one each time), seeing the board once per turn
of theirs, the opponent's moves told in the narrator's words (its action phase: students,
Mother Nature, clouds), ``help`` and ``moves`` listing the moves possible now, and every
refusal explained; ``--compact`` draws the board only when asked; Ctrl-C (in the lobby or
during a game) is one line and status 130, and a lobby that dies before or during the game
leaves the client with status 1."""

from __future__ import annotations

import io
import os
import re
import socket
import subprocess
import sys
import time

import pytest

from driver import GAMEROOM, free_port

pexpect = pytest.importorskip("pexpect")
pytest.importorskip("prompt_toolkit")

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def test_a_person_plays_a_whole_game_against_a_bot(tmp_path) -> None:
    port = free_port()
    server = _lobby(port)   # listening before the person connects (a fixed sleep ran out under load)
    bots = None
    try:
        child = _terminal(port, "alice")
        child.logfile_read = told = io.StringIO()
        child.expect("logged in as alice")
        child.sendline("create 2 expert")
        child.expect(r"room (\d+) created")
        room = child.match.group(1)
        child.sendline("card 3")   # no game yet: a clear message, nothing sent
        child.expect("no game yet")
        bots = subprocess.Popen(GAMEROOM + ["clients", "eriantys", "--port", str(port), "--join", room,
                                            "--players", "1", "--expert", "--quiet"], stdout=subprocess.PIPE)
        child.expect("the game starts")
        child.expect("your turn:")
        child.sendline("help")   # the commands, then the moves possible now (an assistant card)
        child.expect(r"moves possible now: card [0-9][0-9|-]*")
        child.sendline("mother 9")   # refused by the server: the NACK is shown with its reason
        child.expect("refused: mother 9: this move is not allowed at this stage of the game")
        child.sendline("card 11")
        child.expect(r"refused: card 11: Invalid event")
        child.sendline("table purple")
        child.expect("'purple' is not a colour")
        moves, listed, now = 0, None, ""
        while True:
            if listed is None and "student move(s)" in now:
                child.sendline("moves")   # the action phase's moves: students to the table or an island
                child.expect(r"moves possible now: ([^\r\n]*)")
                listed = _ANSI.sub("", child.match.group(1))
            child.sendline("hint")
            child.expect(r"hint: ([a-z0-9 -]*[a-z0-9])")
            child.sendline(_ANSI.sub("", child.match.group(1)).strip())
            moves += 1
            if child.expect([r"your turn: ([^\r\n]*)", r"game over: ([^\r\n\x1b]*)"]) == 1:
                break
            now = child.match.group(1)
        winners = child.match.group(1)
        assert moves > 10
        assert "alice" in winners or "bot0_0" in winners
        assert listed is not None and "table " in listed and re.search(r"island [a-z]+ 0-\d+", listed), listed
        _assert_told_once_per_turn(re.sub(r"(?m)^(alice>)+", "", _ANSI.sub("", told.getvalue()).replace("\r", "")))
        child.sendline("quit")
        child.expect("logged out")
        child.expect(pexpect.EOF)
        out, _ = bots.communicate(timeout=60)
        assert '"winners"' in out.decode()
    finally:
        if bots is not None and bots.poll() is None:
            bots.kill()
        server.terminate()
        server.wait(timeout=30)


BOARD = "islands (clockwise):"
"""A line of the board, once per drawing."""


def _assert_told_once_per_turn(text: str) -> None:
    """What a whole game against ``bot0_0`` showed (the prompts taken out): the board drawn
    once per turn of the person (a planning turn and an action turn a round; within a turn
    only what the game expects next), and the opponent's moves told, its action phase included."""
    drawings = re.findall(r"== round (\d+), ([a-z ]+?)(?:, last round)? ==\n" + re.escape(BOARD), text)
    assert len(drawings) > 4 and len(drawings) == text.count(BOARD)
    turns = [(r, phase == "planning phase") for r, phase in drawings[:-1]]   # the last: the final board
    assert len(turns) == len(set(turns)), turns   # one planning turn and one action turn a round
    assert text.count("your turn:") > 2 * len(drawings)   # a move's prompt without the board
    assert re.search(r"\nbot0_0 plays assistant \d+", text)
    opponent = [turn.split("\nalice's turn", 1)[0] for turn in text.split("\nbot0_0's turn")[1:]]
    action = [turn for turn in opponent if "bot0_0's entrance ->" in turn]
    assert action and all(re.search(r"  (green|red|yellow|pink|blue) student: bot0_0's entrance -> "
                                    r"(bot0_0's dining room|island \d+)", turn) for turn in action)
    assert any("  Mother Nature moves to island " in turn for turn in action)
    assert any(re.search(r"  [a-z]+ student: cloud \d -> bot0_0's entrance", turn) for turn in action)


def _terminal(port: int, name: str, *flags: str) -> pexpect.spawn:
    env = dict(os.environ, PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm-256color")
    return pexpect.spawn(sys.executable, ["-m", "gameroom", "connect", "eriantys", "--port", str(port),
                                          "--name", name, *flags], env=env, encoding="utf-8", timeout=120,
                         dimensions=(50, 160))


def _game_with_a_bot(child: pexpect.spawn, port: int) -> subprocess.Popen:
    """The person creates a room for two, a bot joins it, and the game starts."""
    child.sendline("create 2")
    child.expect(r"room (\d+) created")
    bots = subprocess.Popen(GAMEROOM + ["clients", "eriantys", "--port", str(port), "--join", child.match.group(1),
                                        "--players", "1", "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    child.expect("the game starts")
    return bots


def _lobby(port: int, *flags: str) -> subprocess.Popen:
    server = subprocess.Popen(GAMEROOM + ["serve", "eriantys", "--port", str(port), "--seed", "4", "--quiet", *flags])
    for _ in range(400):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=10).close()
            return server
        except OSError:
            time.sleep(0.05)
    raise AssertionError("the lobby did not start")


def test_ctrl_c_says_one_line_and_exits_non_zero() -> None:
    port = free_port()
    server = _lobby(port)
    try:
        child = _terminal(port, "carl")
        child.expect("logged in as carl")
        child.sendcontrol("c")
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 130
        assert "gameroom: interrupted" in child.before and "Traceback" not in child.before
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_compact_draws_the_board_when_asked_and_ctrl_c_leaves_a_game_with_130() -> None:
    port = free_port()
    server = _lobby(port)
    bots = None
    try:
        child = _terminal(port, "erin", "--compact")
        child.logfile_read = told = io.StringIO()
        child.expect("logged in as erin")
        child.sendline("moves")
        child.expect("no game yet")
        bots = _game_with_a_bot(child, port)
        child.expect("your turn: an assistant card")
        child.sendline("moves")
        child.expect(r"moves possible now: card ")
        for _ in range(2):   # an assistant card, then the first students: told, never the board
            child.sendline("hint")
            child.expect(r"hint: ([a-z0-9 -]*[a-z0-9])")
            child.sendline(_ANSI.sub("", child.match.group(1)).strip())
            child.expect("your turn:")
        assert BOARD not in told.getvalue()
        child.sendline("board")
        child.expect_exact(BOARD)
        child.expect("your turn:")
        child.sendcontrol("c")
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 130
        assert told.getvalue().count(BOARD) == 1
        assert "gameroom: interrupted" in child.before and "Traceback" not in told.getvalue()
    finally:
        if bots is not None:
            bots.kill()
            bots.wait(timeout=30)
        server.terminate()
        server.wait(timeout=30)


@pytest.mark.parametrize("when", ["in the lobby", "during the game"])
def test_the_terminal_exits_non_zero_when_the_server_dies(when: str) -> None:
    port = free_port()
    server = _lobby(port)
    bots = None
    try:
        child = _terminal(port, "dora", "--reconnect", "1")
        child.expect("logged in as dora")
        if when == "during the game":
            bots = _game_with_a_bot(child, port)
        server.kill()
        server.wait(timeout=30)
        if bots is not None:   # it tries to come back first, for its --reconnect seconds
            child.expect("the connection to the lobby was lost: reconnecting")
        child.expect("the server closed the connection" + (" during the game: no result" if bots else ""))
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 1
        assert "Traceback" not in child.before
    finally:
        if bots is not None:
            bots.kill()
            bots.wait(timeout=30)
        if server.poll() is None:
            server.terminate()
            server.wait(timeout=30)


def test_a_person_plays_fish_in_a_room_played_by_calls() -> None:
    """``gameroom connect fish`` against ``gameroom serve fish --lobby``: the room's options
    in Fish's words, a house bot, the numbered moves of each decision, a refused answer,
    a hint, and the game to its end."""
    port = free_port()
    server = subprocess.Popen(GAMEROOM + ["serve", "fish", "--lobby", "--port", str(port), "--seed", "4", "--quiet"])
    try:
        for _ in range(400):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=10).close()
                break
            except OSError:
                time.sleep(0.05)
        env = dict(os.environ, PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm-256color")
        child = pexpect.spawn(sys.executable, ["-m", "gameroom", "connect", "fish", "--port", str(port), "--name",
                                               "erin"], env=env, encoding="utf-8", timeout=120, dimensions=(50, 160))
        child.logfile_read = told = io.StringIO()   # all of it (a board read with an earlier line is in it)
        child.expect("logged in as erin")
        child.sendline("help")
        child.expect(r"rows=INT\s+board rows, 2..8 \(default 5\)")
        child.sendline("create 2 rows=9")
        child.expect("rows must lie in 2..8, got 9")
        child.sendline("create 2 rows=3 columns=4 fish=2")
        child.expect(r"room (\d+) created")
        child.sendline("bot greedy")
        child.expect("the game starts: erin, greedy1")
        child.expect(r"your turn: setup, \d+ s left")
        child.expect(r"1\. place a penguin on row 0, column 0")
        board = _ANSI.sub("", told.getvalue()).replace("\r", "")
        # the board drawn as a board (3 rows of 4 tiles of 2 fish), not as the view's JSON
        assert "the board (fish on each tile" in board and '"board"' not in board, board
        assert re.search(r"row 1 +\(  2  \) \(  2  \) \(  2  \) \(  2  \)", board), board
        child.sendline("reply [9, 9]")
        child.expect(r"refused: reply \[9, 9\]: Not one of the \d+ legal moves offered for setup; try again")
        child.sendline("99")
        child.expect("choose a move by its number")
        decisions = 0
        while True:
            if decisions % 2:   # the hint's move, else the first
                child.sendline("hint")
                child.expect(r"hint: (\d+): ")
                child.sendline(child.match.group(1))
            else:
                child.sendline("1")
            if child.expect([r"your turn:", r"game over: ([^\r\n\x1b]*)"]) == 1:
                break
            decisions += 1
        drawn = _ANSI.sub("", told.getvalue())
        assert re.search(r"\((R|W) [12] +\)", drawn) and "penguins: row " in drawn   # the penguins placed
        assert decisions >= 4 and ("erin" in child.match.group(1) or "greedy1" in child.match.group(1))
        child.sendline("quit")
        child.expect("logged out")
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0 and "Traceback" not in child.before
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_moves_differing_in_their_last_word_are_listed_as_one() -> None:
    from gameroom.cli.terminal import compact_moves

    commands = ["table green", "table red", *[f"island green {i}" for i in range(12)], "island red 3",
                "use 0", "use 5", "mother 1", "mother 2", "done"]
    assert compact_moves(commands) == ["table green|red", "island green 0-11", "island red 3", "use 0|5",
                                       "mother 1|2", "done"]
    assert compact_moves(["card 2", "card 3", "card 4", "card 9"]) == ["card 2|3|4|9"]   # not a range
    assert compact_moves([]) == []


def test_the_terminal_comes_back_by_itself_after_the_lobby_restarts_from_its_journal(tmp_path) -> None:
    """A person mid-game against a house bot; the lobby (with a journal) is killed and
    started again: the terminal says so in one line, logs in again with its reconnect
    secret by itself, gets its seat back and finishes the game."""
    port = free_port()
    state = str(tmp_path / "journal.db")
    server = _lobby(port, "--state", state)
    try:
        child = _terminal(port, "erin")
        child.expect("logged in as erin")
        child.sendline("create 2")
        child.expect(r"room (\d+) created")
        child.sendline("bot greedy")
        child.expect("the game starts")
        moves, restarted = 0, False
        while True:
            if child.expect([r"your turn: ([^\r\n]*)", r"game over: ([^\r\n\x1b]*)"]) == 1:
                break
            if moves == 3 and not restarted:
                server.kill()
                server.wait(timeout=30)
                child.expect("the connection to the lobby was lost: reconnecting")
                server = _lobby(port, "--state", state)
                child.expect("reconnected")
                restarted = True
                continue
            child.sendline("hint")
            child.expect(r"hint: ([a-z0-9 -]*[a-z0-9])")
            child.sendline(_ANSI.sub("", child.match.group(1)).strip())
            moves += 1
        assert restarted and moves > 3
        child.sendline("quit")
        child.expect(pexpect.EOF)
    finally:
        server.terminate()
        server.wait(timeout=30)
