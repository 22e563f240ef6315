"""A program bot's own files, carried to the machine that plays its game.

On a cluster no machine but the driver's (the league's or the arena's) has the bots'
files: an arena's builds are in its data folder, a league's bot programs wherever its
bots file names them. So the driver packs each of a program bot's own paths into a tar
archive, names it by the SHA-256 of its bytes (:func:`pack`: the same files give the same
bytes and digest anywhere), and the archive travels with the game (``league.cluster``:
once per node, through Ray's object store). A node unpacks it once into its cache
(:class:`NodeCache`), after checking the bytes against their digest, and every later game
of that bot on that node finds it there. The bot's argv and ``read`` paths are then
mapped to their places in the cache (``TableTask.places``, applied by ``league.table``
where the program is started; the game's record keeps the paths as the bots name them).

What travels (:func:`own_paths`): the bot's ``read`` paths, and every path its argv names
(its program or script) that is not part of the system or of Python's installation,
which every node has itself (``/usr``, ``/etc``, ``/opt``, ``/bin``, ``/lib``..., and
``sys.prefix``): ``python3 bot.py`` carries ``bot.py``, an arena version's
``{main}`` its build folder (its ``read``). ``python`` and ``policy`` bots are modules
that each node imports from its own installation.

The cache (``GAMEROOM_BUILD_CACHE``, else ``gameroom-builds`` in the node's temporary
directory) is the node user's own: a folder another user owns or may write to is refused
rather than trusted. Its files are readable by every user (a sandboxed bot runs as a
user of its own) and writable by none.
"""

from __future__ import annotations

import functools
import hashlib
import io
import os
import shutil
import stat
import sys
import tarfile
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from gameroom.core.errors import GameroomError

__all__ = ["Build", "BuildError", "NodeCache", "pack", "own_paths", "place", "MAX_BYTES", "CACHE_VARIABLE"]

MAX_BYTES = 64 * 1024 * 1024
"""The most one bot path may pack to: what travels with a game is a bot, not a data set."""
CACHE_VARIABLE = "GAMEROOM_BUILD_CACHE"
READY = ".ready"


class BuildError(GameroomError):
    """A bot's files cannot be packed, or a packed build cannot be placed (the message says
    which and why)."""


@dataclass(frozen=True)
class Build:
    """A packed bot path: its digest (SHA-256 of ``data``, hex), whether it is one file
    (placed as ``<cache>/<digest>/<name>``) or a folder (``<cache>/<digest>``)."""

    digest: str
    data: bytes
    name: str | None = None
    """The file's name when the path is one file; None for a folder."""


def _installed() -> tuple[str, ...]:
    from gameroom.sandbox.bwrap import MERGED, SYSTEM

    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)}
    return (*SYSTEM, *MERGED, *sorted(prefixes))


