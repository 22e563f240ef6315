"""``gameroom clients GAME --policy [NAME=]module:callable``: trained agents sign up on a
real server subprocess as TCP clients, play whole games through the game's wire, and the
server's result counts them; a bad policy argument is one error line and exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.driver import (
    GAMEROOM,
    Run,
    assert_usage_error,
    free_port,
    run_gameroom,
    spawn,
)
from tests.rl.cases import need_extra

need_extra()

REPO = Path(__file__).resolve().parents[2]   # tests.rl.policies is imported from here

FIRST_LEGAL = "tests.rl.policies:first_legal"
AGAINST_THE_MASK = "tests.rl.policies:against_the_mask"
# one 2-player Fish game on a 4 x 5 board: the policies' encoding options must say so
FISH_SERVER = {"min-players": 2, "max-players": 2, "rows": 4, "cols": 5, "fish": 2, "server-wait": 30,
               "time-per-turn": 30, "ready-time": 30, "start-timeout": 30, "house-players": 0}
FISH_OPTIONS = json.dumps({"players": 2, "rows": 4, "columns": 5})


def serve_and_play(game: str, server_config: dict, client_args: list[str], cwd: Path = REPO,
                   env: dict[str, str] | None = None) -> tuple[Run, Run]:
    """``gameroom serve GAME`` and ``gameroom clients GAME CLIENT_ARGS`` (run in ``cwd``
    with ``env``'s variables added) on one free port: the server's and the clients'
    output once both exit."""
    port = free_port()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        server = spawn(["serve", game, "--port", str(port), "--seed", "3"], stdin=subprocess.PIPE, stdout=out,
                       stderr=err, cwd=REPO)
        server.stdin.write(json.dumps(server_config).encode())
        server.stdin.close()
        try:
            ran = subprocess.run([*GAMEROOM, "clients", game, "--port", str(port), *client_args],
                                 stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300, check=False,
                                 cwd=cwd, env={**os.environ, **(env or {})})
            clients = Run(ran.stdout, ran.stderr, ran.returncode)
            server.wait(timeout=300)
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()
        out.seek(0)
        err.seek(0)
        served = Run(out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace"), server.returncode)
    return served, clients


def test_two_policies_play_a_whole_fish_game_on_a_server() -> None:
    served, clients = serve_and_play("fish", FISH_SERVER, ["--policy", f"alpha={FIRST_LEGAL}", "--policy",
                                                           FIRST_LEGAL, "--policy-options", FISH_OPTIONS])
    assert clients.returncode == 0, clients.stderr
    assert clients.stdout.strip().splitlines()[-1] == "all done"
    assert served.returncode == 0, served.stderr
    winners, failed = json.loads(served.stdout.strip().splitlines()[-1])
    assert failed == 0 and winners >= 1, served.stdout   # both played fair to the end
    assert "alpha" in served.stderr and "policy" in served.stderr   # the unnamed one is policy


def test_a_policy_that_plays_against_the_mask_is_ejected_by_the_server() -> None:
    served, clients = serve_and_play("fish", FISH_SERVER, ["--policy", f"cheat={AGAINST_THE_MASK}", "--policy",
                                                           f"fair={FIRST_LEGAL}", "--policy-options", FISH_OPTIONS])
    assert served.returncode == 0, served.stderr
    assert json.loads(served.stdout.strip().splitlines()[-1]) == [1, 1]   # fair won, cheat failed
    assert "cheat" in served.stderr
    # the ejected agent got no result, so the command that ran it did not get its result either
    assert clients.returncode == 1 and "got no result" in clients.stderr and "cheat" in clients.stderr


@pytest.mark.parametrize(("args", "message"), [
    (["--policy", "nothing"], "expected [NAME=]module:callable, got 'nothing'"),
    (["--policy", "9x=tests.rl.policies:first_legal"], "'9x' is not a policy name"),
    (["--policy", "tests.rl.policies:nothing"], "'tests.rl.policies' has no 'nothing'"),
    (["--policy", "tests.rl.nowhere:first_legal"], "cannot import 'tests.rl.nowhere'"),
    (["--policy", FIRST_LEGAL, "--policy-options", '{"size": 3}'], "fish has no option 'size'"),
    (["--policy", FIRST_LEGAL, "--policy-options", "[1]"], "expected a JSON object"),
    (["--policy", "tests.cli.broken_policy:policy"],
     "importing it raised RuntimeError: this module breaks as it is imported"),
])
def test_a_bad_policy_argument_is_one_line_and_status_2(args: list[str], message: str) -> None:
    assert_usage_error(run_gameroom(["clients", "fish", "--port", "1", *args], b"", cwd=REPO), message)


def test_policies_sit_in_lobby_rooms_of_eriantys_and_fish(tmp_path: Path) -> None:
    from tests.lobby.rooms import LobbyProcess

    # generous turns and calls: a loaded machine must not eject a player for its slowness
    lobby = LobbyProcess(tmp_path, {"callTimeoutSeconds": 120, "turnTimeoutSeconds": 120})
    port = lobby.port
    try:
        lobby.connect().close()   # listening: the clients' own retries are short
        for game, policy in (("eriantys", FIRST_LEGAL), ("fish", AGAINST_THE_MASK)):
            run = run_gameroom(["clients", game, "--port", str(port), *([] if game == "eriantys" else ["--lobby"]),
                                "--players", "2", "--policy", policy, "--rooms", "2"], b"", timeout=300, cwd=REPO)
            rooms = [json.loads(line) for line in run.stdout.splitlines()]
            assert run.returncode == 0 and len(rooms) == 2, run.stderr
            for room in rooms:   # the policy in the last seat of every room, named as the room's bots
                assert room["kinds"][1] == f"policy {policy}" and room["winners"], room
                if policy == FIRST_LEGAL:
                    assert "out" not in room, room
                else:   # played against the mask: ejected by the lobby's referee, the room played on
                    (out,) = room["out"]
                    assert out.startswith(f"{room['players'][1]}: EJECTED: cannot place a penguin at "), room
                    assert out.endswith(": not a free tile"), room
    finally:
        lobby.stop()


def test_more_policies_than_seats_is_a_usage_error() -> None:
    assert_usage_error(run_gameroom(["clients", "eriantys", "--port", "1", "--players", "2", "--policy",
                                     FIRST_LEGAL, "--policy", FIRST_LEGAL, "--policy", FIRST_LEGAL], b"", cwd=REPO),
                       "3 --policy for rooms of 2 players")


def test_the_examples_trained_policy_plays_on_a_server(tmp_path: Path) -> None:
    """``examples/rl/train_fish.py --save`` then ``--policy train_fish:trained``, run from
    the example's directory as its docstring says."""
    example = REPO / "examples" / "rl"
    weights = tmp_path / "weights.npy"
    trained = subprocess.run([sys.executable, str(example / "train_fish.py"), "--games", "300", "--evaluation", "10",
                              "--save", str(weights)], capture_output=True, text=True, timeout=600, check=False)
    assert trained.returncode == 0 and weights.is_file(), trained.stderr
    served, clients = serve_and_play("fish", FISH_SERVER, ["--policy", "agent=train_fish:trained", "--policy",
                                                           f"other={FIRST_LEGAL}", "--policy-options", FISH_OPTIONS],
                                     cwd=example, env={"FISH_WEIGHTS": str(weights), "PYTHONPATH": str(REPO)})
    assert clients.returncode == 0, clients.stderr
    winners, failed = json.loads(served.stdout.strip().splitlines()[-1])
    assert failed == 0 and winners >= 1, served.stdout
