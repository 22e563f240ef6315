"""Resource limits and process groups for code we do not trust.

Untrusted bots run in processes of their own: a Python bot in an ``IsolatedCaller``'s
child (``core.isolation``), a program bot as a subprocess (``league.programs``). Both get
the same treatment from here: the process leads a process group of its own, its limits
are set with ``setrlimit`` before any of the bot's code runs (CPU seconds, address space,
processes), and when it must stop, the whole group is killed with SIGKILL, so whatever
it forked goes with it.

``RLIMIT_NPROC`` counts every process (and thread) of the user, not of the group, so a
bot's allowance is added to what the user already runs (:func:`user_processes`).
"""

from __future__ import annotations

import os
import resource
import signal
from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["ResourceLimits", "user_processes", "apply_limits", "limiter", "kill_group", "describe_exit"]


@dataclass(frozen=True)
class ResourceLimits:
    """Resource limits of one untrusted bot (its whole process group shares the process count)."""

    cpu_seconds: int = 120
    memory_mb: int = 1024
    processes: int = 32     # beyond what its user already runs (the limit is per user)

    @classmethod
    def of(cls, limits: dict[str, Any]) -> "ResourceLimits":
        return cls(**{key: int(value) for key, value in limits.items()})


def user_processes() -> int:
    """How many processes (threads count too) the current user runs: RLIMIT_NPROC is per
    user, so a bot's allowance is added on top of them."""
    uid, count = os.getuid(), 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    with open(f"/proc/{entry}/status", "rb") as status:
                        for line in status:
                            if line.startswith(b"Threads:"):
                                count += int(line.split()[1])
                                break
            except OSError:
                continue
    return count


def apply_limits(limits: ResourceLimits, processes: int) -> None:
    """Limit the calling process (and what it forks): CPU seconds (SIGXCPU, then SIGKILL a
    second later), address space, ``processes`` processes of this user, no core dumps."""
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1))
    memory = limits.memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def limiter(limits: ResourceLimits, processes: int) -> Callable[[], None]:
    """A ``preexec_fn`` for ``subprocess.Popen``: the limits, set between fork and exec."""
    def apply() -> None:
        apply_limits(limits, processes)

    return apply


def kill_group(pid: int) -> None:
    """SIGKILL the process group led by ``pid`` (the leader alone if it has no group yet)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        try:   # it died, or it has not made its group yet: at least the process itself
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    except PermissionError:
        pass


def describe_exit(code: int | None, limits: ResourceLimits | None) -> str:
    """Why a bot's process ended, from its exit code."""
    if code is None:
        return "still running"
    if code < 0:
        number = -code
        if number == signal.SIGXCPU and limits is not None:
            return f"exceeded its CPU limit of {limits.cpu_seconds} s"
        try:
            return f"killed by {signal.Signals(number).name}"
        except ValueError:
            return f"killed by signal {number}"
    return f"exited with status {code}"
