"""Command line of the benchmarks."""

from __future__ import annotations

import argparse
import importlib

from gameroom.bench import generic
from gameroom.games import registry


def main() -> int:
    games = registry.games()
    parser = argparse.ArgumentParser(prog="python -m gameroom.bench", description="Print benchmark figures.")
    parser.add_argument("game", nargs="?", default="all", choices=["all", *games])
    parser.add_argument("--games", type=int, default=200, help="games per in-process measurement")
    args = parser.parse_args()
    for name, game in games.items():
        if args.game not in ("all", name):
            continue
        if game.benchmark is not None:
            importlib.import_module(game.benchmark).run(args.games)
        else:
            generic.run(game, args.games)
    return 0


raise SystemExit(main())
