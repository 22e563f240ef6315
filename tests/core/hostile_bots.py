"""Local bots that attack their host: spin, eat memory, fork. Importable by the isolated
child process (``core.isolation``), which builds them from a picklable factory."""

from __future__ import annotations

import os
import time
from typing import Any

from gameroom.games.q.players import StrategyPlayer


class HostileBot(StrategyPlayer):
    """A Q dag player whose first turn attacks: ``spin``, ``eat`` (memory) or ``fork``
    (children that sleep forever, their pids appended to ``pids_file``)."""

    def __init__(self, name: str, attack: str, pids_file: str = "") -> None:
        super().__init__(name, "dag")
        self.attack = attack
        self.pids_file = pids_file

    def take_turn(self, pub: Any) -> Any:
        if self.attack == "spin":
            while True:
                pass
        if self.attack == "eat":
            hoard = []
            while True:
                hoard.append(bytearray(64 * 1024 * 1024))
        if self.attack == "fork":
            while True:   # until the process limit stops it (BlockingIOError)
                pid = os.fork()
                if pid == 0:
                    while True:
                        time.sleep(100)
                with open(self.pids_file, "a") as out:
                    out.write(f"{pid}\n")
        return super().take_turn(pub)
