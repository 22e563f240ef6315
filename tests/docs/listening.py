"""Wait until a port of this machine is listening (a page's background server is ready),
or until the job that should open it has ended: ``python listening.py PORT PID [SECONDS]``.

Reads /proc/net/tcp and tcp6 rather than connecting: a probe connection would be a sign-up
to a game server (one that counts failed sign-ups, such as Evolution's, would count it).
Exit status 0 when listening, 1 when the job ended first or the time ran out."""

from __future__ import annotations

import os
import sys
import time

LISTEN = "0A"


def listening(port: int) -> bool:
    wanted = f"{port:04X}"
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table, encoding="ascii") as rows:
                next(rows)
                for row in rows:
                    fields = row.split()
                    if fields[1].rsplit(":", 1)[1] == wanted and fields[3] == LISTEN:
                        return True
        except OSError:
            continue
    return False


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:   # a zombie has ended too
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def main(argv: list[str]) -> int:
    port, pid = int(argv[0]), int(argv[1])
    deadline = time.monotonic() + (float(argv[2]) if len(argv) > 2 else 120.0)
    while time.monotonic() < deadline:
        if listening(port):
            return 0
        if not alive(pid):
            print(f"docs: the background job {pid} ended before port {port} was listening", file=sys.stderr)
            return 1
        time.sleep(0.05)
    print(f"docs: port {port} was not listening in time", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
