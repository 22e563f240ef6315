"""``gameroom.bench.processes`` on real processes: a sleeping child found by the marker on
its command line, by the variable its parent put in its environment and by its process
group, gone from all three once it has ended; the memory figures of /proc/PID/status."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

from gameroom.bench.processes import in_group, live, marked, started_by, status_kb


def test_a_child_is_found_while_it_lives_and_not_after() -> None:
    marker = f"marker-{uuid.uuid4().hex}"
    env = {**os.environ, "PROCESSES_TEST_PARENT": str(os.getpid())}
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()", marker],
                             stdin=subprocess.PIPE, env=env, start_new_session=True)
    try:
        assert [line.split(":", 1)[0] for line in marked(marker)] == [str(child.pid)]
        assert child.pid in started_by(os.getpid(), "PROCESSES_TEST_PARENT")
        assert in_group(child.pid) == [child.pid]   # its own session: a group of one
        assert child.pid in live() and os.getpid() in live("environ")
    finally:
        child.communicate(b"", timeout=120)
    assert marked(marker) == [] and in_group(child.pid) == []
    assert child.pid not in started_by(os.getpid(), "PROCESSES_TEST_PARENT")


def test_a_variable_names_its_parent_exactly() -> None:
    """``X=12`` is not ``X=123``'s parent."""
    env = {**os.environ, "PROCESSES_TEST_PARENT": f"{os.getpid()}0"}
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE, env=env)
    try:
        assert child.pid not in started_by(os.getpid(), "PROCESSES_TEST_PARENT")
    finally:
        child.communicate(b"", timeout=120)


def test_memory_figures_of_a_live_process_and_none_for_what_is_gone() -> None:
    rss, peak = status_kb(os.getpid(), "VmRSS"), status_kb(os.getpid(), "VmHWM")
    assert rss is not None and peak is not None and 0 < rss <= peak
    assert status_kb(os.getpid(), "NoSuchField") is None
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait(timeout=120)
    assert status_kb(child.pid, "VmRSS") is None
