"""CPU-accounting groups on the real cgroup hierarchy (as root): a process started in a
group is charged there with everything it forks, a parent group counts its children's,
a process moved on leaves what it spent behind, and removing the group leaves nothing."""

import os
import subprocess
import sys

import pytest

from gameroom.sandbox.cpuacct import CpuAccountingUnavailable, descendants, hierarchy, make_group, move

SPIN = "import os, sys\nx = 0\nfor i in range(3_000_000): x += i\nif len(sys.argv) < 2: os.system(sys.executable + ' -c pass')\n"


@pytest.fixture
def group():
    if isinstance(hierarchy(), str):
        pytest.skip(f"no CPU accounting here: {hierarchy()}")
    made = make_group(f"gameroom-test-cpuacct-{os.getpid()}")
    yield made
    made.remove()
    assert not os.path.exists(made.path)


def test_a_group_counts_its_processes_and_what_they_fork_and_a_parent_its_children(group):
    first, second = group.child("first"), group.child("second")
    subprocess.run([sys.executable, "-c", SPIN], preexec_fn=lambda: first.join(os.getpid()), check=True)
    spent = first.seconds()
    assert spent > 0.05   # three million additions and a child interpreter: well over 50 ms
    assert second.seconds() == 0
    assert group.seconds() >= spent


def test_a_moved_process_leaves_what_it_spent_where_it_spent_it(group):
    before, after = group.child("before"), group.child("after")
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.readline(); x = sum(range(3_000_000))"],
                             stdin=subprocess.PIPE, text=True, preexec_fn=lambda: before.join(os.getpid()))
    try:
        assert child.pid in descendants(child.pid)
        assert child.pid in before.members()
        spent_before = before.seconds()
        move([child.pid], after)
        assert after.members() == [child.pid]
        child.communicate("go\n", timeout=120)
    finally:
        child.kill()
        child.wait()
    assert after.seconds() > 0.02 and before.seconds() - spent_before < after.seconds()


def test_without_a_hierarchy_it_says_why(monkeypatch):
    monkeypatch.setattr("gameroom.sandbox.cpuacct.hierarchy", lambda: "neither is mounted")
    with pytest.raises(CpuAccountingUnavailable, match="neither is mounted"):
        make_group("gameroom-test-none")
