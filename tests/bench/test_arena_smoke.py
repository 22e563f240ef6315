"""The arena benchmark runs end to end with a few games a row (program bots of every
language in real bubblewrap sandboxes, or the fallback, on the arena's real worker pool):
every row printed and a last JSON line with each row's figures; the figures themselves
are printed, never asserted, except that a part measured in CPU is never negative (each
is a counter of its own, not a difference)."""

import json
import subprocess
import sys

from gameroom.bench.arena import KEYS


def test_the_arena_benchmark_prints_every_row_and_its_json():
    done = subprocess.run([sys.executable, "-m", "gameroom.bench", "arena", "--games", "4", "--quick"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    # the arena's rows, then the viewer's: each ends with its JSON line
    ends = [at for at, line in enumerate(lines) if line.startswith("{")]
    figures = json.loads(lines[ends[0]])
    assert json.loads(lines[ends[-1]])["bench"] == "viewer"
    lines = lines[:ends[0] + 1]
    assert figures["bench"] == "arena" and figures["games"] == 4 and figures["workers"] == 2
    hostile = figures["hostile uploads"]   # each refused, naming its rule's key; the RSS figure printed
    assert len(hostile["answers"]) == 5 and all("(uploads." in answer or "the name says" in answer
                                                for answer in hostile["answers"]), hostile
    assert any(line.startswith("arena bench: hostile uploads refused, peak RSS +") for line in lines)
    labels = ["python programs", "javascript programs", "command programs", "built-in players"]
    assert list(figures["rows"]) == labels
    for label in labels:
        row = figures["rows"][label]
        assert tuple(row) == KEYS
        assert any(line.startswith(label) for line in lines[:-1]), label
        assert row["games/s"] > 0 and row["wall ms"] > 0
        if figures["accounting"] is not None:
            assert all(row[key] >= 0 for key in ("bot starts ms", "bots play ms", "platform ms")), row
        else:
            assert row["platform ms"] is None
    if figures["accounting"] is not None:
        assert figures["rows"]["python programs"]["per bot ms"] == figures["rows"]["python programs"]["platform ms"] / 2
        assert figures["rows"]["built-in players"]["per bot ms"] is None
        python = figures["rows"]["python programs"]
        assert python["with start ms"] == (python["bot starts ms"] + python["platform ms"]) / 2
        assert figures["rows"]["built-in players"]["with start ms"] is None
