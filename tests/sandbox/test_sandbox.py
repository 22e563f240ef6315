"""The sandbox of untrusted code (``sandbox.confine``, ``sandbox.bwrap``, ``sandbox.launcher``)
with real processes: in bubblewrap and in the fallback, nothing a bot forks outlives it
(a double fork with ``setsid`` included), its process, file-size and temporary-space
limits hold (as root too), it runs as a user of its own under root and reaches no
network, and its stderr tail and exit status are kept, bounded. An isolated Python
player in a sandbox (the league's Python bots) gets the same."""

from __future__ import annotations

import functools
import os
import socket
import sys
import time
import uuid
from pathlib import Path

import pytest

from gameroom.core.context import MatchContext
from gameroom.sandbox.confine import UID_BASE, Confined
from gameroom.sandbox.sweep import fallback_bounds_processes
from gameroom.sandbox.isolation import IsolatedCaller, isolated_seat
from gameroom.core.limits import Limits
from gameroom.sandbox.policy import ResourceLimits, SandboxPolicy
from gameroom.games import registry
from gameroom.bench.processes import marked
from tests.sandbox.hostile_bots import HostileBot


def _bubblewrap() -> SandboxPolicy:
    from gameroom.sandbox.bwrap import probe

    problem = probe()
    if problem is not None:
        pytest.skip(f"no bubblewrap sandbox here ({problem}); .ci/run installs the 'bubblewrap' package")
    return SandboxPolicy(mode="bwrap")


@pytest.fixture(params=["bwrap", "rlimits"])
def policy(request: pytest.FixtureRequest) -> SandboxPolicy:
    return _bubblewrap() if request.param == "bwrap" else SandboxPolicy(mode="rlimits")


def _python(code: str, policy: SandboxPolicy, limits: ResourceLimits = ResourceLimits(), *extra: str) -> Confined:
    return Confined([sys.executable, "-c", code, *extra], policy, limits, {})


def _finished(program: Confined, seconds: float = 120) -> Confined:
    assert program.wait(seconds), "the program did not end"
    program.kill()
    return program


ESCAPE = """
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        while True:
            time.sleep(1)
    os._exit(0)
os.wait()
print("escaped", file=sys.stderr, flush=True)
while True:
    time.sleep(1)
"""


def test_nothing_a_bot_forks_outlives_it(policy: SandboxPolicy) -> None:
    marker = f"marker-{uuid.uuid4().hex}"
    program = _python(ESCAPE, policy, ResourceLimits(), marker)
    deadline = time.monotonic() + 120
    while program.stderr_tail() != "escaped" and time.monotonic() < deadline:   # its grandchild left the group
        time.sleep(0.05)
    assert len(marked(marker)) >= 2
    program.kill()
    assert marked(marker) == []
    assert program.ending() == "killed by the league while still running"
    assert program.stderr_note() == "; stderr: escaped"


FORKER = """
import os, sys, time
count = 1
try:
    while count < 200:   # should the limit not hold, the test fails without a fork bomb
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        count += 1
except OSError as exc:
    print(f"{count} processes, then {exc.strerror}", file=sys.stderr, flush=True)
sys.exit(0)
"""


def test_the_process_limit_holds_even_for_root(policy: SandboxPolicy) -> None:
    if policy.mode == "rlimits" and not fallback_bounds_processes():
        pytest.skip("the fallback cannot bound root's processes here (no writable pids cgroup)")
    marker = f"marker-{uuid.uuid4().hex}"
    program = _finished(_python(FORKER, policy, ResourceLimits(processes=10), marker))
    text = program.stderr_tail()
    assert "Resource temporarily unavailable" in text, text
    assert int(text.split(" processes")[0]) <= 10
    assert marked(marker) == []


WRITER = """
import os, sys
for size in (3, 1, 1, 1):
    try:
        with open(os.path.join(os.environ["TMPDIR"], f"f{size}-{os.urandom(4).hex()}"), "wb") as out:
            out.write(b"x" * (size * 1024 * 1024 - 1))
        print(f"wrote {size} MiB", file=sys.stderr, flush=True)
    except OSError as exc:
        print(f"{size} MiB: {exc.strerror}", file=sys.stderr, flush=True)
"""


def test_file_size_and_temporary_space_are_bounded() -> None:
    policy = SandboxPolicy(mode=_bubblewrap().mode, tmp_mb=3)
    program = _finished(_python(WRITER, policy, ResourceLimits(file_mb=2)))
    # the first file stops at 2 MiB, the second fills the 3 MiB of its /tmp
    assert program.stderr_tail() == ("3 MiB: File too large | wrote 1 MiB | 1 MiB: No space left on device | "
                                     "1 MiB: No space left on device")
    assert program.ending() == "exited with status 0"


