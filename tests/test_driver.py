"""The test driver itself under pytest-xdist (issue 8, item 9)."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import driver

TESTS = Path(__file__).resolve().parent


def pool_sizes(workers: str) -> list[int]:
    """The driver's pool sizes in a fresh process that believes it is one of ``workers``."""
    code = "import driver; print(driver._POOL._max_workers, driver._WAIT_POOL._max_workers)"
    env = dict(os.environ, PYTEST_XDIST_WORKER_COUNT=workers)
    out = subprocess.run([sys.executable, "-c", code], cwd=TESTS, env=env, capture_output=True, check=True)
    return [int(n) for n in out.stdout.split()]


def test_xdist_workers_share_the_pools_instead_of_each_starting_them_whole() -> None:
    """Each `-n 2` worker used to start 24 + 64 threads that start processes (and up to
    that many `gameroom` processes alive at once); now the budget is for the whole run."""
    alone, shared = pool_sizes("1"), pool_sizes("2")
    assert [2 * n for n in shared] == alone


def test_many_threads_start_processes_at_once() -> None:
    """Starts from many threads are serialised (``driver._start``, under ``driver.spawn``
    and ``run_gameroom``) and all succeed. The children are a bare interpreter printing
    its number: what is tested is the start (fork, exec), which a child's own work after
    its exec does not touch; 64 ``gameroom --version`` (a tenth of a second of imports each)
    took a minute of a loaded machine."""
    child = [sys.executable, "-I", "-S", "-c", "import sys; print(sys.argv[1])"]

    def start(number: int) -> tuple[int, str]:
        process = driver._start([*child, str(number)], dict(stdout=subprocess.PIPE, stderr=subprocess.PIPE))
        out, _err = process.communicate(timeout=300)
        return process.returncode, out.decode().strip()

    with ThreadPoolExecutor(32) as pool:
        runs = list(pool.map(start, range(64)))
    assert runs == [(0, str(number)) for number in range(64)]
