"""CPU accounting groups: the CPU time of a set of processes and of everything they start.

A benchmark asks what a part of the platform costs in CPU (a worker, the sandboxes it
makes, the bots in them). ``getrusage`` misses what a process never waited for itself
(everything killed inside a bot's PID namespace is reaped by the namespace's first
process, not by us), and per-process counters vanish with the process. A cgroup's
counter does neither: every process in the group, and every process they fork, is
charged to it until it is moved elsewhere, dead or alive, and a parent group's counter
includes its children's. As root, with the cgroup v1 ``cpuacct`` hierarchy or a cgroup v2
mount, :func:`make_group` makes one; elsewhere it says why it cannot.

Moving a process between groups keeps what it has spent where it spent it (the kernel
charges CPU to the group the process is in when it runs), which is how a bot's start and
its play are told apart (``sandbox.confine``: a sandbox's processes join a "start" group when
bubblewrap lets them go and move to a "play" group once the bot has signed up).
"""

from __future__ import annotations

import functools
import os
import time

from gameroom.core.errors import GameroomError

__all__ = ["CpuGroup", "CpuAccountingUnavailable", "cgroup_mounts", "hierarchy", "make_group", "move", "descendants"]


class CpuAccountingUnavailable(GameroomError, RuntimeError):
    """No cgroup with a CPU counter can be made here (the message says why)."""


def cgroup_mounts() -> list[tuple[str, str, list[str]]]:
    """Every cgroup mount of this process's view: (mount point, ``cgroup`` or ``cgroup2``,
    its options — the controllers of a v1 hierarchy); empty when /proc cannot be read."""
    try:
        with open("/proc/self/mountinfo") as mounts:
            lines = mounts.read().splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        fields = line.split(" - ")
        if len(fields) != 2:
            continue
        mount_point, (kind, _source, options) = fields[0].split()[4], fields[1].split()[:3]
        if kind in ("cgroup", "cgroup2"):
            found.append((mount_point, kind, options.split(",")))
    return found


@functools.lru_cache(maxsize=1)
def hierarchy() -> tuple[str, str] | str:
    """(mount point, ``v1`` or ``v2``) of a writable CPU-accounting hierarchy: cgroup v1
    ``cpuacct`` first, else a cgroup v2 mount; or why there is none."""
    if os.geteuid() != 0:
        return "CPU accounting groups need root (cgroups are made by root here)"
    found: list[tuple[str, str]] = []
    for mount_point, kind, options in cgroup_mounts():
        if kind == "cgroup" and "cpuacct" in options:
            found.insert(0, (mount_point, "v1"))
        elif kind == "cgroup2":
            found.append((mount_point, "v2"))
    for mount_point, version in found:
        if os.access(mount_point, os.W_OK):
            return mount_point, version
    if found:
        return f"no cgroup mount is writable ({', '.join(point for point, _ in found)})"
    return "neither a cgroup v1 cpuacct nor a cgroup v2 hierarchy is mounted"


class CpuGroup:
    """One cgroup made by :func:`make_group` (removed by :meth:`remove`, with its children)."""

    def __init__(self, path: str, version: str) -> None:
        self.path, self.version = path, version

    def child(self, name: str) -> "CpuGroup":
        path = os.path.join(self.path, name)
        os.mkdir(path)
        return CpuGroup(path, self.version)

    def join(self, pid: int) -> None:
        """Move process ``pid`` (all its threads) here; what it forks from now on is here too."""
        with open(os.path.join(self.path, "cgroup.procs"), "w") as procs:
            procs.write(str(pid))

    def seconds(self) -> float:
        """CPU seconds (user + system) spent in this group and its children so far."""
        if self.version == "v1":
            with open(os.path.join(self.path, "cpuacct.usage")) as usage:
                return int(usage.read()) / 1e9
        with open(os.path.join(self.path, "cpu.stat")) as stat:
            for line in stat:
                key, _, value = line.partition(" ")
                if key == "usage_usec":
                    return int(value) / 1e6
        raise CpuAccountingUnavailable(f"{self.path}/cpu.stat has no usage_usec")

    def members(self) -> list[int]:
        with open(os.path.join(self.path, "cgroup.procs")) as procs:
            return [int(pid) for pid in procs.read().split()]

    def remove(self) -> None:
        """Move any process left back to the hierarchy's root, then remove the groups,
        children first."""
        root = hierarchy()
        for directory, _subdirs, _files in sorted(os.walk(self.path), key=lambda entry: -entry[0].count("/")):
            if not isinstance(root, str):
                try:
                    with open(os.path.join(directory, "cgroup.procs")) as procs:
                        for pid in procs.read().split():
                            try:
                                CpuGroup(root[0], root[1]).join(int(pid))
                            except OSError:
                                continue   # it ended meanwhile
                except OSError:
                    pass
            for _ in range(50):   # a process still ending in it keeps it busy a moment
                try:
                    os.rmdir(directory)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)


def make_group(name: str) -> CpuGroup:
    """A new, empty CPU-accounting group ``name`` at the hierarchy's root (an old one of
    that name is removed first). Raises CpuAccountingUnavailable saying why it cannot."""
    found = hierarchy()
    if isinstance(found, str):
        raise CpuAccountingUnavailable(found)
    mount_point, version = found
    path = os.path.join(mount_point, name)
    if os.path.isdir(path):
        CpuGroup(path, version).remove()
    try:
        os.mkdir(path)
    except OSError as exc:
        raise CpuAccountingUnavailable(f"cannot make the cgroup {path}: {exc.strerror}") from None
    group = CpuGroup(path, version)
    try:
        group.seconds()
    except (OSError, ValueError, CpuAccountingUnavailable) as exc:
        os.rmdir(path)
        raise CpuAccountingUnavailable(f"the cgroup {path} has no CPU counter: {exc}") from None
    return group


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it now (from ``/proc``'s children lists)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as children:
                    todo.extend(int(child) for child in children.read().split())
        except (OSError, ValueError):
            continue
    return found


def move(pids: list[int], group: CpuGroup) -> None:
    """Move every process of ``pids`` that still runs to ``group``."""
    for pid in pids:
        try:
            group.join(pid)
        except OSError:
            continue   # it has ended
