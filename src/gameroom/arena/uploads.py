"""A bot's upload: unpacked safely into a version's directory, then built in the sandbox.

An upload is a single source file (its language from the form, else from its suffix) or
an archive — zip, or tar compressed with gzip — whose ``bot.toml`` manifest names the
``language`` and the ``main`` file. Unpacking refuses, with a message naming the member:
absolute paths, ``..``, links, devices and other special files, more files than
``uploads.max_files`` and more bytes than ``uploads.max_unpacked_bytes`` (counted as they
are written, not as the archive declares them: a bomb stops at the bound). Files are
written world-readable (0644; the main file of a ``command`` bot 0755) and nothing else.

The build runs the language's ``build`` argv in the sandbox (``core.confine``: no
network, the bot's resource limits, its directory readable, nothing of the host writable)
within ``uploads.build_seconds``; the build log kept is how it ended and the tail of its
standard error. A language without a build step is built by being unpacked.
"""

from __future__ import annotations

import io
import os
import stat
import tarfile
import time
import tomllib
import zipfile
from pathlib import Path, PurePosixPath
from typing import IO, Iterator

from gameroom.arena.config import Language, UploadLimits
from gameroom.core.errors import GameroomError
from gameroom.core.sandbox import ResourceLimits, SandboxPolicy

__all__ = ["UploadError", "unpack", "read_manifest", "build", "MANIFEST", "fill"]

MANIFEST = "bot.toml"


class UploadError(GameroomError, ValueError):
    """An upload that cannot be used (the message says what and where)."""


def fill(template: tuple[str, ...] | list[str], main: Path, directory: Path) -> list[str]:
    """An argv template with ``{main}`` and ``{dir}`` filled (``{port}`` and the others
    are the league's, filled when the bot is started)."""
    return [part.replace("{main}", str(main)).replace("{dir}", str(directory)) for part in template]


def _is_zip(data: bytes, filename: str) -> bool:
    return data[:4] == b"PK\x03\x04" or filename.endswith(".zip")


def _is_tar(data: bytes, filename: str) -> bool:
    return data[:2] == b"\x1f\x8b" or filename.endswith((".tar.gz", ".tgz"))


def _member_path(name: str) -> PurePosixPath:
    path = PurePosixPath(name)
    if name.startswith("/") or path.is_absolute() or "\\" in name or ":" in name[:2]:
        raise UploadError(f"archive member {name[:100]!r}: an absolute path")
    if any(part == ".." for part in path.parts):
        raise UploadError(f"archive member {name[:100]!r}: a path with '..'")
    if not path.parts or any(not part or part.startswith("\0") for part in path.parts):
        raise UploadError(f"archive member {name[:100]!r}: an empty name")
    return path


class _Budget:
    def __init__(self, limits: UploadLimits) -> None:
        self.limits = limits
        self.files = 0
        self.bytes = 0

    def file(self, name: str) -> None:
        self.files += 1
        if self.files > self.limits.max_files:
            raise UploadError(f"the archive has more than {self.limits.max_files} files (uploads.max_files); "
                              f"stopped at {name[:100]!r}")

    def add(self, count: int, name: str) -> None:
        self.bytes += count
        if self.bytes > self.limits.max_unpacked_bytes:
            raise UploadError(f"the archive unpacks to more than {self.limits.max_unpacked_bytes} bytes "
                              f"(uploads.max_unpacked_bytes); stopped in {name[:100]!r}")


def _write(source: IO[bytes], target: Path, name: str, budget: _Budget) -> None:
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
    with open(target, "xb") as out:
        while chunk := source.read(65536):
            budget.add(len(chunk), name)
            out.write(chunk)
    os.chmod(target, 0o644)


def _zip_members(data: bytes) -> Iterator[tuple[str, str, IO[bytes] | None]]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise UploadError(f"not a readable zip archive: {exc}") from None
    with archive:
        for info in archive.infolist():
            mode = info.external_attr >> 16
            if info.is_dir():
                yield info.filename, "dir", None
            elif stat.S_ISLNK(mode):   # a Unix zip keeps a link's type in its external attributes
                yield info.filename, "link", None
            elif stat.S_IFMT(mode) not in (0, stat.S_IFREG):
                yield info.filename, "special", None
            else:
                with archive.open(info) as member:
                    yield info.filename, "file", member


