"""Command line of the benchmarks: every registered game by name (its generic figures and
the workloads its descriptor declares), and the server, league and lobby benchmarks.

Ctrl-C anywhere (while the benchmarks load, measure or print) ends the command with one
line and status 130, as it ends ``gameroom``: the modules are imported inside
:func:`run`'s handling, not at the top.
"""

from __future__ import annotations

import argparse
import importlib
import sys

PROGRAM = "python -m gameroom.bench"

REFERENCE_GAME = "q"
"""The game the server benchmarks (capacity, slowloris, league) play unless ``--game``
names another: the one their recorded figures (README, ARCHITECTURE) were measured on."""


def _hostile(quick: bool) -> None:
    """Every hostile-user part (a ``gameroom.bench.hostile_*`` module with
    ``run_attacks(quick)``), one after another: its own ``run(quick)`` prints it when it
    has one, else each row it returns is printed as ``key value`` pairs."""
    import pkgutil

    import gameroom.bench

    for part in sorted(m.name for m in pkgutil.iter_modules(gameroom.bench.__path__) if m.name.startswith("hostile_")):
        module = importlib.import_module(f"gameroom.bench.{part}")
        if hasattr(module, "run"):
            module.run(quick)
        elif hasattr(module, "run_attacks"):
            for row in module.run_attacks(quick):
                print("; ".join(f"{key} {value}" for key, value in row.items()), flush=True)


