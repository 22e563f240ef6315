"""A bot's upload: unpacked safely into a scratch directory, then built in the sandbox.

An upload is a single source file (its language from the form, else from its suffix) or
an archive whose format its name says (``arena.archives``: zip, tar, tar with gzip,
bzip2 or xz) with a ``bot.toml`` manifest naming the ``language`` and the ``main`` file.
Unpacking reads the archive as a stream with every bound checked as each header and
member is read (``arena.archives``) and refuses, with one line naming the member, the
rule and its ``arena.toml`` key: absolute paths, ``..``, links, devices and other special
files, names longer than the file system takes, paths longer than ``uploads.max_path``
or deeper than ``uploads.max_depth``, a file where a directory must be (``x`` then
``x/y``) and the like, more entries than ``uploads.max_entries``, more files than
``uploads.max_files``, more bytes than ``uploads.max_unpacked_bytes`` (counted as they
are written, not as the archive declares them: a bomb stops at the bound). Files are
written world-readable (0644; the main file of a ``command`` bot 0755) and nothing else.
A refused upload leaves nothing behind: :func:`unpack` removes the directory it made.

The build runs the language's ``build`` argv in the sandbox (``core.confine``: no
network, the bot's resource limits, its directory readable, nothing of the host writable)
within ``uploads.build_seconds``, its program the interpreter's real executable
(``arena.interpreters``). The build log is the command (``{main}`` filled, relative to
the bot's folder), how it ended and the tail of its output, line by line, read to its
end. A language without a build step is built by being unpacked (its interpreter found).
"""

from __future__ import annotations

import io
import os
import shlex
import shutil
import time
import tomllib
from pathlib import Path, PurePosixPath
from gameroom.arena.archives import NAME_MAX, ArchiveError, Budget, Reader, archive_format, magic_format, members
from gameroom.arena.config import Language, UploadLimits
from gameroom.arena.interpreters import Interpreters, MissingInterpreter
from gameroom.core.errors import GameroomError
from gameroom.core.sandbox import ResourceLimits, SandboxPolicy

__all__ = ["UploadError", "unpack", "read_manifest", "build", "MANIFEST", "fill", "BUILD_LOG_BYTES"]

MANIFEST = "bot.toml"
MANIFEST_BYTES = 4096
BUILD_LOG_BYTES = 16 * 1024
"""The tail of a build's output kept in its log."""
BUILD_OUTPUT_SECONDS = 10.0
"""For the reader to take a finished build's last output from its pipe."""


class UploadError(GameroomError, ValueError):
    """An upload that cannot be used (the message says what and where)."""


def fill(template: tuple[str, ...] | list[str], main: Path | str, directory: Path | str) -> list[str]:
    """An argv template with ``{main}`` and ``{dir}`` filled (``{port}`` and the others
    are the league's, filled when the bot is started)."""
    return [part.replace("{main}", str(main)).replace("{dir}", str(directory)) for part in template]


def _short(name: str) -> str:
    return repr(name[:100] + ("..." if len(name) > 100 else ""))


def _member_path(name: str, limits: UploadLimits | None = None) -> PurePosixPath:
    path = PurePosixPath(name)
    if name.startswith("/") or path.is_absolute() or "\\" in name or ":" in name[:2]:
        raise UploadError(f"archive member {_short(name)}: an absolute path")
    if any(part == ".." for part in path.parts):
        raise UploadError(f"archive member {_short(name)}: a path with '..'")
    if "\0" in name:
        raise UploadError(f"archive member {_short(name)}: a name with a NUL byte")
    if limits is not None and len(name) > limits.max_path:
        raise UploadError(f"archive member {_short(name)}: a path of {len(name)} characters, more than "
                          f"{limits.max_path} (uploads.max_path)")
    if any(len(part.encode("utf-8")) > NAME_MAX for part in path.parts):
        raise UploadError(f"archive member {_short(name)}: a name longer than {NAME_MAX} bytes (the file "
                          "system's limit)")
    if limits is not None and len(path.parts) > limits.max_depth:
        raise UploadError(f"archive member {_short(name)}: {len(path.parts)} levels deep, more than "
                          f"{limits.max_depth} (uploads.max_depth)")
    return path


def _write(source: Reader, target: Path) -> None:
    with open(target, "xb") as out:
        while chunk := source.read(65536):
            out.write(chunk)
    os.chmod(target, 0o644)


def _place(into: Path, path: PurePosixPath, name: str, directory: bool) -> Path:
    """Where member ``path`` goes under ``into``, its parent directories made: refused when
    a file stands where a directory must be, or the member is given twice."""
    at = into
    for part in path.parts[:-1]:
        at = at / part
        if at.is_symlink() or (at.exists() and not at.is_dir()):
            raise UploadError(f"archive member {_short(name)}: {_short(str(at.relative_to(into)))} is a file, "
                              "not a directory")
        at.mkdir(mode=0o755, exist_ok=True)
    target = at / path.parts[-1]
    if target.is_symlink() or (target.exists() and (not directory or not target.is_dir())):
        given = "a directory" if target.is_dir() else "a file"
        raise UploadError(f"archive member {_short(name)}: given twice (already {given})")
    return target