def _tar_members(data: bytes) -> Iterator[tuple[str, str, IO[bytes] | None]]:
    try:
        archive = tarfile.open(fileobj=io.BytesIO(data), mode="r:*")
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise UploadError(f"not a readable tar archive: {exc}") from None
    with archive:
        try:
            for info in archive:
                if info.isdir():
                    yield info.name, "dir", None
                elif info.issym() or info.islnk():
                    yield info.name, "link", None
                elif not info.isreg():
                    yield info.name, "special", None
                else:
                    yield info.name, "file", archive.extractfile(info)
        except (tarfile.TarError, OSError, EOFError, zipfile.BadZipFile) as exc:
            raise UploadError(f"the tar archive is damaged: {exc}") from None


def unpack(data: bytes, filename: str, into: Path, limits: UploadLimits) -> bool:
    """Unpack an upload into the (new, empty) directory ``into``; whether it was an
    archive. UploadError says what was refused."""
    if len(data) > limits.max_bytes:
        raise UploadError(f"the upload is {len(data)} bytes, more than {limits.max_bytes} (uploads.max_bytes)")
    if not data:
        raise UploadError("the upload is empty")
    into.mkdir(parents=True, mode=0o755)
    budget = _Budget(limits)
    if _is_zip(data, filename) or _is_tar(data, filename):
        members = _zip_members(data) if _is_zip(data, filename) else _tar_members(data)
        for name, kind, source in members:
            path = _member_path(name)
            if kind == "link":
                raise UploadError(f"archive member {name[:100]!r}: a link (links are refused)")
            if kind == "special":
                raise UploadError(f"archive member {name[:100]!r}: a device or other special file")
            target = into.joinpath(*path.parts)
            if kind == "dir":
                target.mkdir(parents=True, exist_ok=True, mode=0o755)
                continue
            budget.file(name)
            if target.exists():
                raise UploadError(f"archive member {name[:100]!r}: given twice")
            assert source is not None
            _write(source, target, name, budget)
        return True
    name = PurePosixPath(filename.replace("\\", "/")).name
    if not name or name.startswith(".") or name == MANIFEST or len(name) > 100:
        raise UploadError(f"the file name {filename[:100]!r} cannot be a bot's main file")
    budget.file(name)
    _write(io.BytesIO(data), into / name, name, budget)
    return False


def read_manifest(directory: Path) -> tuple[str, str]:
    """An archive's ``(language, main)`` from its ``bot.toml``."""
    path = directory / MANIFEST
    if not path.is_file():
        raise UploadError(f"an archive needs a {MANIFEST} at its top with language and main")
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UploadError(f"{MANIFEST} is not TOML: {exc}") from None
    extra = sorted(set(table) - {"language", "main"})
    if extra:
        raise UploadError(f"{MANIFEST}: unknown key {extra[0]!r}; the keys are language and main")
    language, main = table.get("language"), table.get("main")
    if not isinstance(language, str) or not language:
        raise UploadError(f"{MANIFEST}: language must be a string")
    if not isinstance(main, str) or not main:
        raise UploadError(f"{MANIFEST}: main must be the path of the bot's main file in the archive")
    member = _member_path(main)
    if not directory.joinpath(*member.parts).is_file():
        raise UploadError(f"{MANIFEST}: main {main!r} is not a file of the archive")
    return language, main


def language_for(filename: str, languages: tuple[Language, ...]) -> Language | None:
    """The language whose suffix the file name has."""
    return next((lang for lang in languages if any(filename.endswith(s) for s in lang.suffixes)), None)


def build(language: Language, main: Path, directory: Path, limits: ResourceLimits, sandbox: SandboxPolicy,
          seconds: float) -> tuple[bool, str]:
    """Build a version (in the sandbox, ``sandbox`` a resolved policy): whether it built,
    and its log."""
    if language.name == "command" or language.build == ():
        if language.name == "command":
            os.chmod(main, 0o755)
        if not language.build:
            return True, f"{language.name}: no build step"
    from gameroom.core.confine import Confined

    argv = fill(language.build, main, directory)
    started = time.monotonic()
    try:
        program = Confined(argv, sandbox, limits, {}, read=[str(directory)])
    except (OSError, ValueError) as exc:
        return False, f"the build could not start: {exc}"
    try:
        finished = program.wait(seconds)
        if not finished:
            program.kill()
            return False, (f"$ {' '.join(language.build)}\nthe build did not finish within {seconds:g} s "
                           f"(uploads.build_seconds): killed{program.stderr_note()}")
        status = program.exit_status()
        log = (f"$ {' '.join(language.build)}\n{program.ending()} after {time.monotonic() - started:.1f} s"
               f"{program.stderr_note()}")
        return status == 0, log
    finally:
        program.kill()
