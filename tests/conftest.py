"""Shared test helpers: where the reference fixtures live, JSON stream reading, a real
PostgreSQL server for the tests of results databases (``postgres_url``: started on a
private port and data directory once per test process, skipped with a message where the
``postgresql`` package is not installed; ``.ci/run`` installs it), and the property tests'
hypothesis profile (no time limits)."""

from __future__ import annotations

import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any, Iterator

import pytest
from hypothesis import HealthCheck, settings

from gameroom.cli.common import parse_json_values

# Test modules import these helpers as `from conftest import ...`; tests/ is a package
# (so same-named test files of different games do not collide), hence the path entry.
sys.path.insert(0, str(Path(__file__).resolve().parent))

# Every child of the test process is started with fork(), not vfork(). With vfork the child
# borrows the parent's memory until it execs while the parent's other threads run on (and
# CPython drops the GIL around the call); the suite starts hundreds of servers and clients
# from pool threads, and under `-n 2` in CI a start now and then failed in the child before
# its exec (exit 255, OSError). fork() costs a page-table copy, about a millisecond here.
if hasattr(subprocess, "_USE_VFORK"):
    subprocess._USE_VFORK = False

# Hypothesis's default deadline (200 ms per example) and its too_slow health check are time
# assertions: on a loaded 2-core machine a property test failed on its clock, not on its
# property. Every property test runs under this profile; a test sets only what it needs
# (max_examples, derandomize, ...) and inherits no time limit.
settings.register_profile("gameroom", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("gameroom")

REPO = Path(__file__).resolve().parents[1]
FIXTURES_ENV = "GAMEROOM_FIXTURES"


def fixtures_root() -> Path:
    """The reference fixtures folder: $GAMEROOM_FIXTURES or ../shared/fixtures beside the repo."""
    env = os.environ.get(FIXTURES_ENV)
    return Path(env) if env else REPO.parent / "shared" / "fixtures"


def game_fixtures(game: str) -> Path:
    """The fixture folder of one game; skips the calling test when it is absent."""
    path = fixtures_root() / game
    if not path.is_dir():
        pytest.skip(f"reference fixtures for {game} not found at {path} "
                    f"(set {FIXTURES_ENV} to the shared fixtures folder)")
    return path


def fixture_cases(game: str, harness: str, pattern: str = "**/*-in.json") -> list[Any]:
    """Parameters for a test over every `*-in.json` of one harness folder, sorted.

    Used at collection time. When the folder is absent it yields one parameter that skips
    with a message naming the missing folder, so the run says why nothing was checked.
    """
    path = fixtures_root() / game / harness
    if not path.is_dir():
        return [pytest.param(None, id=f"{game}-{harness}-absent",
                             marks=pytest.mark.skip(reason=f"reference fixtures not found at {path} "
                                                    f"(set {FIXTURES_ENV})"))]
    return [pytest.param(p, id=str(p.relative_to(path)).removesuffix("-in.json"))
            for p in sorted(path.glob(pattern))]


def logged_lines(caplog: pytest.LogCaptureFixture, name: str) -> list[str]:
    """What logger ``name`` and its children said (their messages, as the command's stderr
    handler writes a line), in order; the test calls ``caplog.set_level(logging.INFO,
    logger="gameroom")`` first."""
    return [record.getMessage() for record in caplog.records
            if record.name == name or record.name.startswith(name + ".")]


def read_json_values(text: str) -> list[Any]:
    """All JSON values of a text, written one after another with white space between
    (the command line's own reader, so tests read outputs exactly as inputs are read)."""
    return parse_json_values(text, "test data")


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A private PostgreSQL server for the session: initdb into a fresh directory, started
    on a free port with a Unix socket in that directory; as root it runs as the
    ``postgres`` user (root cannot run a server)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        pytest.skip("PostgreSQL is not installed (Debian package 'postgresql'; .ci/run installs it)")
    bindir = Path(found[-1]).parent
    root = os.geteuid() == 0
    if root and shutil.which("runuser") is None:
        pytest.skip("running as root without runuser: cannot start PostgreSQL as another user")
    data = Path(tempfile.mkdtemp(prefix="gameroom-pg-"))
    prefix: list[str] = []
    if root:
        import pwd

        try:
            pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("no 'postgres' user to run the PostgreSQL server as")
        shutil.chown(data, "postgres", "postgres")
        data.chmod(0o700)
        prefix = ["runuser", "-u", "postgres", "--"]
    from tests.driver import free_port

    port = free_port()
    subprocess.run([*prefix, str(bindir / "initdb"), "-D", str(data / "db"), "-U", "gameroom", "--auth=trust",
                    "-E", "UTF8"], check=True, capture_output=True, timeout=300)
    subprocess.run([*prefix, str(bindir / "pg_ctl"), "-D", str(data / "db"), "-l", str(data / "log"), "-w", "-t", "120",
                    "-o", f"-p {port} -k {data} -c listen_addresses=127.0.0.1 -c fsync=off", "start"],
                   check=True, capture_output=True, timeout=300)
    try:
        yield f"postgresql+psycopg://gameroom@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*prefix, str(bindir / "pg_ctl"), "-D", str(data / "db"), "-m", "immediate", "stop"],
                       capture_output=True, timeout=120)
        shutil.rmtree(data, ignore_errors=True)


