"""A game from another distribution gets every command (issue 18's acceptance).

The example of docs/guides/game-authors.md (Nim), every file block of that page, is written
into a temporary folder as its own distribution, installed into a temporary virtual
environment that sees this interpreter's packages (gameroom among them) but installs
nothing into them, and then driven through the real commands as separate processes:
``play`` (with pictures and ``--replay``), ``harness``, ``serve`` + ``clients`` (and a
served game's replay verified), ``league`` and ``replay verify``, a web match of bots
and one with a person through the web API against a real ``gameroom web``, a lobby room
(``gameroom lobby``: bots of ``clients nim --lobby`` fill rooms, a scripted person plays
a room with Nim's own room option against a bot), and the benchmark. No file of gameroom
changes.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from driver import free_port

from tests.games.plugin_venv import install_plugin, run

REPOSITORY = Path(__file__).resolve().parents[2]
GUIDE = REPOSITORY / "docs" / "guides" / "game-authors.md"
# A file block of the guides (docs/CONVENTIONS.md, "Examples that run"): the marker, then the fence.
BLOCK = re.compile(r"^<!-- file: (\S+) -->\n```\w*\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def example_files() -> dict[str, str]:
    """The example distribution's files, as the game authors' guide gives them."""
    return {path: text for path, text in BLOCK.findall(GUIDE.read_text(encoding="utf-8"))}


def test_the_guide_gives_a_whole_distribution() -> None:
    files = example_files()
    assert {"pyproject.toml", "nim_game/descriptor.py", "nim_game/hosting.py", "nim_game/game.py"} <= set(files)
    assert '[project.entry-points."gameroom.games"]' in files["pyproject.toml"]


@pytest.fixture(scope="module")
def nim(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The example installed in a fresh virtual environment: its python and a folder."""
    root = tmp_path_factory.mktemp("plugin")
    source = root / "nim"
    for path, text in example_files().items():
        (source / path).parent.mkdir(parents=True, exist_ok=True)
        (source / path).write_text(text, encoding="utf-8")
    return install_plugin(source, root)


