"""Load: 50 rooms at once on one lobby (2, 3 and 4 players, simple and expert) between
bots in six other processes, under the referee policy, while some bots fall silent, stop
reading their socket or drop their connection. Every room ends with END_GAME; the rooms of
well-behaved bots must end exactly as the rules rank their final position (each bot checks
the winners against the position it saw), and a room with a misbehaving bot ends with its
team eliminated."""

from __future__ import annotations

import json
import subprocess

from driver import GAMEROOM, free_port

# (players, expert, rooms, misbehaving bots: one each in the first rooms)
PLAN = [(2, False, 9, ["timeout@3", "crash@6"]), (2, True, 9, ["slowreader@4"]),
        (3, False, 8, ["crash@2"]), (3, True, 8, ["timeout@7"]),
        (4, False, 8, ["slowreader@2"]), (4, True, 8, [])]


def test_fifty_rooms_at_once_with_misbehaving_clients(tmp_path) -> None:
    assert sum(rooms for _p, _e, rooms, _b in PLAN) == 50
    port = free_port()
    config = tmp_path / "lobby.json"
    config.write_text(json.dumps({"policy": "referee", "turnTimeoutSeconds": 20, "writeTimeoutSeconds": 5,
                                  "seed": 21}))
    server = subprocess.Popen(GAMEROOM + ["serve", "eriantys", "--port", str(port), "--config", str(config),
                                          "--quiet"])
    clients = []
    try:
        for k, (players, expert, rooms, baddies) in enumerate(PLAN):
            args = ["clients", "eriantys", "--port", str(port), "--players", str(players), "--rooms", str(rooms),
                    "--strategy", "greedy" if k % 2 else "first-legal", "--prefix", f"p{k}r", "--seed", str(k),
                    "--quiet", *(["--expert"] if expert else [])]
            for baddie in baddies:
                args += ["--baddie", baddie]
            clients.append(subprocess.Popen(GAMEROOM + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE))
        results = []
        for proc in clients:
            out, err = proc.communicate(timeout=900)
            assert proc.returncode == 0, err.decode()
            results.append([json.loads(line) for line in out.decode().splitlines()])
    finally:
        for proc in clients:
            if proc.poll() is None:
                proc.kill()
        server.terminate()
        server.wait(timeout=30)
    room_ids = set()
    for (players, _expert, rooms, baddies), lines in zip(PLAN, results):
        assert len(lines) == rooms
        for r, line in enumerate(lines):
            room_ids.add(line["room"])
            assert "winners" in line, line
            assert line["consistent"], line
            if r < len(baddies):
                # the misbehaving bot (last seat) and its team-mate can no longer win
                bad = line["players"][-1]
                team = {p for i, p in enumerate(line["players"]) if players == 4 and i % 2 == (players - 1) % 2}
                assert bad not in line["winners"] and not team & set(line["winners"]), line
            else:
                assert line["winners"], line
    assert len(room_ids) == 50