def _unpack_archive(data: bytes, kind: str, into: Path, limits: UploadLimits) -> None:
    budget = Budget(limits, len(data))
    for name, what, source in members(data, kind, budget):
        path = _member_path(name, limits)
        if what == "link":
            raise UploadError(f"archive member {_short(name)}: a link (links are refused)")
        if what == "special":
            raise UploadError(f"archive member {_short(name)}: a device or other special file")
        if not path.parts:   # "./": the archive's top, which is ``into``
            continue
        target = _place(into, path, name, what == "dir")
        if what == "dir":
            target.mkdir(mode=0o755, exist_ok=True)
            continue
        budget.file(name)
        assert source is not None
        _write(source, target)


def unpack(data: bytes, filename: str, into: Path, limits: UploadLimits) -> bool:
    """Unpack an upload into the directory ``into`` (made here; it must not exist):
    whether it was an archive. UploadError says what was refused, and ``into`` is gone."""
    if len(data) > limits.max_bytes:
        raise UploadError(f"the upload is {len(data)} bytes, more than {limits.max_bytes} (uploads.max_bytes)")
    if not data:
        raise UploadError("the upload is empty")
    kind = archive_format(filename)
    if kind is None:
        name = PurePosixPath(filename.replace("\\", "/")).name
        if not name or name.startswith(".") or name == MANIFEST or len(name) > 100 or "\0" in name:
            raise UploadError(f"the file name {_short(filename)} cannot be a bot's main file")
        found = magic_format(data)
        if found is not None:
            raise UploadError(f"{_short(name)} is {'a zip archive' if found == 'zip' else 'compressed'}: give its "
                              "name the archive's suffix (.zip, .tar.gz, .tgz, .tar.bz2, .tar.xz, .tar)")
    into.mkdir(parents=True, mode=0o755)
    try:
        if kind is not None:
            _unpack_archive(data, kind, into, limits)
            return True
        if len(data) > limits.max_unpacked_bytes:
            raise UploadError(f"the file is {len(data)} bytes, more than {limits.max_unpacked_bytes} "
                              "(uploads.max_unpacked_bytes)")
        _write(io.BytesIO(data), into / name)
        return False
    except ArchiveError as exc:
        shutil.rmtree(into, ignore_errors=True)
        raise UploadError(str(exc)) from None
    except OSError as exc:   # what the file system refused (a name it cannot hold): the upload's fault
        shutil.rmtree(into, ignore_errors=True)
        raise UploadError(f"the archive cannot be unpacked: {exc.strerror or exc}") from None
    except BaseException:
        shutil.rmtree(into, ignore_errors=True)
        raise


def read_manifest(directory: Path) -> tuple[str, str]:
    """An archive's ``(language, main)`` from its ``bot.toml``."""
    path = directory / MANIFEST
    if not path.is_file():
        raise UploadError(f"an archive needs a {MANIFEST} at its top with language and main")
    if path.stat().st_size > MANIFEST_BYTES:
        raise UploadError(f"{MANIFEST} is more than {MANIFEST_BYTES} bytes: it holds language and main")
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
          seconds: float, interpreters: Interpreters | None = None) -> tuple[bool, str]:
    """Build a version (in the sandbox, ``sandbox`` a resolved policy): whether it built,
    and its log."""
    interpreters = interpreters or Interpreters()
    try:
        interpreters.command(language.run)   # a missing interpreter fails the build, not every game
    except MissingInterpreter as exc:
        return False, f"{language.name}: {exc}"
    if language.name == "command":
        os.chmod(main, 0o755)
    if not language.build:
        return True, f"{language.name}: no build step"
    from gameroom.core.confine import Confined

    shown = "$ " + shlex.join(fill(language.build, main.relative_to(directory), "."))
    try:
        argv = interpreters.command(fill(language.build, main, directory))
    except MissingInterpreter as exc:
        return False, f"{shown}\n{language.name}: {exc}"
    started = time.monotonic()
    try:
        program = Confined(argv, sandbox, limits, {}, read=[str(directory)], output_bytes=BUILD_LOG_BYTES,
                           stdout_too=True)
    except (OSError, ValueError) as exc:
        return False, f"{shown}\nthe build could not start: {exc}"
    try:
        finished = program.wait(seconds)
        if not finished:
            program.kill()
            ending = f"the build did not finish within {seconds:g} s (uploads.build_seconds): killed"
        else:
            ending = f"{program.ending()} after {time.monotonic() - started:.1f} s"
        output = program.output(BUILD_OUTPUT_SECONDS)
        status = program.exit_status() if finished else None
    finally:
        program.kill()
    output = output.replace(f"{directory}/", "").replace(str(directory), ".")   # the bot's own paths, as it knows them
    return status == 0, "\n".join(part for part in (shown, ending, output) if part)
