"""The league commands: ``league``, ``ratings``, ``replay show|verify`` and ``play --replay``.

They need the ``league`` extra (SQLAlchemy, Alembic, openskill, rich) except ``replay``
and ``play --replay``, which use only the standard library and the games.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from gameroom.cli.common import UsageError, print_outcome, stderr_log
from gameroom.games import registry

__all__ = ["add_commands", "league", "ratings", "replay", "play_recorded", "run_recorded"]


def _at_least(minimum: int) -> Any:
    """An argparse type: an integer of at least ``minimum``."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected an integer of at least {minimum}, got {value}")
        return value

    return parse


_positive, _natural = _at_least(1), _at_least(0)


def add_commands(commands: Any, game_choices: list[str]) -> None:
    league = commands.add_parser("league", help="run a league of many games between bots, into a database")
    league.add_argument("game", choices=game_choices)
    league.add_argument("--bots", type=Path, required=True, help="TOML file of [[bots]] (name and builtin, python "
                                                                   "or command)")
    league.add_argument("--games", type=_positive, required=True, help="number of games of the league")
    league.add_argument("--db", default=None, help="database URL (default sqlite:///gameroom.db)")
    league.add_argument("--workers", type=_positive, default=2, help="games played at once (default 2)")
    league.add_argument("--backend", choices=["local", "ray"], default="local",
                        help="local process pool (default) or Ray")
    league.add_argument("--seed", type=_natural, default=0, help="league seed: game i's seed derives from it and i")
    league.add_argument("--players", type=_positive, default=None, help="players a game (default: as many as the "
                                                                          "game takes, at most the bots)")
    league.add_argument("--name", default=None, help="league name (a league resumes when run again by name)")
    league.add_argument("--replays", type=Path, default=None, metavar="DIR",
                        help="also write every replay as DIR/<league>-<index>.jsonl")
    league.add_argument("--quiet", action="store_true", help="no progress bar")

    ratings = commands.add_parser("ratings", help="print a game's leaderboard from the database")
    ratings.add_argument("--game", required=True, choices=game_choices)
    ratings.add_argument("--db", default=None, help="database URL (default sqlite:///gameroom.db)")

    replay = commands.add_parser("replay", help="show or verify replays (JSON Lines)")
    actions = replay.add_subparsers(dest="action", required=True, parser_class=commands._parser_class)
    for action, text in (("show", "print a replay step by step"),
                         ("verify", "re-run replays through the real rules; non-zero when one was altered")):
        sub = actions.add_parser(action, help=text)
        sub.add_argument("file", nargs="?", type=Path, help="replay file (JSON Lines; may hold several)")
        sub.add_argument("--db", default=None, help="instead of a file: the replays stored in this database")
        sub.add_argument("--league", default=None, help="with --db: only this league's games")
        sub.add_argument("--id", type=_positive, default=None, help="with --db: only the game of this id")


def database(url: str | None, create: bool = True) -> Any:
    """The results database at ``url`` (a missing extra is reported by ``cli.main``);
    ``create=False`` for commands that only read: a missing SQLite file is an error."""
    from gameroom.league.db import DEFAULT_URL, DatabaseError, open_database

    try:
        return open_database(url or DEFAULT_URL, create=create)
    except DatabaseError as exc:
        raise UsageError(str(exc)) from None


def league(args: argparse.Namespace) -> int:
    """``gameroom league``: 0 when every game was played and every program bot played;
    1, after the leaderboard, when a program bot never started (each one named, with how
    its program ended); 2 with one error line when the league could not be run."""
    from gameroom.core.sandbox import SandboxUnavailable, resolve_policy
    from gameroom.league.bots import BotError, read_bots_file
    from gameroom.league.ratings import print_leaderboard
    from gameroom.league.runner import BotsNeverStarted, LeagueError, LeaguePlan, backend, run_league

    game = registry.game(args.game)
    if args.seed >= 2 ** 31:
        raise UsageError(f"--seed must be below 2**31, got {args.seed}")
    try:
        bots, sandbox = read_bots_file(args.bots)
    except BotError as exc:
        raise UsageError(str(exc)) from None
    if any(bot.kind != "builtin" for bot in bots):   # decided (and any warning said) before the progress bar
        try:
            sandbox = resolve_policy(sandbox, stderr_log)
        except SandboxUnavailable as exc:
            raise UsageError(str(exc)) from None
    try:
        for bot in bots:
            bot.check(game, sandbox)
    except BotError as exc:
        raise UsageError(str(exc)) from None
    engine = database(args.db)
    plan = LeaguePlan(game, bots, args.games, args.seed, args.players, args.name, args.replays, sandbox=sandbox)
    try:
        runner = backend(args.backend, args.workers)
    except LeagueError as exc:
        raise UsageError(str(exc)) from None
    never: BotsNeverStarted | None = None
    try:
        with _progress(args.quiet, plan.games) as show:
            book = run_league(plan, engine, runner, progress=show, log=stderr_log, check=False)
    except BotsNeverStarted as exc:
        never, book = exc, exc.book
    except LeagueError as exc:
        raise UsageError(str(exc)) from None
    finally:
        runner.close()
    print(f"league {plan.league_name}: {plan.games} games of {game.name}")
    print_leaderboard(book.table(game.name), f"{game.name} league {plan.league_name}")
    if never is not None:
        print(f"gameroom: error: {never}", file=sys.stderr)
        return 1
    return 0


