"""The live processes of this machine, read from ``/proc``: what the hostile benchmarks and
the sandbox, isolation, league and server tests look at to see that nothing a bot or a
league started outlives it, and how much memory a server holds; and the command line of a
benchmark's own Python children (:func:`python_module`)."""

from __future__ import annotations

import os
import sys

# A terminal's Ctrl-C goes to the whole foreground process group: the benchmark says its one
# line (``python -m gameroom.bench: interrupted``), and a child must end at once without a
# word. SIGINT's default action is set before anything is imported, so a child interrupted
# while it loads ends as silently as one interrupted while it works.
_QUIET_ON_CTRL_C = ("import runpy, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                    "sys.argv = sys.argv[1:]; runpy.run_module(sys.argv[0], run_name='__main__', alter_sys=True)")


def python_module(module: str, *args: str) -> list[str]:
    """The command line of ``python -m MODULE ARGS`` for a child of a benchmark: it runs
    the same, and Ctrl-C ends it silently (the benchmark reports the interrupt)."""
    return [sys.executable, "-c", _QUIET_ON_CTRL_C, module, *args]


def live(read: str = "cmdline") -> dict[int, bytes]:
    """Every live process (not a zombie waiting for its parent) by pid, with its
    ``/proc/PID/<read>`` file (``cmdline``, ``environ``, ``stat``); a process that ends
    while it is read is left out."""
    found: dict[int, bytes] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/{read}", "rb") as f:
                    content = f.read()
                with open(f"/proc/{entry}/stat", "rb") as f:
                    state = f.read().rsplit(b")", 1)[1].split()[0]
            except OSError:
                continue
            if state != b"Z":
                found[int(entry)] = content
    return found


def marked(marker: str) -> list[str]:
    """The live processes whose command line holds ``marker``, as ``PID: command line``."""
    lines = {pid: cmdline.replace(b"\0", b" ").decode("utf-8", "replace") for pid, cmdline in live().items()}
    return [f"{pid}: {line}" for pid, line in lines.items() if marker in line]


def started_by(pid: int, variable: str) -> list[int]:
    """The live processes whose environment has ``variable=pid`` (what a parent marks
    the processes it starts with)."""
    entry = f"{variable}={pid}".encode()
    return [child for child, environ in live("environ").items() if entry in environ.split(b"\0")]


def in_group(pgid: int) -> list[int]:
    """The live processes of the process group ``pgid``."""
    return [pid for pid, stat in live("stat").items() if int(stat.rsplit(b")", 1)[1].split()[2]) == pgid]


def status_kb(pid: int, field: str) -> int | None:
    """A figure in kB of the process's ``/proc/PID/status`` (``VmRSS``: its resident memory
    now; ``VmHWM``: its peak so far), or None when the process or the field is gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(f"{field}:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None
