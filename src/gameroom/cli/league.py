"""The league commands: ``league``, ``ratings``, ``replay show|verify`` and ``play --replay``.

They need the ``league`` extra (SQLAlchemy, Alembic, openskill, rich) except ``replay``
and ``play --replay``, which use only the standard library and the games.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Iterator

from gameroom.cli.common import UsageError, at_least, print_outcome, stderr_log
from gameroom.core import console
from gameroom.core.textfile import FileProblem, read_text
from gameroom.games import registry

__all__ = ["add_commands", "league", "ratings", "replay", "play_recorded", "run_recorded"]


_positive, _natural = at_least(1), at_least(0)


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
            sandbox = resolve_policy(sandbox)
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
    console.show_lines("gameroom.league.runner")   # a game played again, said even with --quiet (no bar)
    try:
        with _progress(args.quiet, plan.games) as show:
            book = run_league(plan, engine, runner, progress=show, check=False)
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


def _replays(args: argparse.Namespace) -> tuple[int, Iterator[tuple[Any, Any]]]:
    """How many replays the command names (a file or the database) and each as a
    ``LoadedReplay`` (with what its text and, for stored games, its rows show) beside its
    verification (``verify``: None when the rules agree, else the first difference). A
    file's replays are verified together (a session is run once for all its games); a
    database's one at a time as they are read, so memory does not grow with the database."""
    from gameroom.league.replay import load_replays

    if (args.file is None) == (args.db is None):
        raise UsageError("give a replay file or --db URL (not both)")
    check = args.action == "verify"
    if args.file is None:
        total, stored = _stored_replays(args)
        return total, ((loaded, _verify_all([loaded])[0] if check else None) for loaded in stored)
    try:
        text = _replay_text(args.file)
    except FileProblem as exc:
        raise UsageError(str(exc)) from None
    try:
        replays = load_replays(text, str(args.file))[0]
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    outcomes = _verify_all(replays) if check else [None] * len(replays)
    return len(replays), iter(list(zip(replays, outcomes)))


