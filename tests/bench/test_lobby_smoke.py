"""The lobby benchmark runs end to end with tiny numbers (the lobby on a thread, bots in
real client processes over loopback): rooms of Eriantys played by events and of Q played
by calls, every room finished, then what people cost (checks flooded, pictures watched);
its figures are printed, never asserted."""

import re
import subprocess
import sys


def test_the_lobby_benchmark_plays_every_room_of_both_kinds():
    done = subprocess.run([sys.executable, "-m", "gameroom.bench", "lobby", "--rooms", "2", "--call-rooms", "2",
                           "--people-seconds", "0.5"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("lobby: eriantys rooms at once") and lines[2].startswith("lobby: q rooms at once")
    assert re.match(r"\s+2 rooms:\s+2 finished, \s*\d+ events in", lines[1]), lines[1]
    assert re.match(r"\s+2 rooms:\s+2 finished in .* games/s, .* calls/s; reply -> call p50 .* held p50", lines[3]), (
        lines[3])
    at = next(k for k, line in enumerate(lines) if line.startswith("lobby journal:"))
    assert lines[at].startswith("lobby journal: eriantys, 2 rooms at once"), lines[at]
    journal = lines[at + 1:at + 5]
    assert [row.split(":")[0].strip() for row in journal[:3]] == ["in memory", "SQLite", "PostgreSQL"], journal
    assert "restart" in journal[3], journal
    lines = lines[:4] + lines[at + 5:]   # the people's rows follow the journal's
    assert lines[4].startswith("lobby: another client's round trips") and "quiet p50" in lines[5], lines[4:6]
    assert lines[6].startswith("lobby: 64 spectators") and re.search(r"pictures drawn \d+ for \d+ step", lines[7]), (
        lines[6:8])