def gameroom(nim: dict[str, Any], *args: str, stdin: str = "", timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return run(nim, "-m", "gameroom", *args, stdin=stdin, timeout=timeout)


def test_the_plugin_is_installed_apart_from_gameroom(nim: dict[str, Any]) -> None:
    here = subprocess.run([sys.executable, "-c", "import importlib.util as u; print(u.find_spec('nim_game'))"],
                          capture_output=True, text=True, check=True)
    assert here.stdout.strip() == "None"   # this interpreter does not have it
    listing = gameroom(nim, "--help")
    assert listing.returncode == 0 and not listing.stderr, listing.stderr
    assert "nim      Nim, one pile" in listing.stdout and "  q        Q," in listing.stdout


def test_play_prints_the_narrators_lines_and_draws_every_state(nim: dict[str, Any]) -> None:
    pictures = nim["folder"] / "pictures"
    run = gameroom(nim, "play", "nim", "--seed", "3", "--strategies", "perfect,random", "--observe", str(pictures))
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("Nim: ") and "Ann (perfect), Bob (random)" in lines[0]
    assert any(re.fullmatch(r"(Ann|Bob) takes [123], \d+ left", line) for line in lines)
    winners, ejected = json.loads(lines[-1])
    assert len(winners) == 1 and ejected == [] and f"winner: {winners[0]}" in lines
    drawn = sorted(pictures.glob("*.svg"))
    assert len(drawn) >= 3 and f"pictures: {len(drawn)} SVG files" in run.stdout
    assert all(ET.parse(p).getroot().tag.endswith("svg") for p in drawn)
    assert "game over: winner" in drawn[-1].read_text()
    again = gameroom(nim, "play", "nim", "--seed", "3", "--strategies", "perfect,random")
    assert again.stdout.splitlines()[-1] == lines[-1]   # deterministic by seed


def test_the_games_options_and_errors_come_from_its_descriptor(nim: dict[str, Any]) -> None:
    assert "seed of the pile" in " ".join(gameroom(nim, "play", "nim", "--help").stdout.split())
    bad = gameroom(nim, "play", "nim", "--strategies", "clever")
    assert bad.returncode == 2 and bad.stderr.strip() == ("gameroom: error: unknown strategy 'clever'; choose from "
                                                          "perfect, random")
    assert "nim has no tournament mode" in gameroom(nim, "tournament", "nim").stderr


def test_play_replay_and_replay_verify(nim: dict[str, Any]) -> None:
    replay = nim["folder"] / "played.jsonl"
    run = gameroom(nim, "play", "nim", "--seed", "8", "--replay", str(replay))
    assert run.returncode == 0, run.stderr
    verify = gameroom(nim, "replay", "verify", str(replay))
    assert verify.returncode == 0 and "verified" in verify.stdout, verify.stderr
    altered = replay.read_text().replace('"reply": 1,', '"reply": 2,', 1)
    if altered != replay.read_text():
        (nim["folder"] / "altered.jsonl").write_text(altered)
        assert gameroom(nim, "replay", "verify", str(nim["folder"] / "altered.jsonl")).returncode == 1


def test_a_harness(nim: dict[str, Any]) -> None:
    run = gameroom(nim, "harness", "nim", "xnim", stdin="5 2 1")
    assert run.returncode == 0 and [json.loads(line) for line in run.stdout.splitlines()] == [[1, 2, 3], [1, 2], [1]]
    bad = gameroom(nim, "harness", "nim", "xnim", stdin='"five"')
    assert bad.returncode == 2 and "bad xnim input" in bad.stderr


def test_serve_and_clients_play_over_tcp_and_the_served_game_verifies(nim: dict[str, Any]) -> None:
    port = free_port()
    replay = nim["folder"] / "served.jsonl"
    configuration = nim["folder"] / "server.json"
    configuration.write_text('{"wait": 60}')
    with configuration.open() as stdin:
        server = subprocess.Popen([nim["python"], "-m", "gameroom", "serve", "nim", "--port", str(port), "--replay",
                                   str(replay)], stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, env=nim["env"])
    try:
        clients = None
        for _attempt in range(60):   # until the server listens (the clients also retry a refused connection)
            clients = gameroom(nim, "clients", "nim", "--port", str(port), "--strategy", "random")
            if clients.returncode == 0:
                break
            time.sleep(0.5)
        out, err = server.communicate(timeout=120)
    finally:
        server.kill()
    assert clients is not None and clients.returncode == 0 and clients.stdout.strip() == "all done", clients.stderr
    assert server.returncode == 0, err
    winners, ejected = json.loads(out.splitlines()[-1])
    assert winners in (["Ann"], ["Bob"]) and ejected == [], out
    assert "signed up Ann" in err and "signed up Bob" in err
    verify = gameroom(nim, "replay", "verify", str(replay))
    assert verify.returncode == 0 and "verified" in verify.stdout, verify.stdout + verify.stderr


def test_a_bad_server_configuration_is_one_line(nim: dict[str, Any]) -> None:
    run = gameroom(nim, "serve", "nim", "--port", str(free_port()), stdin='{"wait": -1}')
    assert run.returncode == 2 and run.stderr.strip() == ("gameroom: error: bad server configuration: $.wait: "
                                                          "expected seconds in (0, 600], got -1")


def test_a_league_and_its_replays(nim: dict[str, Any]) -> None:
    bots = nim["folder"] / "bots.toml"
    bots.write_text('[[bots]]\nname = "perfect"\nbuiltin = "perfect"\n[[bots]]\nname = "random"\nbuiltin = "random"\n'
                    '[[bots]]\nname = "cheater"\nbuiltin = "cheat"\n')
    url = f"sqlite:///{nim['folder'] / 'league.db'}"
    league = gameroom(nim, "league", "nim", "--bots", str(bots), "--games", "12", "--db", url, "--quiet")
    assert league.returncode == 0, league.stderr
    assert "league nim-seed0-perfect-random-cheater: 12 games of nim" in league.stdout
    verify = gameroom(nim, "replay", "verify", "--db", url)
    assert verify.returncode == 0 and "12 of 12 replays verified" in verify.stdout, verify.stderr
    ratings = gameroom(nim, "ratings", "--game", "nim", "--db", url)
    assert ratings.returncode == 0 and "perfect" in ratings.stdout and "cheater" in ratings.stdout


@pytest.fixture(scope="module")
def web(nim: dict[str, Any]) -> Any:
    port = free_port()
    server = subprocess.Popen([nim["python"], "-m", "gameroom", "web", "--port", str(port)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=nim["env"])
    try:
        assert "serving on" in server.stdout.readline()
        yield f"127.0.0.1:{port}"
    finally:
        server.kill()
        server.communicate()


def _over(client: Any, match: str) -> dict[str, Any]:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        summary = client.get(f"/api/matches/{match}").json()
        if summary["status"] == "over":
            return summary
        time.sleep(0.2)
    raise AssertionError(f"match {match} did not end")


def test_a_web_match_of_bots(nim: dict[str, Any], web: str) -> None:
    httpx = pytest.importorskip("httpx")
    with httpx.Client(base_url=f"http://{web}", timeout=60) as client:
        games = {g["name"]: g for g in client.get("/api/games").json()}
        assert games["nim"]["players"] == [2, 2] and games["nim"]["human"]
        started = client.post("/api/matches", json={"game": "nim", "seats": ["perfect", "random"], "seed": 4})
        assert started.status_code == 201, started.text
        summary = _over(client, started.json()["id"])
        assert summary["result"]["winners"] and "error" not in summary["result"]
        frames = [json.loads(line) for line in client.get(f"/api/matches/{summary['id']}/replay").text.splitlines()]
        assert len(frames) == summary["steps"] > 2
        assert all(f["svg"].startswith("<svg") and f["view"]["players"] == ["P1", "P2"] for f in frames)
        refused = client.post("/api/matches", json={"game": "nim", "seats": ["perfect"]})
        assert refused.status_code == 400 and "nim takes 2 to 2 players" in refused.json()["error"]


def test_a_person_plays_nim_in_the_web_room(nim: dict[str, Any], web: str) -> None:
    httpx = pytest.importorskip("httpx")
    sync_client = pytest.importorskip("websockets.sync.client")
    with httpx.Client(base_url=f"http://{web}", timeout=60) as client:
        # a person's seat needs an account (the web room's log-in): sign one up, keep its cookie
        signed = client.post("/api/signup", json={"username": "nim-person", "password": "correct horse battery"})
        assert signed.status_code == 201, signed.text
        started = client.post("/api/matches", json={"game": "nim", "seats": ["human", "random"], "seed": 5,
                                                    "person_limit": 120}).json()
        token = started["tokens"]["P1"]
        cookie = {"Cookie": f"gameroom_session={client.cookies['gameroom_session']}"}
        prompts = 0
        with sync_client.connect(f"ws://{web}/api/matches/{started['id']}/ws?seat=P1&token={token}",
                                 additional_headers=cookie, open_timeout=60) as person:
            while True:
                frame = json.loads(person.recv(timeout=300))
                if frame["type"] == "end":
                    break
                if frame["type"] == "prompt" and frame["method"] == "take":
                    labels = [c["label"] for c in frame["choices"]]
                    assert labels and all(re.fullmatch(r"take [123]", label) for label in labels)
                    prompts += 1
                    person.send(json.dumps({"choice": len(labels) - 1}))   # take as many as allowed
        summary = _over(client, started["id"])
    assert prompts >= 1 and summary["result"]["ejected"] == [], summary


def test_lobby_rooms_of_nim_with_bots_and_a_person(nim: dict[str, Any]) -> None:
    from tests.lobby.rooms import LobbyProcess, play_person

    lobby = LobbyProcess(nim["folder"], {"callTimeoutSeconds": 60}, command=[nim["python"], "-m", "gameroom"],
                         env=nim["env"])
    try:
        person = lobby.connect("Cy")   # once the lobby listens
        games = {g["name"]: g for g in person.request({"type": "GET_GAMES"}, "GAMES")["games"]}
        assert games["nim"]["plays"] == "calls" and games["nim"]["numberOfPlayers"] == [2]
        assert games["nim"]["options"] == [{"name": "stones", "kind": "int", "default": None, "low": 4, "high": 40,
                                            "help": "stones in the pile, 4..40 (default: 12 to 24, drawn)"}]
        bots = gameroom(nim, "clients", "nim", "--lobby", "--port", str(lobby.port), "--rooms", "2", "--strategy",
                        "random", "--baddie", "cheat", "--quiet")
        assert bots.returncode == 0, bots.stderr
        rooms = [json.loads(line) for line in bots.stdout.splitlines()]
        assert len(rooms) == 2 and all(len(room["winners"]) == 1 for room in rooms), rooms
        assert rooms[0]["winners"] == ["bot0_0"] and rooms[0]["out"][0].startswith("bot0_1: EJECTED"), rooms[0]
        room = person.request({"type": "CREATE_ROOM", "game": "nim", "numberOfPlayers": 2, "stones": 9,
                               "isPrivate": True, "person": True}, "ROOM_ID")["id"]
        joiner = subprocess.Popen([nim["python"], "-m", "gameroom", "clients", "nim", "--lobby", "--port",
                                   str(lobby.port), "--join", str(room), "--players", "1", "--strategy", "perfect",
                                   "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env=nim["env"])
        seen = play_person(person, random.Random(2))
        out, err = joiner.communicate(timeout=300)
        assert joiner.returncode == 0, err
    finally:
        log = lobby.stop()
    assert seen["refusals"][0]["errorMessage"].startswith("Invalid reply to take: "), seen["refusals"]
    assert seen["end"]["type"] == "END_GAME" and seen["end"]["misbehaved"] == [], seen["end"]
    assert seen["states"][0]["state"]["pile"] == 9 and json.loads(out)["winners"] == seen["end"]["winners"]
    assert "nim game" in log and "starts: Cy, bot0_0" in log


def test_nim_keeps_the_contract_with_a_person_who_times_out_leaves_or_comes_back(nim: dict[str, Any]) -> None:
    """The contract of every game with a person (``tests.lobby.test_people_contract``,
    ``tests.web.test_people_contract``), for the plug-in: in the web room (a person's
    limit of 1 s) and in the lobby."""
    httpx = pytest.importorskip("httpx")
    from tests.lobby import test_people_contract as lobby_contract
    from tests.lobby.rooms import LobbyProcess
    from tests.web import test_people_contract as web_contract

    port = free_port()
    web = subprocess.Popen([nim["python"], "-m", "gameroom", "web", "--port", str(port), "--person-limit", "1"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=nim["env"])
    command = [nim["python"], "-m", "gameroom"]
    hasty = LobbyProcess(nim["folder"], {"personTimeoutSeconds": 1, "callTimeoutSeconds": 60}, command=command,
                         env=nim["env"])
    patient = LobbyProcess(nim["folder"], {"personTimeoutSeconds": 600, "callTimeoutSeconds": 60,
                                           "reconnectGraceSeconds": 600}, command=command, env=nim["env"])
    try:
        assert web.stdout is not None and "serving on" in web.stdout.readline()
        url = f"http://127.0.0.1:{port}"
        with httpx.Client(base_url=url, timeout=60) as session:
            assert session.post("/api/signup", json={"username": "nim-contract", "password": "correct horse "
                                                     "battery"}).status_code == 201
            web_contract.person_times_out(url, session, "nim", ["random"], 1.0)
            web_contract.person_leaves_and_comes_back(url, session, "nim", ["random"], 60.0)
        hasty.connect().close()
        patient.connect().close()
        lobby_contract.person_times_out(hasty, "nim", "tnim")
        lobby_contract.person_leaves(patient, "nim", "lnim")
        lobby_contract.person_comes_back(patient, "nim", "bnim")
    finally:
        web.kill()
        web.communicate()
        logs = [hasty.stop(), patient.stop()]
    for log in logs:
        lobby_contract.nothing_failed(log)


def test_the_benchmark(nim: dict[str, Any]) -> None:
    run = subprocess.run([nim["python"], "-m", "gameroom.bench", "nim", "--games", "20"], capture_output=True,
                         text=True, env=nim["env"], timeout=300, check=False)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    # the game's default lineup on trusted, guarded and isolated seats, then the generic figures
    assert lines[0].startswith("nim, 2 x perfect: trusted ") and all(kind in lines[0] for kind in ("guarded", "isolated"))
    assert any(line.startswith("nim remote (2 perfect clients") and "one remote call mean" in line for line in lines)
    figures = json.loads(lines[-1])
    assert all(isinstance(figures[key], (int, float)) and figures[key] > 0 for key in
               ("games_per_s_trusted", "games_per_s_guarded", "games_per_s_isolated",
                "call_us_direct", "call_us_guarded", "call_us_isolated"))
