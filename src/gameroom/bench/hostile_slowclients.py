"""Slow clients of one address beside an honest one, against the web room, the arena and
the lobby (issue 34, finding 1): ``bench.slowloris``' slow-client rows, as a part of
``python -m gameroom.bench hostile`` (``--quick``: 500 slow connections, not 2,000)."""

from __future__ import annotations

from gameroom.bench.slowloris import run_slow_clients

__all__ = ["run"]


def run(quick: bool = False) -> None:
    run_slow_clients(500 if quick else 2000)


if __name__ == "__main__":
    import sys

    run("--quick" in sys.argv)
