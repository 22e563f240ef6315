"""Exit statuses that tell the truth (issue 17, findings 7 and 8), with the real programs:

* ``gameroom clients q|bazaar|fish|evolution`` exit 1, with one line saying so, when the
  server dies before or during the game (after the spec's last line, which every client
  command prints once its clients are done), and 0 only when every client that plays fair
  got its result;
* Ctrl-C (SIGINT to the process group, as a terminal sends it; a real pseudo-terminal for
  ``connect``) ends any command with one line and status 130, never a traceback;
* every referee server binds the address its ``--help`` names as the default.
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import signal
import socket
import subprocess
import time
from importlib.resources import files
from pathlib import Path

import pytest

from driver import GAMEROOM, Server, WaitingClients, free_port, spawn, submit, wait_catching_sigint, wait_listening


def example(game: str, name: str) -> bytes:
    return (files(f"gameroom.games.{game}") / "configs" / name).read_bytes()


def clients(game: str, port: int, stdin: bytes, *flags: str) -> subprocess.Popen:
    process = spawn(["clients", game, "--port", str(port), *flags], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE)
    process.stdin.write(stdin)
    process.stdin.close()
    process.stdin = None
    return process


def q_clients(port: int, players: list[list]) -> bytes:
    config = json.loads(example("q", "clients.json"))
    config.update(port=port, players=players, quiet=True)
    return json.dumps(config).encode()


def q_server_of_four() -> bytes:
    """The shipped Q configuration with a fourth player record: four sign-ups fill the table
    and start the game at once. A turn may take a minute: a player that loops holds the
    game that long, which a test interrupts meanwhile."""
    config = json.loads(example("q", "server.json"))
    players = config["ref-spec"]["state0"]["players"]
    players.append({**players[-1], "name": "Di"})
    config["ref-spec"]["per-turn"] = 60
    return json.dumps(config).encode()


def q_game_of_four_held_by_bo() -> tuple[Server, subprocess.Popen]:
    """A Q server of four and its clients (loaded before it listens, driver.WaitingClients,
    so all four sign up within the shipped 20 s period): Bo loops in his first turn."""
    port = free_port()
    waiting = WaitingClients("q", port, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    server = Server("q", q_server_of_four(), port=port)
    running = waiting.go(server.process, q_clients(port, [["Ada", "dag"], ["Bo", "dag", "take-turn", 1],
                                                           ["Cy", "dag"], ["Di", "dag"]]))
    server.wait_for(r"signed up Di \(4\)")
    return server, running


# What each game's clients are started with: stdin and flags.
CLIENTS = {
    "q": lambda port: (q_clients(port, [["Ada", "dag"], ["Bo", "dag"], ["Cy", "dag"]]), ()),
    "bazaar": lambda port: (example("bazaar", "clients.json"), ()),
    "fish": lambda port: (b"", ("--count", "5", "--hiccup", "0")),
    "evolution": lambda port: (b"", ("--count", "3")),
}


DONE = {"q": "all done", "bazaar": '"void"', "fish": "all done", "evolution": "(good bye)"}


@pytest.mark.parametrize("game", sorted(CLIENTS))
def test_clients_fail_when_the_server_dies_before_the_game(game: str) -> None:
    server = Server(game, example(game, "server.json"))
    stdin, flags = CLIENTS[game](server.port)
    running = clients(game, server.port, stdin, *flags)
    try:
        server.wait_for(r"signed up .*\(1\)")
        server.kill()
        out, err = running.communicate(timeout=120)
    finally:
        running.kill()
        if server.process.poll() is None:
            server.kill()
    assert running.returncode == 1, err.decode()
    last = err.decode().strip().splitlines()[-1]
    assert re.fullmatch(r"gameroom: error: \d of \d clients got no result from the server at 127\.0\.0\.1:\d+ .*",
                        last), err.decode()
    assert "Traceback" not in err.decode() and out.decode().strip() == DONE[game]   # the spec's last line


def test_q_clients_fail_when_the_server_dies_during_the_game() -> None:
    """The fourth player fills the table and starts the game; Bo loops in take-turn (the
    server waits its minute): the server is killed meanwhile, once every player has had
    its set-up call (5 s of a minute)."""
    server, running = q_game_of_four_held_by_bo()
    try:
        time.sleep(5.0)
        server.kill()
        out, err = running.communicate(timeout=120)
    finally:
        running.kill()
    assert running.returncode == 1 and out.decode().strip() == "all done"
    lines = err.decode().strip().splitlines()
    assert len(lines) == 1, lines
    assert re.fullmatch(r"gameroom: error: 3 of 3 clients got no result from the server at \S+ "
                        r"\((Ada|Cy|Di): server closed the connection, after [1-9]\d* calls\)", lines[0]), lines


def test_evolution_clients_exit_0_after_a_whole_game() -> None:
    """Evolution has no final call (the server just closes at the end): a client that took
    part and saw the connection close between two calls has its result."""
    server = Server("evolution")
    running = clients("evolution", server.port, b"", "--count", "3")
    out, err = running.communicate(timeout=120)
    server.process.wait(60)
    assert server.process.returncode == 0, server.lines
    assert running.returncode == 0 and out.decode().strip() == "(good bye)", err.decode()


def _clients_of_nobody(game: str) -> tuple[int, int, str, str]:
    """``gameroom clients GAME`` aimed at a port where nothing listens (free_port hands
    out ports nobody holds), to its end: the port, the status and what it wrote."""
    port = free_port()
    stdin, flags = CLIENTS_OF_EVERY_GAME[game](port)
    running = clients(game, port, stdin, *flags)
    out, err = running.communicate(timeout=300)
    return port, running.returncode, out.decode(), err.decode()


# Every game's clients, Eriantys's through the lobby.
CLIENTS_OF_EVERY_GAME = {**CLIENTS, "eriantys": lambda port: (b"", ())}


@pytest.mark.parametrize("game", sorted(CLIENTS_OF_EVERY_GAME))
def test_clients_that_reach_no_server_say_so_in_one_line(game: str) -> None:
    """One failure, one line (not one more per client) and status 1; nothing on standard
    output, since no client played. The clients retry for seconds (the specs' ten tries a
    second apart), so every game's case starts at once and each test waits for its own."""
    for other in CLIENTS_OF_EVERY_GAME:
        submit(("clients-of-nobody", other), _clients_of_nobody, other, waits=True)
    port, status, out, err = submit(("clients-of-nobody", game), _clients_of_nobody, game, waits=True).result()
    lines = err.strip().splitlines()
    assert status == 1 and out == "", err
    assert len(lines) == 1 and lines[0].startswith("gameroom: error: "), err
    assert f"127.0.0.1:{port}" in lines[0], err


