"""The ``gameroom`` commands for Evolution: play and harness (more to come with remote play)."""

from __future__ import annotations

import argparse
from typing import Any


def add_play_arguments(parser: argparse.ArgumentParser) -> None:
    pass


def play(args: Any) -> int:
    return 0