def _inside(path: str, roots: Iterable[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def own_paths(spec: Mapping[str, Any], cwd: str | None = None) -> list[str]:
    """The paths of a program bot's spec (``command``, ``read``) that are its own files,
    as the spec writes them (each an existing file or folder of this machine, none inside
    another): what must travel with its game. Empty for other kinds of bot."""
    argv = spec.get("command")
    if not isinstance(argv, list):
        return []
    cwd = cwd or os.getcwd()
    installed = _installed()
    found: dict[str, str] = {}   # as written -> absolute
    words = [*spec.get("read", []), *argv]
    program = len(words) - len(argv)   # argv[0]: a bare name is looked up on the PATH
    for at, word in enumerate(words):
        if not isinstance(word, str) or not word or "{" in word or word in found:
            continue
        if "/" not in word and (at == program or not os.path.exists(os.path.join(cwd, word))):
            continue   # a program on the PATH, an option, a number
        absolute = os.path.normpath(os.path.join(cwd, word))
        if not os.path.exists(absolute) or _inside(os.path.realpath(absolute), installed):
            continue
        found[word] = absolute
    ordered = sorted(found.items(), key=lambda item: len(item[1]))
    kept: dict[str, str] = {}
    for word, absolute in ordered:
        if not any(_inside(absolute, [other]) for other in kept.values() if os.path.isdir(other)):
            kept[word] = absolute
    return list(kept)


def _normalized(info: tarfile.TarInfo) -> tarfile.TarInfo:
    """The same header wherever and whenever packed: no owner, no time, modes by kind
    (readable by every user; executable where the file was executable by its owner)."""
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.mtime = 0
    if info.isdir():
        info.mode = 0o755
    elif info.isfile():
        info.mode = 0o755 if info.mode & stat.S_IXUSR else 0o644
    return info


def pack(path: str | Path, limit: int = MAX_BYTES) -> Build:
    """``path`` (a file or a folder) as a tar archive with sorted members and normalized
    headers, and its digest. Links are kept as links (the node's extraction refuses one
    that leads out); sockets, devices and pipes are left out. BuildError beyond ``limit``
    bytes."""
    root = Path(path)
    buffer = io.BytesIO()
    total = 0
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        if root.is_file():
            members = [(root, root.name)]
        elif root.is_dir():
            members = []
            for folder, dirs, files in os.walk(root):
                dirs.sort()
                for name in [*dirs, *sorted(files)]:
                    full = Path(folder) / name
                    members.append((full, full.relative_to(root).as_posix()))
            members.sort(key=lambda member: member[1])
        else:
            raise BuildError(f"{path}: not a file or a folder")
        for full, name in members:
            mode = full.lstat().st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
                continue
            info = _normalized(archive.gettarinfo(str(full), arcname=name))
            total += info.size
            if total > limit:
                raise BuildError(f"{path}: more than {limit // (1024 * 1024)} MiB to carry with a game")
            if info.isfile():
                with open(full, "rb") as source:
                    archive.addfile(info, source)
            else:
                archive.addfile(info)
    data = buffer.getvalue()
    return Build(hashlib.sha256(data).hexdigest(), data, root.name if root.is_file() else None)


class NodeCache:
    """A node's unpacked builds, one folder per digest (see the module); thread- and
    process-safe: a build is unpacked into a scratch folder and renamed into place."""

    def __init__(self, root: str | Path | None = None) -> None:
        self.root = Path(root or os.environ.get(CACHE_VARIABLE) or Path(tempfile.gettempdir()) / "gameroom-builds")
        self._checked = False
        self._lock = threading.Lock()

    def _check(self) -> None:
        with self._lock:
            if self._checked:
                return
            self.root.mkdir(mode=0o755, parents=True, exist_ok=True)
            found = self.root.stat()
            if found.st_uid != os.geteuid() or found.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
                raise BuildError(f"the build cache {self.root} belongs to another user or others may write to it: "
                                 f"give {CACHE_VARIABLE} a folder of this node's own")
            os.chmod(self.root, 0o755)
            self._checked = True

    def folder(self, digest: str, fetch: Callable[[], bytes]) -> Path:
        """The folder holding the build ``digest``, unpacked from ``fetch()`` the first
        time (on this node); BuildError when the bytes are not the digest's."""
        if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
            raise BuildError(f"{digest!r} is not a SHA-256 digest")
        self._check()
        placed = self.root / digest
        if (placed / READY).is_file():
            return placed
        data = fetch()
        if hashlib.sha256(data).hexdigest() != digest:
            raise BuildError(f"the build received as {digest[:12]} has another digest: not unpacked")
        scratch = Path(tempfile.mkdtemp(prefix=".unpacking-", dir=self.root))
        try:
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as archive:
                archive.extractall(scratch, filter="data")
            for folder, dirs, files in os.walk(scratch):
                for name in dirs:
                    os.chmod(os.path.join(folder, name), 0o755)
                for name in files:
                    full = os.path.join(folder, name)
                    if not os.path.islink(full):
                        os.chmod(full, 0o755 if os.stat(full).st_mode & stat.S_IXUSR else 0o644)
            os.chmod(scratch, 0o755)
            (scratch / READY).write_text(digest)
            try:
                scratch.rename(placed)
            except OSError:   # placed by another worker of this node meanwhile
                if not (placed / READY).is_file():
                    raise
        except (tarfile.TarError, OSError) as exc:
            raise BuildError(f"the build {digest[:12]} cannot be unpacked in {self.root}: {exc}") from None
        finally:
            if scratch.exists():
                shutil.rmtree(scratch, ignore_errors=True)
        return placed


def place(carried: Sequence[tuple[str, str, str | None]], fetch: Callable[[str], bytes],
          cache: NodeCache) -> tuple[tuple[str, str], ...]:
    """Each carried path (as written, digest, file name or None) and where it is on this
    node, unpacked from ``fetch(digest)`` when the cache lacks it: ``TableTask.places``."""
    places = []
    for written, digest, name in carried:
        folder = cache.folder(digest, functools.partial(fetch, digest))
        places.append((written, str(folder / name) if name else str(folder)))
    return tuple(places)