# -- Ctrl-C ----------------------------------------------------------------------------

def interrupt(args: list[str], stdin: bytes = b"", ready: float = 3.0) -> tuple[int, str]:
    process = spawn(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                    start_new_session=True)
    process.stdin.write(stdin)
    process.stdin.close()
    process.stdin = None
    wait_catching_sigint(process)
    time.sleep(ready)   # then into its work (the command's own import is covered by gameroom.__main__)
    assert process.poll() is None, process.communicate()
    os.killpg(process.pid, signal.SIGINT)
    try:
        _out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    return process.returncode, err.decode()


def assert_clean(status: int, err: str) -> None:
    assert status == 130, err
    assert err.strip().splitlines()[-1] == "gameroom: interrupted" and "Traceback" not in err, err


def test_ctrl_c_in_a_waiting_server() -> None:
    assert_clean(*interrupt(["serve", "q", "--port", str(free_port())], example("q", "server.json")))


def test_ctrl_c_in_clients_and_in_a_server_during_a_game() -> None:
    server, running = q_game_of_four_held_by_bo()
    time.sleep(1.0)   # into the game (which Bo holds for a minute)
    os.killpg(server.process.pid, signal.SIGINT)
    server.finish(60)
    assert server.process.returncode == 130, server.lines
    said = [line for line in server.lines if line.strip()]
    assert said[-1] == "gameroom: interrupted" and not any("Traceback" in line for line in said), server.lines
    running.communicate(timeout=60)
    assert running.returncode == 1
    status, err = interrupt(["clients", "q", "--port", str(free_port())], q_clients(0, [["Ada", "dag"]]))
    assert_clean(status, err)   # interrupted while it retries a server that is not there


