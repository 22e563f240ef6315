"""Bubblewrap command lines: the filesystem, namespaces and user a sandboxed bot gets.

A bot started through :func:`command` runs in new PID, network (unless the policy shares
it), IPC and UTS namespaces, dies with its parent, and sees:

* read-only: the system directories (``/usr``, ``/etc``, ``/opt`` and the ``/bin``,
  ``/lib``... links or directories), every existing path named in its command, its
  interpreter's installation (``X`` for an executable ``X/bin/prog``, as named and as
  resolved through links), the policy's ``read`` paths, and, for a Python bot, the paths
  Python imports from (:func:`python_paths`): ``sys.path``, and where this interpreter
  finds the packages that no ``sys.path`` entry holds — every game registered under
  ``gameroom.games`` and every distribution installed in editable mode, whose packages an
  import hook (an ``__editable__`` finder) maps to their source tree (:func:`import_paths`);
* a fresh ``/proc`` of its own PID namespace and a minimal read-only ``/dev``;
* writable: only a private ``/tmp`` (tmpfs, ``tmp_mb`` MiB);
* everything else of the host: nothing. The root and ``/dev`` are read-only, so the
  tmpfs is the only place it can write, and it goes with the sandbox.

Each path is bound at its own place, with the directories above it made (mode 0755) in
the sandbox, so a bot can be reached even below a directory only root may enter. As root
(the bot runs as a user of its own), a directory to bind that only its owner may search
is made empty in its place instead: nothing in it would be readable to the bot's user,
and what is bound below it (a virtual environment under a pytest or home folder on
``sys.path``) is reached through it. Its
working directory is the league's, made in the sandbox (empty but for what is bound).

As root, bubblewrap runs privileged without a user namespace and keeps only
CAP_SETUID/CAP_SETGID for the launcher (``core.launcher``), which drops to the bot's own
unprivileged user and group before anything else runs; otherwise bubblewrap makes a user
namespace and the bot keeps the caller's user.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import shutil
import stat
import subprocess
import sys
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Iterable, Sequence

__all__ = ["executable", "probe", "command", "command_paths", "python_paths", "import_paths", "launcher_path",
           "unreachable", "SYSTEM"]

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


def unreachable(argv: Sequence[str], cwd: str, extra: Iterable[str] = ()) -> str | None:
    """What a program started as a user of its own (gameroom as root) cannot reach of
    what its sandbox shows it, or None: binding a path at its place makes the directories
    *above* it traversable, but the path itself and what lies below it keep their host
    modes (a bind cannot change them). So the program's executable — every link on the way
    and the file it ends at — and each file its arguments name must be reachable by every
    user from the bound path down: directories searchable (``o+x``), files readable
    (``o+r``; the executable ``o+x``). The first one that is not, with its mode."""
    program = argv[0] if "/" in argv[0] else shutil.which(argv[0]) or argv[0]
    roots = [*SYSTEM, *MERGED, *command_paths([os.path.abspath(program), *argv[1:]], cwd, extra)]
    wanted: list[tuple[str, bool]] = []
    hop = os.path.abspath(program)
    for _ in range(40):   # the links from the name to the file, each in its own place
        wanted.append((hop, True))
        if not os.path.islink(hop):
            break
        hop = os.path.normpath(os.path.join(os.path.dirname(hop), os.readlink(hop)))
    for part in argv[1:]:
        candidate = os.path.normpath(os.path.join(cwd, part))
        if part and os.path.isfile(candidate):
            wanted.append((candidate, False))
    for path, run in wanted:
        holders = [root for root in roots if _inside(path, [root])]
        if not holders or not os.path.lexists(path):
            continue
        root = max(holders, key=len)
        directory = root
        steps = [] if path == root else os.path.relpath(os.path.dirname(path), root).split(os.sep)
        for step in ["", *steps]:
            directory = os.path.normpath(os.path.join(directory, step))
            if os.path.isdir(directory) and not os.stat(directory).st_mode & stat.S_IXOTH:
                return f"{directory} is not searchable by other users (mode {stat.filemode(os.stat(directory).st_mode)})"
        if os.path.islink(path) or os.path.isdir(path):
            continue
        mode = os.stat(path).st_mode
        if not mode & stat.S_IROTH or run and not mode & stat.S_IXOTH:
            return f"{path} is not {'executable' if run else 'readable'} by other users (mode {stat.filemode(mode)})"
    return None


@functools.lru_cache(maxsize=1)
def python_paths() -> tuple[str, ...]:
    """What this interpreter needs to run gameroom and its games inside a sandbox: its
    installation and base installation, every ``sys.path`` entry, the gameroom package,
    the launcher, and where the registered games' packages and every editable
    distribution's packages are found (:func:`import_paths`: an import hook may map them
    anywhere)."""
    import gameroom

    paths = [*_installation(sys.executable), sys.prefix, sys.base_prefix,
             *(os.path.abspath(p) for p in sys.path if p), str(Path(gameroom.__file__).parent), launcher_path(),
             *import_paths(_game_modules()), *_editable_paths()]
    return tuple(p for p in dict.fromkeys(paths) if os.path.exists(p))


def import_paths(modules: Iterable[str]) -> list[str]:
    """The host paths an import of each module needs, found as this interpreter finds
    them — through ``sys.path`` or any import hook (an editable install's finder) — without
    running any module's code: a package's directories (its search locations, every
    portion of a namespace package), else the module's file. A module is found by its
    top-level name (a submodule lives in its package's directories); one that cannot be
    found adds nothing (its import fails in the sandbox as it would here)."""
    found: list[str] = []
    for name in dict.fromkeys(module.split(".")[0] for module in modules if module):
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is None:
            continue
        locations = [os.path.abspath(p) for p in (spec.submodule_search_locations or [])]
        if locations:
            found += locations
        elif spec.origin and os.path.isabs(spec.origin):
            found.append(spec.origin)
    return [p for p in found if os.path.exists(p)]


def _game_modules() -> list[str]:
    """The modules the ``gameroom.games`` entry points name (from installed metadata)."""
    from importlib import metadata

    return [entry.value.split(":")[0].strip() for entry in metadata.entry_points(group="gameroom.games")]


def _editable_paths() -> list[str]:
    """Where the packages of every distribution installed in editable mode (PEP 610's
    ``direct_url.json`` says so) are found: its top-level modules (``top_level.txt``, else
    the names its installed files give) through :func:`import_paths`; a distribution that
    names none gives its project's directory."""
    from importlib import metadata

    found: list[str] = []
    for dist in metadata.distributions():
        try:
            direct = json.loads(dist.read_text("direct_url.json") or "{}")
        except ValueError:
            continue
        if not isinstance(direct, dict) or not (direct.get("dir_info") or {}).get("editable"):
            continue
        names = (dist.read_text("top_level.txt") or "").split()
        located = import_paths(names)
        url = urllib.parse.urlparse(str(direct.get("url", "")))
        if not located and url.scheme == "file":
            located = [urllib.request.url2pathname(url.path)]
        found += located
    return found


def _binds(paths: Iterable[str], own_user: bool = False) -> list[str]:
    """``--ro-bind`` every path not already visible, parents before children, with the
    directories above each made world-traversable in the sandbox. ``own_user``: the
    sandbox runs as a user of its own, which could not enter a directory that only its
    owner may search (a pytest or home folder holding the league's working directory, a
    ``sys.path`` entry): such a directory is made empty in its place instead, so the paths
    bound below it (a virtual environment, a package) are reached as if it were above them."""
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
        if own_user and os.path.isdir(path) and not os.stat(path).st_mode & stat.S_IXOTH:
            if path not in made:   # nothing in it would be readable to that user: only what is bound below
                out += ["--perms", "0755", "--dir", path]
                made.add(path)
            continue
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
    argv += _binds(read, own_user=root)
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
