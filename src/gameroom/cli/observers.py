"""Observers that turn a game into files a person can look at.

A picture folder holds one game: pictures left there by an earlier game are removed first,
so the files in it always tell one story in order. A path that cannot be a folder (a file,
a place that cannot be created or written) is refused with one clear line before the game.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from gameroom.cli.common import UsageError

__all__ = ["PictureObserver", "PICTURE_GLOB"]

PICTURE_GLOB = "[0-9][0-9][0-9][0-9].svg"   # the names this observer writes: 0000.svg, 0001.svg, ...


def prepare_folder(directory: Path) -> None:
    """Make ``directory`` a fresh picture folder: created if absent, emptied of the pictures
    of an earlier game (other files are left alone). UsageError when it cannot be one."""
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"cannot write pictures into {str(directory)!r}: it is a file, not a folder")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create the picture folder {str(directory)!r}: "
                         f"{exc.strerror or exc}") from None
    if not os.access(directory, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write pictures into {str(directory)!r}: permission denied")
    try:
        for old in directory.glob(PICTURE_GLOB):
            old.unlink()
    except OSError as exc:
        raise UsageError(f"cannot empty the picture folder {str(directory)!r}: {exc.strerror or exc}") from None


class PictureObserver:
    """Writes a picture of every observed state as ``DIR/0000.svg``, ``DIR/0001.svg``, ...

    ``render`` turns a state and a caption into SVG text (the game's own renderer).
    :meth:`final` adds one last picture of the last state seen, with a caption such as
    the winners, once the game's result is known.
    """

    def __init__(self, directory: Path, render: Callable[[Any, str], str]) -> None:
        self.directory = directory
        self.render = render
        self.count = 0
        self.last: Any = None
        prepare_folder(directory)

    def __call__(self, event: Any) -> None:
        """Observe one match event (``core.record``); state snapshots become pictures."""
        if event.kind == "state":
            self.state(event.subject, event.get("caption"))

    def state(self, state: Any, caption: str | None = None) -> None:
        if state is None:
            return
        self.last = state
        self._write(self.render(state, caption if caption is not None else f"state {self.count}"))

    def final(self, caption: str) -> None:
        """One more picture: the last state with ``caption`` (nothing if no state was seen)."""
        if self.last is not None:
            self._write(self.render(self.last, caption))

    def _write(self, text: str) -> None:
        (self.directory / f"{self.count:04d}.svg").write_text(text, encoding="utf-8")
        self.count += 1
