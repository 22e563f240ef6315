"""Observers that turn a game into files a person can look at."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

__all__ = ["PictureObserver"]


class PictureObserver:
    """Writes a picture of every observed state as ``DIR/0000.svg``, ``DIR/0001.svg``, ...

    ``render`` turns a state into SVG text; the game's own renderer.
    """

    def __init__(self, directory: Path, render: Callable[[Any, str], str]) -> None:
        self.directory = directory
        self.render = render
        self.count = 0
        directory.mkdir(parents=True, exist_ok=True)

    def __call__(self, event: Any) -> None:
        """Observe one match event (``core.record``); state snapshots become pictures."""
        if event.kind == "state":
            self.state(event.subject, event.get("caption"))

    def state(self, state: Any, caption: str | None = None) -> None:
        if state is None:
            return
        text = self.render(state, caption if caption is not None else f"state {self.count}")
        (self.directory / f"{self.count:04d}.svg").write_text(text, encoding="utf-8")
        self.count += 1