class _progress:
    """A rich progress bar: games done, games per second, the leaderboard's top three."""

    def __init__(self, quiet: bool, total: int) -> None:
        self.quiet, self.total = quiet, total
        self.bar: Any = None
        self.first: int | None = None

    def __enter__(self) -> Any:
        if self.quiet:
            return lambda _p: None
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.bar = Progress(TextColumn("league"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
                            TimeElapsedColumn(), TextColumn("{task.fields[top]}"),
                            console=Console(stderr=True), transient=False)
        self.bar.start()
        self.task = self.bar.add_task("league", total=self.total, rate="", top="")

        def show(progress: Any) -> None:
            import time

            elapsed = time.perf_counter() - progress.started_at
            top = ", ".join(f"{s.name} {s.ordinal:.1f}" for s in progress.leaders[:3])
            if self.first is None:
                self.first = progress.done
            rate = f"{(progress.done - self.first) / elapsed:.1f} games/s" if elapsed > 0 else ""
            self.bar.update(self.task, completed=progress.done, rate=rate, top=f"top: {top}" if top else "")

        return show

    def __exit__(self, *_exc: Any) -> None:
        if self.bar is not None:
            self.bar.stop()


def ratings(args: argparse.Namespace) -> int:
    from gameroom.league.ratings import RatingBook, print_leaderboard

    engine = database(args.db, create=False)
    table = RatingBook.load(engine, args.game).table(args.game)
    if not table:
        print(f"no rated {args.game} games in the database")
        return 0
    print_leaderboard(table, f"{args.game} ratings (openskill Plackett-Luce; rating = mu - 3 sigma)")
    return 0


def _replays(args: argparse.Namespace) -> list[tuple[str, Any]]:
    """(label, record) of every replay the command names: a file or the database."""
    from gameroom.core.record import MatchRecord
    from gameroom.league.replay import read_replays

    if (args.file is None) == (args.db is None):
        raise UsageError("give a replay file or --db URL (not both)")
    if args.file is not None:
        try:
            text = args.file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"cannot read replay {args.file}: {getattr(exc, 'strerror', None) or exc}") from None
        try:
            records = read_replays(text, str(args.file))
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        return [(f"{args.file}" + (f" #{i + 1}" if len(records) > 1 else ""), r) for i, r in enumerate(records)]
    from sqlalchemy import select
    from sqlalchemy.orm import Session

    from gameroom.league.db import GameRow, LeagueRow, replay_of

    engine = database(args.db, create=False)
    out = []
    with Session(engine) as session:
        query = select(GameRow).order_by(GameRow.id)
        if args.league is not None:
            league_id = session.scalar(select(LeagueRow.id).where(LeagueRow.name == args.league))
            if league_id is None:
                raise UsageError(f"no league named {args.league!r} in the database")
            query = query.where(GameRow.league_id == league_id).order_by(GameRow.index)
        if args.id is not None:
            query = query.where(GameRow.id == args.id)
        for row in session.scalars(query):
            out.append((f"game {row.id}" + (f" (league index {row.index})" if row.index is not None else ""),
                        MatchRecord.from_jsonl(replay_of(row))))
    if not out:
        raise UsageError("no such games in the database")
    return out


def replay(args: argparse.Namespace) -> int:
    from gameroom.league.replay import describe

    replays = _replays(args)
    if args.action == "show":
        for label, record in replays:
            if len(replays) > 1:
                print(f"== {label}")
            for line in describe(record):
                print(line)
        return 0
    bad = unverifiable = 0
    outcomes = _verify_all(replays)
    for (label, record), divergence in zip(replays, outcomes):
        if divergence is None:
            if len(replays) == 1:
                print(f"{label}: verified ({sum(1 for e in record.events if e.kind == 'call')} calls)")
        elif divergence.unverifiable:
            unverifiable += 1
            print(f"{label}: {divergence.message}", file=sys.stderr)
        else:
            bad += 1
            print(f"{label}: differs from the rules at {divergence}", file=sys.stderr)
    if len(replays) > 1:
        print(f"{len(replays) - bad - unverifiable} of {len(replays)} replays verified"
              + (f", {unverifiable} not re-dealable (served or tournament games)" if unverifiable else ""))
    return 1 if bad else 0