def _kernel_sigint() -> list[str]:
    """What the kernel holds for SIGINT in this thread (C code, such as a library's, can
    change it without Python's ``signal.getsignal`` knowing)."""
    try:
        with open(f"/proc/self/task/{threading.get_native_id()}/status") as status:
            fields = dict(line.split(":", 1) for line in status if ":" in line)
    except OSError:
        return []
    bit = 1 << (signal.SIGINT - 1)
    return [what for what, key in (("ignored (kernel)", "SigIgn"), ("blocked (kernel)", "SigBlk"))
            if int(fields.get(key, "0").strip(), 16) & bit]


def _sigint_problems() -> list[str]:
    """How SIGINT differs, in this thread, from what a Python program starts with."""
    problems = _kernel_sigint()
    if "ignored (kernel)" in problems and signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)   # Python's own, set again
    if hasattr(signal, "pthread_sigmask") and signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, []):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        problems.append("blocked")
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        problems.append("ignored")
    return problems


@pytest.fixture(autouse=True)
def _sigint_left_as_found() -> Iterator[None]:
    """A test or fixture that leaves SIGINT blocked or ignored in this process passes that
    on to every program it starts afterwards (the mask and SIG_IGN survive fork and exec),
    and a later Ctrl-C test then fails far from the cause: fail where it is first seen, and
    put SIGINT back so the rest of the run is not hit."""
    before = _sigint_problems()
    assert not before, f"SIGINT was left {' and '.join(before)} before this test (by a fixture or the test before)"
    yield
    after = _sigint_problems()
    assert not after, f"this test left SIGINT {' and '.join(after)} in the test process"



# -- How pytest-xdist shares the suite out (pyproject.toml: --dist loadfile,
# --no-loadscope-reorder) ---------------------------------------------------------------
# One worker runs a whole module (tests/driver.py's submit_all starts a module's cases at
# once), except the modules below, whose long tests are independent: each test is a unit
# of its own. (pytest-xdist's --dist loadgroup would say this with marks, but it renames
# items through an attribute pytest 9.2 no longer reads: every test became its own unit.)
# The units are handed out in the order of the items, and the modules that take longest go
# first, so the two workers end together instead of one running a long module alone at the
# end (tests/web/test_limits.py and tests/test_driver.py, last in the collection, kept one
# worker busy for minutes after the other ended). The list is of measured durations (the
# sums of a module's tests in `pytest -n 2 --durations=0`, on a loaded machine; a module
# whose cases overlap on the driver's pools takes less than its sum); a module not named
# keeps its place after them. tests/lobby/test_journal.py, once left out, ran last: its
# 600 s test kept one worker busy for ten minutes after the other ended.
SPLIT_BY_TEST = ("tests/docs/test_examples.py",)
LONGEST_FIRST = (
    "tests/lobby/test_journal.py",
    "tests/integration/test_q_conformance.py",
    "tests/integration/test_bazaar_conformance.py",
    "tests/league/test_league.py",
    "tests/integration/test_fish_conformance.py",
    "tests/docs/test_examples.py",
    "tests/web/test_boards.py",
    "tests/arena/test_hostile.py",
    "tests/cli/test_exit_statuses.py",
    "tests/arena/test_season_browser.py",
    "tests/web/test_browser.py",
    "tests/league/test_ray.py",
    "tests/bench/test_arena_smoke.py",
    "tests/web/test_limits.py",
    "tests/rl/test_property.py",
    "tests/server/test_slowloris.py",
    "tests/integration/test_hostile_input.py",
    "tests/lobby/test_hostile.py",
    "tests/web/test_restart.py",
    "tests/integration/test_bazaar_wire.py",
    "tests/league/test_session_replays.py",
    "tests/arena/test_end_to_end.py",
    "tests/bench/test_hostile_signup_smoke.py",
    "tests/rl/test_example.py",
)


def _module(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {module: at for at, module in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(_module(item.nodeid), len(rank)))   # stable: the rest keep their order


@pytest.hookimpl(optionalhook=True)   # a pytest-xdist hook: without -n it is never called
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    from xdist.scheduler import LoadScopeScheduling

    class ModulesInOrder(LoadScopeScheduling):
        """--dist loadfile's units (a module each), but a test each in SPLIT_BY_TEST."""

        def _split_scope(self, nodeid: str) -> str:
            module = _module(nodeid)
            return nodeid if module in SPLIT_BY_TEST else module

    return ModulesInOrder(config, log)
