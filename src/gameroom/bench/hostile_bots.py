"""Finding 4's attacks (issue 17) on a real ``gameroom league``, beside honest games: the
hostile-user benchmark's part for untrusted program bots.

Each attack is a league of Q in which three seats of four are the hostile program
(``bench/attack_program.py``): ``escape`` (double fork and ``setsid``, then plays),
``write`` (files without end), ``bomb`` (a fork bomb), ``connect`` (a connection
elsewhere on 127.0.0.1) and ``spin`` (the CPU until its time-out). Beside it, an honest
league of Q (two built-ins and the example Python program, through the same sandbox) is
timed; the reference is the same honest league beside the same league with the example
program in the attacker's seats, so what is measured is the attack's cost, not that of a
second league on the machine. The league beside runs until the honest one has finished,
then is interrupted (Ctrl-C: it ends the games in progress). Per attack
:func:`run_attacks` gives the attack league's process tree's peak memory (``peak_rss_mb``:
the sum of proportional set sizes, so pages a fork bomb shares count once), the honest
league's seconds without and with the attack, the attack's processes still running once
its league has ended, and the bytes one writer wrote (its own count: everything it wrote
anywhere it could, in bubblewrap its private ``/tmp``; or what is left on the host, if
more). Targets: no escaped process, bounded disk, honest games at most 1.5x slower.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from gameroom.bench.processes import marked, python_module

__all__ = ["run_attacks", "run", "ATTACKS"]

ATTACKS = ("escape", "write", "bomb", "connect", "spin")
PROGRAM = Path(__file__).with_name("attack_program.py")
EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "bots" / "python_bot.py"
BACKGROUND = 100_000   # games of a league beside the honest one: it runs until interrupted


def _bots_file(entries: list[dict[str, Any]], sandbox: str = "") -> str:
    # TOML strings are JSON strings (basic strings with the same escapes)
    return "".join("[[bots]]\n" + "".join(f"{key} = {json.dumps(value)}\n" for key, value in entry.items())
                   for entry in entries) + sandbox


def _league(folder: Path, bots: str, games: int, *extra: str) -> subprocess.Popen[bytes]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bots.toml").write_text(bots, encoding="utf-8")
    return subprocess.Popen(python_module("gameroom", "league", "q", "--bots", str(folder / "bots.toml"),
                                          "--games", str(games), "--db", f"sqlite:///{folder / 'league.db'}",
                                          "--workers", "2", "--quiet", *extra), cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _honest(folder: Path, games: int) -> float:
    """Seconds of an honest league of ``games`` Q games (two built-ins and the example program)."""
    bots = _bots_file([{"name": "dag", "builtin": "dag"}, {"name": "ldasg", "builtin": "ldasg"},
                       {"name": "py-example", "command": [sys.executable, str(EXAMPLE), "{port}"]}])
    started = time.perf_counter()
    league = _league(folder, bots, games, "--players", "3")
    _out, err = league.communicate()
    if league.returncode != 0:
        raise RuntimeError(f"the honest league failed: {err.decode(errors='replace').strip()}")
    return time.perf_counter() - started


def _tree_memory(root: int) -> int:
    """Bytes of memory of ``root`` and every process below it: the sum of their
    proportional set sizes (a page shared by n processes counts 1/n in each, so the
    copies a fork bomb shares are not counted many times)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as stat:
                    children.setdefault(int(stat.read().rsplit(b")", 1)[1].split()[1]), []).append(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        try:
            with open(f"/proc/{pid}/smaps_rollup", "rb") as rollup:
                for line in rollup:
                    if line.startswith(b"Pss:"):
                        total += int(line.split()[1]) * 1024
                        break
        except (OSError, IndexError, ValueError):
            pass
        todo.extend(children.get(pid, []))
    return total


def _attack_bots(attack: str, program: Path, folder: Path, port: int) -> str:
    """A built-in and three seats of ``attack`` (``benign``: the example program)."""
    if attack == "benign":
        command = [sys.executable, str(program), "{port}"]
    else:
        argument = {"escape": [str(EXAMPLE)], "write": [str(folder)], "connect": [str(port)]}.get(attack, [])
        command = [sys.executable, str(program), attack, "{port}", *argument]
    entries: list[dict[str, Any]] = [{"name": "dag", "builtin": "dag"}]
    entries += [{"name": f"{attack}-{n}", "command": command} for n in range(1, 4)]
    return _bots_file(entries)


def _written(folder: Path) -> int:
    """What the writers say they wrote (the most by one), or what the attack left on the host."""
    counts = [0]
    try:
        with sqlite3.connect(folder / "league.db") as connection:
            for (reason,) in connection.execute("select reason from ejections"):
                counts += [int(n) for n in re.findall(r"wrote (\d+) bytes in all", reason)]
    except sqlite3.Error:
        pass
    left = sum(f.stat().st_size for f in folder.rglob("hostile-fill-*"))
    return max(max(counts), left)


def _beside(league: subprocess.Popen[bytes], folder: Path, games: int) -> tuple[float, int]:
    """The honest league's seconds while ``league`` runs, and ``league``'s process tree's
    peak proportional set size (bytes); ``league`` is then interrupted (Ctrl-C: it stops
    after the games in progress) and awaited."""
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _tree_memory(league.pid))
            done.wait(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        time.sleep(1.0)   # its programs are running
        seconds = _honest(folder, games)
    finally:
        league.send_signal(signal.SIGINT)
        try:
            league.wait(300)
        except subprocess.TimeoutExpired:
            league.kill()
            league.wait()
        done.set()
        sampler.join()
    return seconds, peak[0]


def _one(attack: str, quick: bool, root: Path) -> dict[str, Any]:
    games = 12 if quick else 40
    folder = root / attack
    marker = folder / f"hostile-{attack}-{os.getpid()}.py"
    folder.mkdir(parents=True)
    shutil.copy(PROGRAM, marker)
    # the reference: the same league with the example program in the attacker's seats
    benign = _league(folder / "benign", _attack_bots("benign", Path(EXAMPLE), folder, 0), BACKGROUND, "--players", "4")
    without, _memory = _beside(benign, folder / "honest-without", games)
    with socket.create_server(("127.0.0.1", 0)) as elsewhere:   # what the connecting attack tries to reach
        bots = _attack_bots(attack, marker, folder / "attack", elsewhere.getsockname()[1])
        hostile = _league(folder / "attack", bots, BACKGROUND, "--players", "4")
        with_attack, memory = _beside(hostile, folder / "honest-with", games)
    time.sleep(0.5)
    return {"finding": 4, "attack": attack, "peak_rss_mb": round(memory / 1024 / 1024, 1),
            "honest_s_without": round(without, 2), "honest_s_with": round(with_attack, 2),
            "escaped_processes": len(marked(str(marker))), "bytes_written": _written(folder / "attack")}


def run_attacks(quick: bool = False) -> list[dict[str, Any]]:
    """Every attack of finding 4 in turn (see the module); one dict per attack."""
    with tempfile.TemporaryDirectory(prefix="gameroom-hostile-bots-") as directory:
        return [_one(attack, quick, Path(directory)) for attack in ATTACKS]


def run(quick: bool = False) -> None:
    """Print each attack's figures."""
    from gameroom.sandbox.bwrap import probe

    problem = probe()
    print(f"hostile bots: sandbox {'bubblewrap' if problem is None else 'fallback (' + problem + ')'}", flush=True)
    for row in run_attacks(quick):
        slower = row["honest_s_with"] / row["honest_s_without"]
        print(f"finding 4, {row['attack']:8} peak RSS {row['peak_rss_mb']:7.1f} MB; honest league "
              f"{row['honest_s_without']:.2f} s beside honest programs, {row['honest_s_with']:.2f} s beside the "
              f"attack ({slower:.2f}x); "
              f"escaped processes {row['escaped_processes']}; bytes written {row['bytes_written']}", flush=True)
