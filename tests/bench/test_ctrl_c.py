"""Ctrl-C ends ``python -m gameroom.bench`` as it ends ``gameroom``: one line and status 130,
never a traceback, whenever it comes. A terminal interrupts the whole foreground process
group, so the interrupt is sent to the group here too: while the bench loads, while it
measures in its own process, and while a child process of its own plays (the child ends
silently; the bench says the one line). The child is interrupted once it runs its program:
an interrupt inside the interpreter's own start (``site``) is Python's fatal error, printed
before any program of ours runs. The bench is not interrupted in the middle of its imports
here: an interrupt inside a C extension's import can leave the interpreter broken (a
crash seen under load), which no program can catch."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from driver import wait_catching_sigint

from gameroom.bench.processes import in_group, live

SMALL = ["q", "--games", "2", "--isolated-games", "1"]
LINE = "python -m gameroom.bench: interrupted"


def _bench() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "gameroom.bench", *SMALL], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)


def _child_playing(bench: subprocess.Popen, marker: bytes, seconds: float = 300) -> None:
    """Wait until a process of the bench's group runs ``marker`` (the remote clients) and is
    past the interpreter's start (it has loaded orjson, one of gameroom's first imports)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and bench.poll() is None:
        members = set(in_group(bench.pid)) - {bench.pid}
        for pid in (pid for pid, command in live().items() if pid in members and marker in command):
            try:
                with open(f"/proc/{pid}/maps") as maps:
                    if any("orjson" in line for line in maps):
                        return
            except OSError:
                pass
        time.sleep(0.02)
    raise AssertionError(f"the bench never started a child running {marker!r}")


@pytest.mark.parametrize("moment", ["measuring", "in-a-child"])
def test_ctrl_c_is_one_line_and_status_130(moment: str) -> None:
    bench = _bench()
    try:
        wait_catching_sigint(bench)
        if moment == "measuring":
            assert bench.stdout.readline(), "the bench printed nothing"
        elif moment == "in-a-child":
            _child_playing(bench, b"gameroom.bench.remote")
        os.killpg(bench.pid, signal.SIGINT)
        _out, err = bench.communicate(timeout=120)
    finally:
        if bench.poll() is None:
            os.killpg(bench.pid, signal.SIGKILL)
            bench.wait()
    assert bench.returncode == 130, err.decode()
    assert err.decode().splitlines() == [LINE], err.decode()
