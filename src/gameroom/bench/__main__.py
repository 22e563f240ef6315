"""Command line of the benchmarks."""

from __future__ import annotations

import argparse
import importlib
import sys

from gameroom.bench import GAMES


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m gameroom.bench", description="Print benchmark figures.")
    parser.add_argument("game", nargs="?", default="all", choices=["all", *GAMES])
    parser.add_argument("--games", type=int, default=200, help="games per in-process measurement")
    args = parser.parse_args()
    for name, module_name in GAMES.items():
        if args.game not in ("all", name):
            continue
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError:
            print(f"{name}: no benchmark yet", file=sys.stderr)
            continue
        module.run(args.games)
    return 0


raise SystemExit(main())
