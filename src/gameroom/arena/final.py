"""The final tournament of a competition, seeded from its frozen table.

``play_final`` freezes the competition (``arena.season``), waits until its games in flight
are written and its frozen table is kept, and seeds the final from exactly that table:
the first ``top`` bots that can play, in the table's order (seed 1 is the table's best).
A bot that cannot play is named with its place and why — disabled by staff, no playing
version, or a remote bot (it plays over its connection to the running arena only, and the
final is played by ``gameroom arena final``, a process of its own). Then either

* ``round-robin``: every table of ``players`` of them (every pair, in a two-player game)
  ``games`` times with the seats rotated; a bot scores one per game it wins (a shared win
  counts for each). Ties on wins are broken, in order, by **head-to-head** (wins in the
  games among the tied bots alone), then by **tie-break games** (rounds of every table of
  the still tied bots, seats rotated, at most :data:`TIEBREAK_ROUNDS`, stopping as soon as
  their wins differ), then by the **frozen table** (the better seed);
* ``knock-out`` (two-player games): seed 1 meets the last seed, 2 the last but one, ...;
  with an odd number of bots the best seed left has a bye. A match is ``games`` games
  with the seats alternating, won by the most wins; when level, **tie-break games** are
  played in pairs (each bot moves first once), at most :data:`TIEBREAK_ROUNDS` pairs,
  until one leads; when still level, the **better seed** goes through.

Every result says how it was decided (``decided_by`` and a sentence, ``text``), which the
standings page and the command print. Every game is stored under the final's own label
(``arena:{competition}:final:{number}``, the final numbered from 1) with a seed derived
from the competition's; ratings are untouched; each final is kept in ``arena_finals`` (a
second final never replaces the first).

A final whose process ends without finishing (a kill -9, a lost machine) would stay
``playing`` for ever: the row names the process playing it (``result`` holds its host, pid
and that process's start time while it plays), and whoever reads the finals on that host
(the pages, the next ``gameroom arena final``) marks a final whose process is gone
``interrupted``, naming why. A final played from another host stays ``playing`` until a
reader on its host looks (its process cannot be asked from here).
"""

from __future__ import annotations

import itertools
import os
import socket
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from gameroom.arena.config import Competition
from gameroom.arena.errors import ArenaError
from gameroom.arena.ladder import Arena
from gameroom.arena.season import SeasonError, freeze, wait_for_table
from gameroom.arena.tables import FinalRow, VersionRow, keep_stderr, now
from gameroom.league.atomic import write_transaction
from gameroom.league.db import record_game
from gameroom.league.schedule import game_seed
from gameroom.league.table import TableTask

__all__ = ["FORMATS", "TIEBREAK_ROUNDS", "play_final", "seed_field", "round_robin", "knock_out", "describe",
           "final_label", "REMOTE_LEFT_OUT", "settle_interrupted"]

FORMATS = ("round-robin", "knock-out")
TIEBREAK_ROUNDS = 3
"""At most this many rounds (a knock-out: pairs) of tie-break games, then the seed decides."""
REMOTE_LEFT_OUT = ("a remote bot: it plays over its connection to the running arena only, and the final is "
                   "played by `gameroom arena final`, a process of its own")

Play = Callable[[Sequence[Sequence[str]], str], list[list[str]]]
"""Plays tables (the bots in seat order) of a stage; each table's winners."""


def final_label(competition: str, number: int) -> str:
    """The tournament label of a final's games."""
    return f"arena:{competition}:final:{number}"


@dataclass(frozen=True)
class Seed:
    seed: int
    bot: str        # the version that plays (a league bot)
    entry: str
    place: int      # in the frozen table
    rating: float | None


def seed_field(rows: Sequence[dict[str, Any]], top: int) -> tuple[list[Seed], list[dict[str, Any]]]:
    """The first ``top`` rows of a frozen table that can play, as seeds, and the rows
    passed over before them, each with why."""
    field: list[Seed] = []
    left_out: list[dict[str, Any]] = []
    for row in rows:
        if len(field) == top:
            break
        reason = None
        if row.get("disabled"):
            reason = f"disabled by staff: {row['disabled']}"
        elif row.get("playing") is None:
            reason = "no playing version"
        elif row.get("remote"):
            reason = REMOTE_LEFT_OUT
        if reason is not None:
            left_out.append({"bot": row["bot"], "place": row["rank"], "reason": reason})
            continue
        field.append(Seed(len(field) + 1, row["playing"], row["bot"], row["rank"], row["rating"]))
    return field, left_out


