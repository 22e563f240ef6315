"""League pool workers and Ctrl-C: a terminal's Ctrl-C reaches the whole process group, so
a worker spawned while it comes (still importing, before its initializer ignores SIGINT)
used to die with a KeyboardInterrupt traceback (seen once in ``gameroom league`` under
load). Workers are now spawned with SIGINT held, so a storm of SIGINTs sent to the group
while the pool starts kills none of them and prints no traceback."""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import os, signal, sys, threading, time

    from gameroom.league.runner import LocalBackend
    from gameroom.league.table import TableTask

    received = []
    signal.signal(signal.SIGINT, lambda *_: received.append(1))   # the league's own handling aside
    stop = threading.Event()

    def storm():   # a Ctrl-C to the whole group every few milliseconds while workers start
        while not stop.is_set():
            os.killpg(os.getpgid(0), signal.SIGINT)
            time.sleep(0.005)

    sender = threading.Thread(target=storm, daemon=True)
    sender.start()
    bots = ({"name": "A", "builtin": "dag"}, {"name": "B", "builtin": "ldasg"})
    backend = LocalBackend(2)
    try:
        outcomes = [outcome for _task, outcome in backend.run([TableTask("q", i, i, bots) for i in range(4)])]
    finally:
        stop.set()
        sender.join()
        backend.close()
    failed = [o for o in outcomes if isinstance(o, BaseException)]
    print(f"played {len(outcomes) - len(failed)} of 4; failed {[repr(f) for f in failed]}; signals {len(received)}")
""")


def test_sigints_while_the_pool_starts_kill_no_worker() -> None:
    run = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=600,
                         start_new_session=True, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("played 4 of 4; failed []; signals "), run.stdout + run.stderr
    assert int(run.stdout.split("signals ")[1]) > 0   # the storm did reach the league's process
    assert "Traceback" not in run.stderr and "KeyboardInterrupt" not in run.stderr, run.stderr
