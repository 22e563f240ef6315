"""Reading a file a person wrote (a configuration, a bots file): its text, its TOML or its
JSON, with one line saying what is wrong with it and which file it was.

Every command that reads such a file turns :class:`FileProblem` into its own error (the
command line's usage error, the arena's configuration error), so the wording is the same
everywhere: ``cannot read WHAT PATH: No such file or directory``, ``WHAT PATH is not
UTF-8``, ``WHAT PATH is not TOML: ...``, ``WHAT PATH is not JSON: ... at line L column C``.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

__all__ = ["FileProblem", "read_text", "read_toml", "read_json"]


class FileProblem(ValueError):
    """A file that cannot be read or parsed (the message names it)."""


def _named(what: str, path: Path | str) -> str:
    return f"{what} {path}" if what else str(path)


def read_text(path: Path | str, what: str = "") -> str:
    """The UTF-8 text of ``path``; ``what`` says what the file is (``"bots file"``)."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise FileProblem(f"cannot read {_named(what, path)}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise FileProblem(f"{_named(what, path)} is not UTF-8: {exc}") from None


def read_toml(path: Path | str, what: str = "") -> dict[str, Any]:
    """The TOML table of ``path``."""
    text = read_text(path, what)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise FileProblem(f"{_named(what, path)} is not TOML: {exc}") from None


def read_json(path: Path | str, what: str = "") -> Any:
    """The one JSON value of ``path``."""
    text = read_text(path, what)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise FileProblem(f"{_named(what, path)} is not JSON: {exc.msg} at line {exc.lineno} "
                          f"column {exc.colno}") from None
    except ValueError as exc:   # an integer of more than 4300 digits
        raise FileProblem(f"{_named(what, path)} holds an unreadable JSON value: {exc}") from None
