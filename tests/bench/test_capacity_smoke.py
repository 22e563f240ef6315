"""The capacity benchmark runs end to end with tiny numbers (a real server process and
real client processes over loopback) and ends with its one JSON line; its figures are
printed, never asserted."""

import json
import subprocess
import sys

KEYS = {"players", "games", "referees", "games_per_s", "calls_per_s", "p50_added_ms", "p99_added_ms", "call_ms",
        "floor_ms", "server_cpu_s", "server_cpu_us_per_call", "server_rss_mb"}


def test_capacity_prints_its_figures_as_one_json_line():
    done = subprocess.run([sys.executable, "-m", "gameroom.bench", "capacity", "--players", "8", "--games", "2"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(summary) == KEYS
    assert summary["players"] == 8 and summary["games"] == 2 and summary["referees"] == "hub"
