"""Local bots that attack their host: spin, eat memory, fork. Importable by the isolated
child process (``sandbox.isolation``), which builds them from a picklable factory."""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from gameroom.games.q.players import StrategyPlayer


class HostileBot(StrategyPlayer):
    """A Q dag player whose first turn attacks: ``spin``, ``eat`` (memory), ``fork``
    (children that sleep forever, their pids appended to ``pids_file``), ``escape`` (a
    double fork whose grandchild calls ``setsid``, leaving the group, writes its pid to
    ``pids_file`` and sleeps forever as a Python whose command line names ``pids_file``;
    the turn is then played) or ``die`` (a line on stderr, then exit status 5)."""

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
        if self.attack == "escape":
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    with open(self.pids_file, "a") as out:
                        out.write(f"{os.getpid()}\n")
                    os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(1000)", self.pids_file])
                os._exit(0)
            os.wait()
            while not os.path.exists(self.pids_file):
                time.sleep(0.01)
            if pub is None:   # called on its own, not in a game
                return "escaped"
        if self.attack == "die":
            print("hostile player: giving up <now>", file=sys.stderr, flush=True)
            os._exit(5)
        return super().take_turn(pub)