def _verify_all(replays: list[tuple[str, Any]]) -> list[Any]:
    """Each replay's first difference from the rules (or None): registry games one by one,
    served and tournament games by running each session once."""
    from gameroom.league.replay import verify, verify_session
    from gameroom.league.sessions import rerun_session

    outcomes: list[Any] = [None] * len(replays)
    sessions: dict[tuple[str, str], list[int]] = {}
    for at, (_label, record) in enumerate(replays):
        session = record.config.get("session") if isinstance(record.config, dict) else None
        if record.seed is None and isinstance(session, dict):
            key = (record.game, json.dumps(session, sort_keys=True))
            sessions.setdefault(key, []).append(at)
        else:
            outcomes[at] = verify(record)
    for (game, session), members in sessions.items():
        found = verify_session([replays[at][1] for at in members], rerun_session(json.loads(session), game))
        for at, divergence in zip(members, found):
            outcomes[at] = divergence
    return outcomes


def play_recorded(game: Any, args: argparse.Namespace) -> int:
    """``gameroom play GAME --replay FILE``: the registry's game from ``--seed`` between the
    built-in players the game's roster option names (its first strategy when it has
    none), its replay written to FILE."""
    from gameroom.cli.arguments import typed_options
    from gameroom.league.table import TableTask, record_table

    hosting = game.local_play
    options = typed_options(hosting.options, args)
    strategies = list(options.get(hosting.roster) or []) if hosting.roster else []
    strategies = strategies or [next(iter(game.strategies))]
    unknown = [s for s in strategies if s not in game.strategies]
    if unknown:
        raise UsageError(f"unknown strategy {unknown[0]!r}; choose from {', '.join(game.strategies)}")
    count = options.get("players") or game.min_players
    if not game.min_players <= count <= game.max_players:
        raise UsageError(f"--players must lie in {game.min_players}..{game.max_players}, got {count}")
    seed = options.get("seed", 1)
    bots = tuple({"name": f"P{i + 1}", "builtin": strategies[i % len(strategies)]} for i in range(count))
    record = record_table(TableTask(game.name, 0, seed, bots))
    try:
        args.replay.write_text(record.to_jsonl(), encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write replay {args.replay}: {exc.strerror}") from None
    print(f"{game.name}: " + ", ".join(f"{b['name']} ({b['builtin']})" for b in bots) + f"; seed {seed}")
    print_outcome(record.result)
    stderr_log(f"replay written to {args.replay}")
    return 0


def run_recorded(mode: str, command: Any, game: Any, args: argparse.Namespace) -> int:
    """``gameroom serve|tournament GAME --replay FILE``: run the command as usual, with the
    replay of every game it plays written to FILE. Each header carries the session: the
    typed options, the server's configuration and the seats as the plan received them,
    so ``replay verify`` can run it again (a seed the server would take from the clock is
    drawn here and recorded)."""
    import dataclasses
    import time

    from gameroom.cli.arguments import typed_options
    from gameroom.core.match import observe_every_match
    from gameroom.league.replay import ReplayFile

    if mode == "serve" and args.seed is None:
        args.seed = int(time.time())
    try:
        replays = ReplayFile(args.replay, {"mode": mode, "command_seed": getattr(args, "seed", None)})
    except OSError as exc:
        raise UsageError(f"cannot write replay {args.replay}: {exc.strerror}") from None

    def hook(values: list[Any], options: dict[str, Any], plan: Any) -> Any:
        def play(seats: Any) -> Any:
            replays.begin({"mode": "serve", "options": _json(options), "values": values,
                           "order": [{"name": seat.name, "trusted": seat.trusted} for seat in seats]})
            try:
                return plan.play(seats)
            finally:
                replays.close()

        return dataclasses.replace(plan, play=play)

    if mode == "tournament":
        replays.begin({"mode": "tournament", "options": _json(typed_options(game.hosting.tournament.options, args))})
    stop = observe_every_match(replays.observer)
    try:
        return command(game, args, plan_hook=hook) if mode == "serve" else command(game, args)
    finally:
        stop()
        replays.close()
        stderr_log(f"{replays.written} replay{'s' * (replays.written != 1)} written to {args.replay}")


def _json(options: dict[str, Any]) -> dict[str, Any]:
    """Typed options as JSON for a replay header (tuples as lists)."""
    return json.loads(json.dumps(options, default=str))
