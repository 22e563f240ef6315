"""Shared test helpers: where the reference fixtures live, and JSON stream reading."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gameroom.cli.common import parse_json_values

# Test modules import these helpers as `from conftest import ...`; tests/ is a package
# (so same-named test files of different games do not collide), hence the path entry.
sys.path.insert(0, str(Path(__file__).resolve().parent))

# Every child of the test process is started with fork(), not vfork(). With vfork the child
# borrows the parent's memory until it execs while the parent's other threads run on (and
# CPython drops the GIL around the call); the suite starts hundreds of servers and clients
# from pool threads, and under `-n 2` in CI a start now and then failed in the child before
# its exec (exit 255, OSError). fork() costs a page-table copy, about a millisecond here.
if hasattr(subprocess, "_USE_VFORK"):
    subprocess._USE_VFORK = False

REPO = Path(__file__).resolve().parents[1]
FIXTURES_ENV = "GAMEROOM_FIXTURES"


def fixtures_root() -> Path:
    """The reference fixtures folder: $GAMEROOM_FIXTURES or ../shared/fixtures beside the repo."""
    env = os.environ.get(FIXTURES_ENV)
    return Path(env) if env else REPO.parent / "shared" / "fixtures"


def game_fixtures(game: str) -> Path:
    """The fixture folder of one game; skips the calling test when it is absent."""
    path = fixtures_root() / game
    if not path.is_dir():
        pytest.skip(f"reference fixtures for {game} not found at {path} "
                    f"(set {FIXTURES_ENV} to the shared fixtures folder)")
    return path


def fixture_cases(game: str, harness: str, pattern: str = "**/*-in.json") -> list[Any]:
    """Parameters for a test over every `*-in.json` of one harness folder, sorted.

    Used at collection time. When the folder is absent it yields one parameter that skips
    with a message naming the missing folder, so the run says why nothing was checked.
    """
    path = fixtures_root() / game / harness
    if not path.is_dir():
        return [pytest.param(None, id=f"{game}-{harness}-absent",
                             marks=pytest.mark.skip(reason=f"reference fixtures not found at {path} "
                                                    f"(set {FIXTURES_ENV})"))]
    return [pytest.param(p, id=str(p.relative_to(path)).removesuffix("-in.json"))
            for p in sorted(path.glob(pattern))]


def read_json_values(text: str) -> list[Any]:
    """All JSON values of a text, written one after another with white space between
    (the command line's own reader, so tests read outputs exactly as inputs are read)."""
    return parse_json_values(text, "test data")