def test_the_fallback_bounds_file_size_and_removes_its_directory() -> None:
    program = _python(WRITER, SandboxPolicy(mode="rlimits"), ResourceLimits(file_mb=2))
    temporary = program.temporary
    _finished(program)
    assert program.stderr_tail() == "3 MiB: File too large | wrote 1 MiB | wrote 1 MiB | wrote 1 MiB"
    assert temporary is not None and not Path(temporary).exists()


def test_no_network_and_no_host_file_but_what_it_is_given(tmp_path: Path) -> None:
    policy = _bubblewrap()
    home = os.path.join(os.path.expanduser("~"), ".ssh")   # the user's keys, if any: not in the sandbox
    secret = tmp_path / "secret"
    secret.write_text("only root may read this")
    secret.chmod(0o600)
    with socket.create_server(("127.0.0.1", 0)) as host:
        code = f"""
import os, socket, sys
try:
    socket.create_connection(("127.0.0.1", {host.getsockname()[1]}), timeout=5)
    print("connected", file=sys.stderr)
except OSError as exc:
    print(f"connect: {{exc.strerror}}", file=sys.stderr)
print(f"uid {{os.getuid()}}", file=sys.stderr)
for path in (sys.argv[1], "{tmp_path}/db.sqlite", "{home}"):
    try:
        open(path).read()
        print(f"read {{path}}", file=sys.stderr)
    except OSError as exc:
        print(f"{{path}}: {{exc.strerror}}", file=sys.stderr)
"""
        program = _finished(_python(code, policy, ResourceLimits(), str(secret)))
    lines = program.stderr_tail().split(" | ")
    assert lines[0] == "connect: Connection refused"
    uid = int(lines[1].split()[1])
    if os.geteuid() == 0:   # a user of its own: root's file is not readable though it is bound
        assert uid >= UID_BASE
        assert lines[2] == f"{secret}: Permission denied"
    assert lines[3] == f"{tmp_path}/db.sqlite: No such file or directory"   # not bound: not there
    assert lines[4] == f"{home}: No such file or directory"


def test_the_stderr_tail_is_bounded_and_the_exit_status_kept(policy: SandboxPolicy) -> None:
    code = "import sys\nfor i in range(100000):\n    print(f'line {i} <b>', file=sys.stderr)\nsys.exit(7)"
    program = _finished(_python(code, policy))
    tail = program.stderr_tail()
    assert tail.endswith("line 99999 <b>") and len(tail.encode()) <= 2048 + 3 * 100
    assert program.describe().startswith("exited with status 7; stderr: ")


def test_a_missing_program_cannot_start(policy: SandboxPolicy, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="is not found"):
        Confined([str(tmp_path / "nothing")], policy, ResourceLimits(), {})


def test_a_sandboxed_python_player_cannot_leave_it(policy: SandboxPolicy) -> None:
    """A league Python bot's player that double-forks with setsid: its grandchild ends with
    the player."""
    marker = f"/tmp/gameroom-test-escape-{uuid.uuid4().hex}"   # its /tmp: the sandbox's own, or the host's
    caller = IsolatedCaller(functools.partial(HostileBot, "Bad", "escape", marker), sandbox=policy)
    try:
        assert caller("take_turn", (None,), 60.0) == "escaped"
        deadline = time.monotonic() + 120    # its pid is written just before its exec, which a loaded machine delays
        while not marked(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(marked(marker)) == 1     # the grandchild, out of the player's group
    finally:
        caller.close()
        if os.path.exists(marker):
            os.unlink(marker)
    assert marked(marker) == []


def test_a_sandboxed_python_player_plays_a_game(policy: SandboxPolicy) -> None:
    q = registry.game("q")
    bad = isolated_seat("Bad", functools.partial(HostileBot, "Bad", "spin"), ResourceLimits(), policy)
    outcome = q.play(3, [bad, *q.seats(["dag", "dag"], 3)], context=MatchContext(limits=Limits(call=2.0)))
    assert outcome.misbehaved == ["Bad"] and outcome.winners
    assert "time limit" in outcome.ejections[0].reason


def test_a_sandboxed_python_player_that_dies_leaves_its_status_and_stderr(policy: SandboxPolicy) -> None:
    caller = IsolatedCaller(functools.partial(HostileBot, "Bad", "die"), sandbox=policy)
    try:
        caller("take_turn", (None,), 60.0)
    except Exception as exc:   # CallFailed
        reason = str(exc)
    else:
        raise AssertionError("the call did not fail")
    assert reason == "player process died: exited with status 5; stderr: hostile player: giving up <now>"