def _wins(results: Sequence[tuple[Sequence[str], Sequence[str]]], among: set[str] | None = None) -> Counter[str]:
    """Wins per bot in the games whose seats are all ``among`` (all games when None)."""
    count: Counter[str] = Counter()
    for seats, winners in results:
        if among is None or set(seats) <= among:
            count.update(bot for bot in winners if bot in set(seats))
    return count


def _rotations(group: Sequence[str], players: int) -> list[list[str]]:
    """Every table of ``players`` of the group, each once per seat rotation."""
    tables = []
    for table in itertools.combinations(group, players):
        for shift in range(players):
            tables.append(list(table[shift:] + table[:shift]))
    return tables


def round_robin(field: Sequence[Seed], players: int, games: int, play: Play) -> dict[str, Any]:
    """A round robin of the field (see the module); its ordered table."""
    seeds = {s.bot: s for s in field}
    bots = [s.bot for s in field]
    tables = []
    for seated in itertools.combinations(bots, players):
        for turn in range(games):
            shift = turn % len(seated)
            tables.append(list(seated[shift:] + seated[:shift]))
    results = list(zip(tables, play(tables, "round robin"), strict=True))
    played = len(results)
    wins = _wins(results)
    decided: dict[str, str] = {}
    texts: dict[str, str] = {}
    order: list[str] = []
    for score in sorted({wins[b] for b in bots}, reverse=True):
        group = [b for b in bots if wins[b] == score]
        if len(group) == 1:
            decided[group[0]] = "wins"
            order += group
            continue
        head = _wins(results, set(group)) if len(group) >= players else Counter()
        for level in sorted({head[b] for b in group}, reverse=True):
            sub = [b for b in group if head[b] == level]
            if len(sub) == 1:
                decided[sub[0]] = "head-to-head"
                others = ", ".join(b for b in group if b != sub[0])
                texts[sub[0]] = f"level on {score} wins with {others}; {level} wins in the games among them"
                order += sub
                continue
            extra, rounds, tied_games = Counter[str](), 0, 0
            while len(sub) >= players and rounds < TIEBREAK_ROUNDS:
                rounds += 1
                stage = _rotations(sub, players)
                extra.update(_wins(list(zip(stage, play(stage, f"tie-break {rounds}"), strict=True))))
                played += len(stage)
                tied_games += len(stage)
                if len({extra[b] for b in sub}) == len(sub):
                    break
            ranked = sorted(sub, key=lambda b: (-extra[b], seeds[b].seed))
            for bot in ranked:
                others = ", ".join(b for b in sub if b != bot)
                first = f"level on {score} wins with {others}" + \
                    (f", also on wins in the games among them ({level})" if len(group) >= players else "")
                if tied_games and sum(1 for b in sub if extra[b] == extra[bot]) == 1:
                    decided[bot] = "tie-break games"
                    texts[bot] = f"{first}; {extra[bot]} wins in {tied_games} tie-break games"
                else:
                    decided[bot] = "seed"
                    still = f", still level after {tied_games} tie-break games" if tied_games else ""
                    texts[bot] = f"{first}{still}: placed by the frozen table (place {seeds[bot].place})"
            order += ranked
    table = []
    for place, bot in enumerate(order, 1):
        text = f"{place}. {bot}: {wins[bot]} wins" + (f" ({texts[bot]})" if bot in texts else "")
        table.append({"place": place, "bot": bot, "entry": seeds[bot].entry, "seed": seeds[bot].seed,
                      "wins": wins[bot], "decided_by": decided[bot], "text": text})
    return {"games": played, "table": table, "winner": order[0]}


