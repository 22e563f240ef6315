"""Bubblewrap command lines: the filesystem, namespaces and user a sandboxed bot gets.

A bot started through :func:`command` runs in new PID, network (unless the policy shares
it), IPC and UTS namespaces, dies with its parent, and sees:

* read-only: the system directories (``/usr``, ``/etc``, ``/opt`` and the ``/bin``,
  ``/lib``... links or directories), every existing path named in its command, its
  interpreter's installation (``X`` for an executable ``X/bin/prog``, as named and as
  resolved through links), the policy's ``read`` paths, and, for a Python bot, the paths
  Python imports from;
* a fresh ``/proc`` of its own PID namespace and a minimal read-only ``/dev``;
* writable: only a private ``/tmp`` (tmpfs, ``tmp_mb`` MiB);
* everything else of the host: nothing. The root and ``/dev`` are read-only, so the
  tmpfs is the only place it can write, and it goes with the sandbox.

Each path is bound at its own place, with the directories above it made (mode 0755) in
the sandbox, so a bot can be reached even below a directory only root may enter. Its
working directory is the league's, made in the sandbox (empty but for what is bound).

As root, bubblewrap runs privileged without a user namespace and keeps only
CAP_SETUID/CAP_SETGID for the launcher (``core.launcher``), which drops to the bot's own
unprivileged user and group before anything else runs; otherwise bubblewrap makes a user
namespace and the bot keeps the caller's user.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterable, Sequence

__all__ = ["executable", "probe", "command", "command_paths", "python_paths", "launcher_path", "SYSTEM"]

SYSTEM = ("/usr", "/etc", "/opt")
MERGED = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")   # links into /usr on merged-/usr systems


def executable() -> str | None:
    return shutil.which("bwrap")


def launcher_path() -> str:
    return str(Path(__file__).with_name("launcher.py"))


def _inside(path: str, roots: Iterable[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def _installation(path: str) -> list[str]:
    """What an executable needs besides itself: ``X`` for ``X/bin/prog`` (a Python or Perl
    installation, a virtual environment), else the file alone; as named and as resolved."""
    found = []
    for candidate in dict.fromkeys([os.path.abspath(path), os.path.realpath(path)]):
        parent = os.path.dirname(candidate)
        found.append(os.path.dirname(parent) if os.path.basename(parent) == "bin" else candidate)
    return found


def command_paths(argv: Sequence[str], cwd: str, extra: Iterable[str] = ()) -> list[str]:
    """The host paths a program's sandbox shows read-only: its executable's installation,
    every other argument naming an existing path, and ``extra`` (relative to ``cwd``)."""
    paths = _installation(argv[0])
    for part in argv[1:]:
        if part and ("/" in part or os.path.exists(os.path.join(cwd, part))):
            candidate = os.path.normpath(os.path.join(cwd, part))
            if os.path.exists(candidate):
                paths.append(candidate)
    paths.extend(os.path.normpath(os.path.join(cwd, p)) for p in extra)
    return paths


@functools.lru_cache(maxsize=1)
def python_paths() -> tuple[str, ...]:
    """What this interpreter needs to run gameroom inside a sandbox: its installation and
    base installation, every ``sys.path`` entry, the gameroom package and the launcher."""
    import gameroom

    paths = [*_installation(sys.executable), sys.prefix, sys.base_prefix,
             *(os.path.abspath(p) for p in sys.path if p), str(Path(gameroom.__file__).parent), launcher_path()]
    return tuple(p for p in dict.fromkeys(paths) if os.path.exists(p))


def _binds(paths: Iterable[str]) -> list[str]:
    """``--ro-bind`` every path not already visible, parents before children, with the
    directories above each made world-traversable in the sandbox."""
    out: list[str] = []
    bound: list[str] = []
    made: set[str] = set()
    for path in sorted({os.path.normpath(p) for p in paths if os.path.exists(p)}, key=lambda p: (p.count("/"), p)):
        if path == "/" or _inside(path, (*SYSTEM, *MERGED, *bound, "/proc", "/dev")):
            continue
        parents = []
        parent = os.path.dirname(path)
        while parent not in ("/", "/tmp") and parent not in made:
            parents.append(parent)
            parent = os.path.dirname(parent)
        for directory in reversed(parents):
            out += ["--perms", "0755", "--dir", directory]
            made.add(directory)
        out += ["--ro-bind", path, path]
        bound.append(path)
    return out


def command(read: Iterable[str], workdir: str, tmp_bytes: int, network: bool, root: bool) -> list[str]:
    """bubblewrap's arguments up to ``--`` (the launcher and the bot follow)."""
    bwrap = executable()
    if bwrap is None:
        raise FileNotFoundError("bwrap is not installed")
    argv = [bwrap, "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--new-session"]
    if not network:
        argv.append("--unshare-net")
    if root:   # privileged: no user namespace; the launcher sets the bot's own user
        argv += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        argv.append("--unshare-user")
    for directory in SYSTEM:
        argv += ["--ro-bind-try", directory, directory]
    for link in MERGED:
        if os.path.islink(link):
            argv += ["--symlink", os.readlink(link), link]
        elif os.path.isdir(link):
            argv += ["--ro-bind", link, link]
    argv += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--size", str(tmp_bytes), "--tmpfs", "/tmp"]
    argv += _binds(read)
    if workdir not in ("/", "/tmp") and not _inside(workdir, (*SYSTEM, *MERGED)):
        argv += ["--perms", "0755", "--dir", workdir]
    argv += ["--chdir", workdir, "--remount-ro", "/dev", "--remount-ro", "/", "--"]
    return argv


@functools.lru_cache(maxsize=1)
def probe() -> str | None:
    """None when a sandbox can be made here; else what is wrong (bwrap missing, or the
    system refuses the namespaces it needs)."""
    if executable() is None:
        return "bubblewrap (bwrap) is not installed"
    root = os.geteuid() == 0
    argv = command(python_paths(), "/tmp", 1024 * 1024, False, root)
    python = os.path.realpath(sys.executable)
    setpriv = shutil.which("setpriv") if root else None
    if setpriv is not None:   # as core.confine starts a bot: a user of its own, then the program
        first = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", "--"]
    else:
        first = [python, "-I", "-S", launcher_path(), '{"uid": 65534}' if root else "{}", "--"]
    try:
        done = subprocess.run([*argv, *first, python, "-I", "-S", "-c", "pass"],
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap cannot be run: {exc}"
    if done.returncode != 0:
        detail = " ".join(done.stderr.decode("utf-8", "replace").split())[:300]
        return f"bubblewrap cannot make a sandbox here (status {done.returncode}: {detail})"
    return None
