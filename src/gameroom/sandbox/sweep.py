"""Finding and ending what an untrusted bot started, where no PID namespace holds it (the
sandbox's fallback without bubblewrap, ``sandbox.confine``).

* :func:`related`: every process below the bot (by the kernel's lists of children) and
  every process carrying the bot's tag in its environment (a double fork with ``setsid``
  leaves the process group and its parent but keeps its environment); only processes
  whose id was handed out since the bot's (ids go up, wrapping at the maximum) have their
  environment read, since reading another process's ``/proc`` files takes its memory
  map's lock and costs up to a millisecond each on a busy machine;
* :func:`pids_cgroup`: as root, a pids cgroup of its own (cgroup v1 ``pids`` or v2) whose
  ``pids.max`` holds the bot to its process limit (the kernel never applies
  ``RLIMIT_NPROC`` to user id 0, not even in a user namespace of its own) and whose
  ``cgroup.procs`` lists every process it made;
* :func:`kill_all`: SIGKILL to each of a list.
"""

from __future__ import annotations

import functools
import os
import signal
from typing import Sequence

from gameroom.sandbox.cpuacct import cgroup_mounts

__all__ = ["TAG", "related", "pids_cgroup", "cgroup_members", "remove_cgroup",
           "fallback_bounds_processes", "kill_all"]

TAG = "GAMEROOM_SANDBOX_TAG"


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as children:
                found += [int(child) for child in children.read().split()]
    except (OSError, ValueError):
        pass
    return found


def _since(first: int) -> list[int]:
    """Live process ids handed out from ``first`` on, up to the last one handed out."""
    try:
        with open("/proc/sys/kernel/ns_last_pid") as last_file:
            last = int(last_file.read())
    except (OSError, ValueError):
        last = None
    ids = [int(entry) for entry in os.listdir("/proc") if entry.isdigit()]
    if last is None:
        return ids
    if first <= last:
        return [pid for pid in ids if first <= pid <= last]
    return [pid for pid in ids if pid >= first or pid <= last]   # the ids wrapped since


def related(pid: int, tag: str) -> set[int]:
    """The live processes below ``pid`` and those made since ``pid`` whose environment
    carries ``GAMEROOM_SANDBOX_TAG=tag``."""
    needle = f"{TAG}={tag}".encode()
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in _children(todo.pop()):
            if child not in found:
                found.add(child)
                todo.append(child)
    for candidate in _since(pid):
        if candidate in found or candidate == pid:
            continue
        try:
            with open(f"/proc/{candidate}/environ", "rb") as environ:
                if needle in environ.read().split(b"\0"):
                    found.add(candidate)
        except OSError:
            continue
    return found


@functools.lru_cache(maxsize=1)
def _pids_hierarchy() -> str | None:
    """Where a pids cgroup can be made: the cgroup v1 ``pids`` mount, else a cgroup v2
    mount whose root offers the pids controller to its children; None elsewhere."""
    found: list[str] = []
    for mount_point, kind, options in cgroup_mounts():
        if kind == "cgroup" and "pids" in options:
            found.insert(0, mount_point)
        elif kind == "cgroup2" and os.path.exists(os.path.join(mount_point, "cgroup.subtree_control")):
            try:
                with open(os.path.join(mount_point, "cgroup.subtree_control")) as control:
                    if "pids" in control.read().split():
                        found.append(mount_point)
            except OSError:
                continue
    return found[0] if found else None


def pids_cgroup(name: str, limit: int) -> str | None:
    """A new pids cgroup holding at most ``limit`` processes (as root, where one can be
    made); its path, or None."""
    root = _pids_hierarchy() if os.geteuid() == 0 else None
    if root is None:
        return None
    path = os.path.join(root, name)
    try:
        os.mkdir(path)
        with open(os.path.join(path, "pids.max"), "w") as limit_file:
            limit_file.write(str(limit))
        return path
    except OSError:
        remove_cgroup(path)
        return None


def cgroup_members(path: str) -> list[int]:
    try:
        with open(os.path.join(path, "cgroup.procs")) as procs:
            return [int(pid) for pid in procs.read().split()]
    except (OSError, ValueError):
        return []


def remove_cgroup(path: str) -> None:
    try:
        os.rmdir(path)
    except OSError:
        pass


def fallback_bounds_processes() -> bool:
    """Whether the fallback holds a bot to its process limit here: always for a user
    other than root; for root, only with a pids cgroup."""
    return os.geteuid() != 0 or _pids_hierarchy() is not None


def kill_all(pids: Sequence[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