def test_ctrl_c_in_a_league(tmp_path: Path) -> None:
    bots = tmp_path / "bots.toml"
    bots.write_text('[[bots]]\nname = "A"\nbuiltin = "dag"\n[[bots]]\nname = "B"\nbuiltin = "ldasg"\n')
    status, err = interrupt(["league", "q", "--bots", str(bots), "--games", "100000", "--db",
                             f"sqlite:///{tmp_path / 'db.sqlite'}", "--quiet"], ready=8.0)
    assert_clean(status, err)


def test_ctrl_c_in_the_web_room() -> None:
    assert_clean(*interrupt(["web", "--port", str(free_port())], ready=5.0))


def test_ctrl_c_in_connect_at_its_prompt() -> None:
    """A real pseudo-terminal: Ctrl-C typed at the prompt (prompt_toolkit raises it inside
    an asyncio task, which asyncio used to log with a 30-line traceback on the way out)."""
    lobby = Server("eriantys")
    assert wait_listening(lobby.process, lobby.port)
    pid, fd = pty.fork()
    if pid == 0:   # the child: the real command on the terminal
        os.execv(GAMEROOM[0], [*GAMEROOM, "connect", "eriantys", "--port", str(lobby.port), "--name", "zed"])
    seen = b""

    def read_for(seconds: float, until: bytes | None = None) -> None:
        nonlocal seen
        end = time.monotonic() + seconds
        while time.monotonic() < end and (until is None or until not in seen):
            ready, _, _ = select.select([fd], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    return
                if not chunk:
                    return
                seen += chunk

    try:
        read_for(60, b"logged in as zed")
        assert b"logged in as zed" in seen, seen[-500:]
        read_for(1.0)
        os.write(fd, b"\x03")
        read_for(30, b"gameroom: interrupted")
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(fd)
        lobby.kill()
    text = seen.decode("utf-8", "replace")
    assert os.waitstatus_to_exitcode(status) == 130, text[-800:]
    assert "gameroom: interrupted" in text and "Traceback" not in text and "never retrieved" not in text


# -- defaults ---------------------------------------------------------------------------

def other_address() -> str | None:
    """An address of this machine that is not loopback, if it has one."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))     # no packet is sent: this only picks a route
            address = probe.getsockname()[0]
    except OSError:
        return None
    return None if address.startswith("127.") else address


@pytest.mark.parametrize("game", ["q", "bazaar", "fish", "evolution"])
def test_every_server_binds_the_default_its_help_names(game: str) -> None:
    """Issue 17, finding 8: the help says 127.0.0.1, and the server listens there only."""
    shown = subprocess.run([*GAMEROOM, "serve", game, "--help"], capture_output=True, text=True, timeout=60)
    help_text = " ".join(shown.stdout.split())
    default = re.search(r"--host HOST address to listen on \(default ([^)]+)\)", help_text)
    assert default is not None and default.group(1) == "127.0.0.1", help_text
    server = Server(game, example(game, "server.json"))
    try:
        assert wait_listening(server.process, server.port)
        address = other_address()
        if address is not None:     # a machine with only loopback cannot show the difference
            with pytest.raises(OSError):
                socket.create_connection((address, server.port), timeout=5).close()
    finally:
        server.kill()