def _replay_text(path: Any) -> str:
    """A replay file's text: JSON Lines, or JSON Lines packed with Zstandard (a stored
    game's bytes as the arena sends them; several such files one after the other too)."""
    from gameroom.league.packing import is_packed, unpack_frames

    try:
        with open(path, "rb") as stream:
            head = stream.read(4)
    except OSError as exc:
        raise FileProblem(f"cannot read replay {path}: {exc.strerror or exc}") from None
    if not is_packed(head):
        return read_text(path, "replay")
    try:
        with open(path, "rb") as stream:
            return unpack_frames(stream.read())
    except OSError as exc:
        raise FileProblem(f"cannot read replay {path}: {exc.strerror or exc}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise FileProblem(f"replay {path} is packed but cannot be unpacked: {exc}") from None


def _stored_replays(args: argparse.Namespace) -> tuple[int, Iterator[Any]]:
    """The database's games (``--league``, ``--id``): their count, and each one read in
    turn, checked against its own row's digest and its ``seats``/``results``/``ejections``
    rows."""
    from sqlalchemy import func, select
    from sqlalchemy.orm import Session

    from gameroom.league.db import GameRow, LeagueRow

    engine = database(args.db, create=False)
    query = select(GameRow).order_by(GameRow.id)
    with Session(engine) as session:
        if args.league is not None:
            league_id = session.scalar(select(LeagueRow.id).where(LeagueRow.name == args.league))
            if league_id is None:
                raise UsageError(f"no league named {args.league!r} in the database")
            query = query.where(GameRow.league_id == league_id).order_by(GameRow.index)
        if args.id is not None:
            query = query.where(GameRow.id == args.id)
        total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
    if not total:
        raise UsageError("no such games in the database")

    def each() -> Iterator[Any]:
        with Session(engine) as session:
            for row in session.scalars(query.execution_options(yield_per=50)):
                yield _stored_replay(session, row)
                session.expunge(row)    # done with it: the session need not keep it

    return total, each()


def _stored_replay(session: Any, row: Any) -> Any:
    from gameroom.core.record import MatchRecord
    from gameroom.league.db import ReplayNotKept, replay_of, stored_differences
    from gameroom.league.replay import LoadedReplay, head_problems, load_replays

    label = f"game {row.id}" + (f" (league index {row.index})" if row.index is not None else "")
    try:
        found, chain = load_replays(replay_of(row), label)
    except ReplayNotKept:
        # its results are kept, its replay was let go on purpose: nothing to check, nothing altered
        return LoadedReplay(label, MatchRecord(row.game), 0, 0, [], True, kept=False)
    except (ValueError, UnicodeDecodeError) as exc:
        # a stored replay that cannot be read is reported; the other games go on
        return LoadedReplay(label, MatchRecord(row.game), 0, 0, [f"unreadable replay: {exc}"], True)
    loaded = found[0]
    if len(found) > 1:
        loaded.problems.append(f"line {found[1].first_line}: the stored replay holds {len(found)} records")
    loaded.problems += head_problems(chain, row.digest)
    loaded.problems += [f"database: {text}" for text in stored_differences(session, row, loaded.record)]
    return loaded


def replay(args: argparse.Namespace) -> int:
    from gameroom.league.replay import describe

    total, replays = _replays(args)
    single = total == 1
    if args.action == "show":
        for loaded, _none in replays:
            if not single:
                print(f"== {loaded.label}")
            for line in describe(loaded.record):
                print(line)
            for problem in loaded.problems:
                stderr_log(f"{loaded.label}: {problem}")
        return 0
    from gameroom.league.db import NOT_KEPT

    altered = unverifiable = unchained = not_kept = 0
    for loaded, divergence in replays:
        label, record = loaded.label, loaded.record
        if not loaded.kept:
            not_kept += 1
            if single:
                print(f"{label}: {NOT_KEPT}", file=sys.stderr)
            continue
        for problem in loaded.problems:
            print(f"{label}: {problem}", file=sys.stderr)
        rerun_failed = divergence is not None and not divergence.unverifiable
        if rerun_failed:
            print(f"{label}: differs from the rules at {divergence}", file=sys.stderr)
        elif divergence is not None:
            print(f"{label}: {divergence.message}", file=sys.stderr)
        bad = bool(loaded.problems) or rerun_failed
        altered += bad
        unverifiable += not bad and divergence is not None
        unchained += loaded.note is not None
        if single and loaded.note is not None:
            print(f"{label}: {loaded.note}; checked by re-running only", file=sys.stderr)
        if single and bad:
            print(f"{label}: altered", file=sys.stderr)
        elif single and divergence is None:
            chain = "digest chain intact, " if loaded.chained else ""
            print(f"{label}: verified ({chain}{sum(1 for e in record.events if e.kind == 'call')} calls)")
    if not single:
        print(f"{total - altered - unverifiable - not_kept} of {total} replays verified"
              + (f", {altered} altered" if altered else "")
              + (f", {unverifiable} not re-dealable (served or tournament games)" if unverifiable else "")
              + (f", {not_kept} not kept (retention: their results are)" if not_kept else "")
              + (f"; {unchained} with {UNCHAINED_SHORT}" if unchained else ""))
    # one game asked for whose replay is gone: nothing could be checked
    return 1 if altered or (single and not_kept) else 0


UNCHAINED_SHORT = "no digest chain (recorded before chains), checked by re-running only"


def _verify_all(replays: list[Any]) -> list[Any]:
    """Each replay's first difference from the rules (or None): registry games one by one,
    served and tournament games by running each session once."""
    from gameroom.league.replay import verify, verify_session
    from gameroom.league.sessions import rerun_session

    outcomes: list[Any] = [None] * len(replays)
    sessions: dict[tuple[str, str], list[int]] = {}
    for at, loaded in enumerate(replays):
        record = loaded.record
        if not loaded.first_line:     # unreadable or not kept: nothing to re-run
            continue
        session = record.config.get("session") if isinstance(record.config, dict) else None
        if record.seed is None and isinstance(session, dict):
            key = (record.game, json.dumps(session, sort_keys=True))
            sessions.setdefault(key, []).append(at)
        else:
            outcomes[at] = verify(record)
    for (game, session), members in sessions.items():
        found = verify_session([replays[at].record for at in members], rerun_session(json.loads(session), game))
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
    record = record_table(TableTask(game.name, 0, seed, bots, options=tuple(_kept_options(game, options).items())))
    try:
        args.replay.write_text(record.to_jsonl(), encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write replay {args.replay}: {exc.strerror}") from None
    print(f"{game.name}: " + ", ".join(f"{b['name']} ({b['builtin']})" for b in bots) + f"; seed {seed}")
    print_outcome(record.result)
    stderr_log(f"replay written to {args.replay}")
    return 0


def _kept_options(game: Any, options: dict[str, Any]) -> dict[str, Any]:
    """The game's own options among ``play``'s typed options (those it declares for rooms
    and competitions, ``GameDescriptor.room_options``), which the replay's header keeps and
    ``replay verify`` deals again. Any other option of ``play`` given a value of its own
    (not the seed, the players or the roster) would be lost: a UsageError says so rather
    than replaying the default game."""
    hosting = game.local_play
    declared = {option.key for option in game.room_options}
    chosen = {"seed", "players", hosting.roster}
    for option in hosting.options:
        if option.key in declared or option.key in chosen:
            continue
        default: Any = bool(option.default) if option.flag else option.default
        value = options.get(option.key)
        if isinstance(value, (list, tuple)) or option.repeat or option.many:   # lists and tuples alike
            value, default = list(value or []), list(default or [])
        if value != default:
            raise UsageError(f"{option.flag_text} cannot be kept in a replay: it is not among {game.name}'s own "
                             f"options ({', '.join(o.flag_text for o in game.room_options) or 'none'}), "
                             "which a replay records")
    return {key: value for key, value in options.items() if key in declared}


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