def knock_out(field: Sequence[Seed], games: int, play: Play) -> dict[str, Any]:
    """A knock-out of the field (two-player games; see the module); its rounds."""
    seeds = {s.bot: s for s in field}
    alive = [s.bot for s in field]
    rounds: list[dict[str, Any]] = []
    played = 0
    number = 0
    while len(alive) > 1:
        number += 1
        byes = [alive.pop(0)] if len(alive) % 2 else []
        pairs = [(alive[i], alive[-1 - i]) for i in range(len(alive) // 2)]
        tables = [[a, b] if turn % 2 == 0 else [b, a] for a, b in pairs for turn in range(games)]
        outcomes = play(tables, f"round {number}")
        played += len(tables)
        matches: list[dict[str, Any]] = []
        winners_next = []
        for at, (a, b) in enumerate(pairs):
            wins = _wins(list(zip(tables[at * games:(at + 1) * games], outcomes[at * games:(at + 1) * games],
                                  strict=True)))
            extra, pairs_played = Counter[str](), 0
            while wins[a] == wins[b] and extra[a] == extra[b] and pairs_played < TIEBREAK_ROUNDS:
                pairs_played += 1
                stage = [[a, b], [b, a]]
                extra.update(_wins(list(zip(stage, play(stage, f"round {number} tie-break {pairs_played}"),
                                            strict=True))))
                played += 2
            if wins[a] != wins[b]:
                winner, how = (a if wins[a] > wins[b] else b), "games"
            elif extra[a] != extra[b]:
                winner, how = (a if extra[a] > extra[b] else b), "tie-break games"
            else:
                winner, how = (a if seeds[a].seed < seeds[b].seed else b), "seed"
            loser = b if winner == a else a
            score = f"{wins[winner]}-{wins[loser]} in {games} game{'s' * (games != 1)}"
            tied = f"{extra[winner]}-{extra[loser]} in {2 * pairs_played} tie-break games"
            text = {"games": f"{winner} beat {loser} {score}",
                    "tie-break games": f"{winner} beat {loser}: {score}, then {tied}",
                    "seed": f"{winner} went through against {loser}: {score}"
                            + (f", then {tied}" if pairs_played else "")
                            + f", still level: the better seed goes through ({winner} is seed "
                              f"{seeds[winner].seed}, {loser} seed {seeds[loser].seed})"}[how]
            matches.append({"bots": [a, b], "seeds": [seeds[a].seed, seeds[b].seed], "wins": [wins[a], wins[b]],
                            "tiebreak": [extra[a], extra[b]], "tiebreak_games": 2 * pairs_played,
                            "winner": winner, "decided_by": how, "text": text})
            winners_next.append(winner)
        rounds.append({"round": number, "matches": matches, "byes": byes,
                       "bye_texts": [f"{bot} (seed {seeds[bot].seed}) has a bye" for bot in byes]})
        alive = byes + winners_next
    champion = alive[0]
    last = rounds[-1]["matches"][-1]["text"] if rounds else f"{champion} was the only bot"
    return {"games": played, "rounds": rounds, "champion": champion, "winner": champion,
            "champion_text": f"champion: {champion} ({last})"}


def describe(result: dict[str, Any]) -> list[str]:
    """A final's result as lines to read (what ``gameroom arena final`` prints)."""
    lines = [f"final {result.get('number', 1)} of {result.get('competition', '?')}: {result['format']}, "
             f"{result['games']} games"]
    frozen = result.get("frozen")
    if frozen:
        lines.append(f"seeded from the frozen table of {frozen['at']} ({frozen['games']} ladder games):")
    for seed in result.get("seeds", []):
        rating = "unrated" if seed["rating"] is None else f"rating {seed['rating']:.2f}"
        lines.append(f"  seed {seed['seed']}: {seed['bot']} (place {seed['place']}, {rating})")
    for out in result.get("left_out", []):
        lines.append(f"  left out: {out['bot']} (place {out['place']}): {out['reason']}")
    if "table" in result:
        lines += [f"  {row['text']}" for row in result["table"]]
        lines.append(f"winner: {result['winner']}")
    else:
        for stage in result["rounds"]:
            lines.append(f"round {stage['round']}:")
            lines += [f"  {text}" for text in stage.get("bye_texts", [])]
            lines += [f"  {match['text']}" for match in stage["matches"]]
        lines.append(result["champion_text"])
    return lines


def play_final(arena: Arena, competition: Competition, form: str, top: int, games: int,
               wait: float = 300.0) -> dict[str, Any]:
    """Freeze ``competition``, wait for its frozen table and play its final (see the
    module); the result, also kept. ArenaError says what is refused."""
    if form not in FORMATS:
        raise ArenaError(400, f"the final is one of {', '.join(FORMATS)}, not {form!r}")
    if form == "knock-out" and competition.players != 2:
        raise ArenaError(400, "a knock-out final needs a two-player competition; choose round-robin")
    freeze(arena.engine, competition.name, "final")
    arena.frozen[competition.name] = True
    settle_interrupted(arena.engine, competition.name)
    try:
        table = wait_for_table(arena.engine, competition, wait)
    except SeasonError as exc:
        raise ArenaError(409, str(exc)) from None
    field, left_out = seed_field(table["rows"], top)
    if len(field) < competition.players:
        named = "; ".join(f"{o['bot']}: {o['reason']}" for o in left_out)
        raise ArenaError(409, f"{competition.name} has {len(field)} bots that can play; a final needs at least "
                              f"{competition.players}" + (f" (left out: {named})" if named else ""))
    with Session(arena.engine) as session:
        specs = {bot: spec for bot, spec in session.execute(
            select(VersionRow.bot, VersionRow.spec).where(VersionRow.bot.in_([s.bot for s in field])))}
    with write_transaction(arena.engine) as session:
        number = (session.scalar(select(func.max(FinalRow.number))
                                 .where(FinalRow.competition == competition.name)) or 0) + 1
        row = FinalRow(competition=competition.name, number=number, format=form, status="playing",
                       result=_this_process(), started_at=now())
        session.add(row)
    label = final_label(competition.name, number)
    counter = itertools.count()

    def play(tables: Sequence[Sequence[str]], stage: str) -> list[list[str]]:
        """Play the tables on the pool; each table's winners (its games stored)."""
        futures = []
        for seats in tables:
            index = next(counter)
            task = TableTask(competition.game, index, game_seed(competition.seed ^ 0xF1A1 ^ (number << 20), index),
                             tuple(specs[bot] for bot in seats),
                             (("arena", competition.name), ("final", number), ("stage", stage)),
                             arena.sandbox, competition.call_seconds, competition.options)
            futures.append(arena.submit(task))
        out = []
        for future in futures:
            outcome = future.result()
            record = outcome.record
            game_id = record_game(arena.engine, record, tournament=label,
                                  bots={seat["name"]: seat["bot"] for seat in record.config["seats"]},
                                  replay=outcome.replay)
            keep_stderr(arena.engine, game_id, dict(outcome.stderr))
            assert record.result is not None
            out.append(list(record.result.winners))
        return out

    base = {"competition": competition.name, "number": number, "format": form, "top": top,
            "games_per_match": games, "frozen": {"at": table["at"], "games": table["games"]},
            "seeds": [{"seed": s.seed, "bot": s.bot, "entry": s.entry, "place": s.place, "rating": s.rating}
                      for s in field],
            "left_out": left_out}
    try:
        played = round_robin(field, competition.players, games, play) if form == "round-robin" \
            else knock_out(field, games, play)
    except BaseException as exc:
        _finish(arena, competition.name, number, "failed", {**base, "error": f"{type(exc).__name__}: {exc}"[:500]})
        raise
    result = {**base, **played}
    _finish(arena, competition.name, number, "done", result)
    return result


def _started(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot, from ``/proc``), or None when
    there is no such process: a pid used again by another process is told apart."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[19].decode()
    except (OSError, IndexError):
        return None


def _this_process() -> dict[str, Any]:
    return {"host": socket.gethostname(), "pid": os.getpid(), "started": _started(os.getpid())}


def settle_interrupted(engine: Engine, competition: str | None = None) -> int:
    """Mark ``interrupted`` every final still ``playing`` (of ``competition``, or of
    every one) whose process, on this host, is gone; how many were. Read first: the write
    transaction is taken only when one is gone (the pages read finals at every change)."""
    host = socket.gethostname()
    query = select(FinalRow.id, FinalRow.result).where(FinalRow.status == "playing")
    if competition is not None:
        query = query.where(FinalRow.competition == competition)
    with Session(engine) as session:
        gone = {final: player for final, player in session.execute(query)
                if isinstance(player, dict) and player.get("host") == host and isinstance(player.get("pid"), int)
                and (player.get("started") is None or _started(player["pid"]) != player["started"])}
    if not gone:
        return 0
    with write_transaction(engine) as session:
        for row in session.scalars(select(FinalRow).where(FinalRow.id.in_(gone), FinalRow.status == "playing")):
            player = gone[row.id]
            row.status = "interrupted"
            row.result = {**player, "error": f"the process playing it (pid {player['pid']}) ended before the "
                                             "final finished (killed or lost); play the final again"}
    return len(gone)


def _finish(arena: Arena, competition: str, number: int, status: str, result: dict[str, Any]) -> None:
    with Session(arena.engine) as session, session.begin():
        row = session.scalar(select(FinalRow).where(FinalRow.competition == competition, FinalRow.number == number))
        assert row is not None
        row.status, row.result = status, result
    arena.bump()