def main() -> int:
    from gameroom.bench import generic
    from gameroom.cli.common import at_least, positive_seconds
    from gameroom.games import registry

    positive = at_least(1)   # a count of games, players, messages...: 0 or less is refused at once
    games = registry.games()
    parser = argparse.ArgumentParser(prog=PROGRAM, description="Print benchmark figures.")
    parser.add_argument("game", nargs="?", default="all",
                        choices=["all", "lobby", "league", "arena", "viewer", "fuzz", "slowloris", "capacity", "rl", "hostile",
                                 *games],
                        help="a game, all games, lobby (the lobby server under load), league, fuzz (bad "
                             "messages at every server), slowloris (silent and slow clients beside games), "
                             "capacity (one referee server holding many remote players), rl (every "
                             "game's learning environment beside PettingZoo's classic ones) or hostile (the "
                             "attacks of issue 17 beside honest games), arena (the arena's ladder with program bots of "
                             "each language, and its overhead per game; then the viewer's figures), viewer (a season's "
                             "longest stored game watched: its bytes on the wire per stored byte and the time to "
                             "its first picture)")
    parser.add_argument("--game", dest="played", default=REFERENCE_GAME, choices=list(games),
                        help=f"capacity, slowloris, league, viewer: the game played (default {REFERENCE_GAME})")
    parser.add_argument("--games", type=positive, default=None,
                        help="games per in-process measurement (default 200; league: 10000; "
                             "capacity: games at once, default 250)")
    parser.add_argument("--players", type=positive, default=1000, help="capacity: client connections (default 1000)")
    parser.add_argument("--referees", choices=["hub", "threads"], default="hub",
                        help="capacity: the server's referees as greenlets on one hub thread (the server's "
                             "shape, default) or on a thread each (the shape before, to compare)")
    parser.add_argument("--rooms", default="50,200,500", help="lobby: rooms at once, comma-separated")
    parser.add_argument("--call-rooms", default="20,50,100",
                        help="lobby: rooms of Q (played by calls) at once, comma-separated")
    parser.add_argument("--people-seconds", type=positive_seconds, default=5.0,
                        help="lobby: seconds of each measurement of what people cost (checks flooded, pictures "
                             "watched; default 5)")
    parser.add_argument("--messages", type=positive, default=100_000, help="fuzz: bad messages to send (default 100000)")
    parser.add_argument("--connections", type=positive, default=500,
                        help="slowloris: silent, trickling and non-reading connections (default 500)")
    parser.add_argument("--servers", default=None, metavar="LIST",
                        help="slowloris: only the slow-client rows of these servers (comma-separated: web, arena, "
                             "lobby), without the games beside slow connections")
    parser.add_argument("--acceptance", action="store_true",
                        help="league: the acceptance run (example programs and built-ins, every game; "
                             "default 200 games each)")
    parser.add_argument("--workers", type=positive, default=2,
                        help="league --acceptance, arena, viewer: games played at once; league --backend ray and "
                             "arena: also each Ray node's game slots")
    parser.add_argument("--backend", choices=["local", "ray"], default="local",
                        help="league: ray adds the same league on Ray clusters of 1, 2 and 3 nodes on this machine "
                             "(in a network namespace of their own), or on the cluster RAY_ADDRESS names, beside "
                             "the local pool, and Ray's cost a game")
    parser.add_argument("--seconds", type=positive_seconds, default=3.0, help="rl: seconds of play per environment (default 3)")
    parser.add_argument("--quick", action="store_true", help="hostile: fewer games per attack; arena: hostile "
                        "uploads of concatenated bzip2 streams (about 7 KB, built at once) rather than one stream "
                        "(under 700 bytes, 8 s each to build), no Ray rows, a short season for the viewer")
    parser.add_argument("--reference", action="append", default=[], metavar="FILE|KEY=RATE",
                        help="a game: more reference figures, a TOML file shaped like gameroom/bench/"
                             "references.toml, or one work's rate (KEY=RATE, e.g. q-dag-dag=91.3); "
                             "repeatable; the recorded figures are in references.toml")
    parser.add_argument("--isolated-games", type=positive, default=3,
                        help="a game: games played on isolated seats (a process per player; default 3)")
    args = parser.parse_args()
    if args.servers is not None and args.game != "slowloris":
        parser.error("--servers belongs to the slowloris benchmark")
    for problem in registry.problems():
        print(f"bench: warning: {problem}", flush=True)
    if args.game == "rl":
        from gameroom.bench import rl

        rl.run(args.seconds)
        return 0
    if args.game == "fuzz":
        from gameroom.bench import fuzz

        fuzz.run(args.messages)
        return 0
    if args.game == "slowloris":
        from gameroom.bench import slowloris

        servers = None if args.servers is None else tuple(s.strip() for s in args.servers.split(",") if s.strip())
        if servers is not None and (not servers or set(servers) - set(slowloris.SERVERS)):
            parser.error(f"--servers: a comma-separated list of {', '.join(slowloris.SERVERS)}, not {args.servers!r}")
        slowloris.run(args.connections, args.games or 20, game_name=args.played, servers=servers)
        return 0
    if args.game == "lobby":
        from gameroom.bench import lobby

        lobby.run(sizes=tuple(int(r) for r in args.rooms.split(",")),
                  call_sizes=tuple(int(r) for r in args.call_rooms.split(",")), people_seconds=args.people_seconds)
        return 0
    if args.game == "hostile":
        _hostile(args.quick)
        return 0
    if args.game == "capacity":
        from gameroom.bench import capacity

        capacity.run(args.players, args.games or 250, game_name=args.played, referees=args.referees)
        return 0
    if args.game == "league" and args.acceptance:
        from gameroom.bench import acceptance

        return acceptance.run(args.games, args.workers)
    if args.acceptance:
        parser.error("--acceptance belongs to the league benchmark")
    if args.game == "arena":
        from gameroom.bench import arena, viewer

        arena.run(args.games, game_name=args.played, workers=args.workers, quick=args.quick)
        # --quick (the smoke test's run) gives the viewer a short season of its own games
        viewer.run(args.games if args.quick else None, game_name=args.played, workers=args.workers,
                   runs=1 if args.quick else 3)
        return 0
    if args.game == "viewer":
        from gameroom.bench import viewer

        viewer.run(args.games, game_name=args.played, workers=args.workers)
        return 0
    if args.game == "league" and args.backend == "ray":
        from gameroom.bench import cluster

        return 0 if cluster.report("league", args.played, args.games or 2000, args.workers) else 1
    if args.backend != "local":
        parser.error("--backend belongs to the league benchmark")
    if args.game == "league":
        from gameroom.bench import league

        league.run(args.games, game_name=args.played)
        return 0
    args.games = args.games or 200
    if args.games < 1 or args.isolated_games < 1:
        parser.error("--games and --isolated-games must be at least 1")
    from gameroom.bench import references

    try:
        figures = references.load(args.reference, None if args.game == "all" else args.game)
    except ValueError as exc:
        parser.error(str(exc))
    from gameroom.bench.seats import GameNotPlayed
    from gameroom.sandbox.policy import SandboxUnavailable

    for name, game in games.items():
        if args.game in ("all", name):
            try:
                generic.run(game, args.games, figures.get(name, {}), args.isolated_games)
            except (GameNotPlayed, SandboxUnavailable) as exc:   # no figure of games that were not played
                print(f"gameroom.bench: error: {exc}", file=sys.stderr, flush=True)
                return 1
    return 0


def run() -> int:
    """The benchmarks; Ctrl-C is one line and status 130."""
    try:
        return main()
    except KeyboardInterrupt:
        from gameroom.cli.common import interrupted

        return interrupted(PROGRAM)


if __name__ == "__main__":
    sys.exit(run())
