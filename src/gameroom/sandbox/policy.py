"""What a sandbox for code we do not trust is made of: its limits, its policy, its exits.

Untrusted bots run in processes of their own: a program bot (``league.programs``) and, in
a league, a Python bot's player (``sandbox.isolation``). Both are started by
``sandbox.confine.Confined`` under a :class:`SandboxPolicy`:

* ``bwrap`` — Debian's bubblewrap (``sandbox.bwrap``): a PID namespace of its own (nothing it
  forks outlives it, however it double-forks or calls ``setsid``), no network but its game
  connection, a read-only view of the system with a private size-bounded ``/tmp``, and an
  unprivileged user of its own when gameroom runs as root;
* ``rlimits`` — the fallback where bubblewrap is missing: its own session and process
  group, a user namespace of its own where the system allows one (a bot started by root
  then keeps no capability, so it cannot lift its limits), a pids cgroup of its own as
  root (the kernel never applies the process limit to user id 0), a per-program
  temporary directory removed afterwards, and at the end a group kill plus a sweep of
  its descendants.

In both the :class:`ResourceLimits` are set (``setrlimit``) before any of the bot's code
runs: CPU seconds, address space, processes, the size of any file it writes, no core
dumps; and it runs at a lower scheduling priority (``nice``). ``auto`` (the default)
means bubblewrap when it works here, else the fallback, said once on standard error;
``GAMEROOM_SANDBOX`` (``auto``, ``bwrap`` or ``rlimits``) overrides the bots file.

``RLIMIT_NPROC`` counts the processes of one user in one user namespace; where a bot has
neither its own user nor its own namespace, its allowance is added to what the user
already runs (:func:`user_processes`).
"""

from __future__ import annotations

import logging
import os
import resource
import signal
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from gameroom.core.errors import GameroomError

__all__ = ["ResourceLimits", "SandboxPolicy", "SandboxUnavailable", "MODES", "user_processes", "apply_limits",
           "limiter", "kill_group", "describe_exit", "resolve_policy"]

logger = logging.getLogger(__name__)

MODES = ("auto", "bwrap", "rlimits")
ENVIRONMENT = "GAMEROOM_SANDBOX"


@dataclass(frozen=True)
class ResourceLimits:
    """Resource limits of one untrusted bot (its whole sandbox shares the process count)."""

    cpu_seconds: int = 120
    memory_mb: int = 1024
    processes: int = 32     # at once, itself included
    file_mb: int = 64       # the largest file it may write (RLIMIT_FSIZE): SIGXFSZ beyond

    @classmethod
    def of(cls, limits: dict[str, Any]) -> "ResourceLimits":
        return cls(**{key: int(value) for key, value in limits.items()})

    def rlimits(self, processes: int) -> dict[str, int]:
        """The launcher's form (``sandbox.launcher``): resource name -> limit."""
        return {"cpu": self.cpu_seconds, "as": self.memory_mb * 1024 * 1024, "nproc": processes,
                "fsize": self.file_mb * 1024 * 1024, "core": 0}


class SandboxUnavailable(GameroomError, RuntimeError):
    """The policy asks for bubblewrap and it cannot be used here (the message says why)."""


@dataclass(frozen=True)
class SandboxPolicy:
    """How untrusted programs are confined (the bots file's ``[sandbox]`` table).

    ``mode``: ``auto``, ``bwrap`` or ``rlimits`` (see the module); ``network``: programs
    share the host's network instead of having none but their game connection;
    ``read``: more host paths the program may read (besides the system directories, the
    paths named in its command and its interpreter's installation); ``tmp_mb``: the size
    of its private ``/tmp``; ``nice``: how much lower its scheduling priority is than the
    league's (0-19), so a bot that spins until its time-out takes little from the
    games around it."""

    mode: str = "auto"
    network: bool = False
    read: tuple[str, ...] = field(default=())
    tmp_mb: int = 64
    nice: int = 10

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"sandbox mode must be one of {', '.join(MODES)}, got {self.mode!r}")
        if not isinstance(self.tmp_mb, int) or self.tmp_mb < 1:
            raise ValueError(f"sandbox tmp_mb must be a positive integer, got {self.tmp_mb!r}")
        if not isinstance(self.nice, int) or not 0 <= self.nice <= 19:
            raise ValueError(f"sandbox nice must be an integer in 0..19, got {self.nice!r}")


_resolved: dict[tuple[str, SandboxPolicy], SandboxPolicy] = {}


def resolve_policy(policy: SandboxPolicy) -> SandboxPolicy:
    """The policy with its mode decided (``bwrap`` or ``rlimits``), once per process:
    ``GAMEROOM_SANDBOX`` first, then the policy's mode; ``auto`` probes bubblewrap and
    warns once (the module's logger) when it falls back. Raises SandboxUnavailable when
    ``bwrap`` is asked for and does not work."""
    wanted = os.environ.get(ENVIRONMENT, "").strip() or policy.mode
    if wanted not in MODES:
        raise SandboxUnavailable(f"{ENVIRONMENT} must be one of {', '.join(MODES)}, got {wanted!r}")
    key = (wanted, policy)
    if key in _resolved:
        return _resolved[key]
    if wanted == "rlimits":
        decided = replace(policy, mode="rlimits")
    else:
        from gameroom.sandbox.bwrap import probe

        problem = probe()
        if problem is None:
            decided = replace(policy, mode="bwrap")
        elif wanted == "bwrap":
            raise SandboxUnavailable(f"the sandbox needs bubblewrap: {problem}")
        else:
            logger.warning(f"{problem}; program bots run without a PID namespace, network isolation or "
                           "a private /tmp: only resource limits, a process-group kill and a sweep of their "
                           "processes (install Debian's 'bubblewrap' for the full sandbox)")
            decided = replace(policy, mode="rlimits")
    _resolved[key] = decided
    return decided


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
    second later), address space, ``processes`` processes of this user, file size, no
    core dumps."""
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1))
    memory = limits.memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))
    size = limits.file_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
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


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def describe_exit(code: int | None, limits: ResourceLimits | None, wrapped: bool = False) -> str:
    """Why a bot's process ended, from its exit code. ``wrapped``: the code is
    bubblewrap's, which reports a command killed by signal N as status 128 + N."""
    if code is None:
        return "still running"
    if code < 0 or (wrapped and 128 < code < 128 + 65):
        number = -code if code < 0 else code - 128
        limit = ""
        if limits is not None and number == signal.SIGXCPU:
            limit = f" (its CPU limit of {limits.cpu_seconds} s)"
        elif limits is not None and number == signal.SIGXFSZ:
            limit = f" (its file size limit of {limits.file_mb} MiB)"
        return f"killed by {_signal_name(number)}{limit}"
    return f"exited with status {code}"
