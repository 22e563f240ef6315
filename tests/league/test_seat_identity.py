"""Seats, not names, in what the league stores: replays written before results held seat
indices still verify, and a game whose players share a name (fish.md and evolution.md
allow it) gets one result row per seat in the real SQLite database."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from gameroom.core.context import MatchContext
from gameroom.core.match import guarded_seat
from gameroom.core.record import END, MatchRecord, names_only
from gameroom.games import registry
from gameroom.league.replay import ReplayRecorder, verify


def _played(game_name: str, names: list[str], seed: int, misbehaving: str | None = None) -> MatchRecord:
    game = registry.game(game_name)
    strategy = next(iter(game.strategies))
    seats = game.seats([strategy] * len(names), seed, names)
    if misbehaving is not None:
        seats[0] = guarded_seat(names[0], game.misbehaviours[misbehaving](names[0], seed))
    config = {"seats": [{"name": s.name, "trusted": s.trusted} for s in seats]}
    recorder = ReplayRecorder(game.name, seed, config, names)
    game.play(seed, seats, MatchContext(observers=[recorder]))
    return MatchRecord.from_jsonl(recorder.record.to_jsonl())


def _legacy(record: MatchRecord) -> MatchRecord:
    """The record as it was written before results held seat indices."""
    rows = [json.loads(line) for line in record.lines_list()]
    for row in rows:
        if row.get("event") == END or ("result" in row and "event" not in row):
            row["result"] = names_only(row["result"])
    return MatchRecord.from_lines(json.dumps(row) for row in rows)


@pytest.mark.parametrize("game, names", [("q", ["A", "B", "C"]), ("fish", ["P", "P", "Q"]),
                                         ("evolution", ["x", "x", "y"])])
def test_new_and_legacy_replays_verify(game: str, names: list[str]) -> None:
    record = _played(game, names, 5)
    assert record.result is not None and record.result.names == names
    assert verify(record) is None
    old = _legacy(record)
    assert "winner_seats" not in next(e for e in old.events if e.kind == END).data["result"]
    assert verify(old) is None
    assert old.result is not None and old.result.winners == record.result.winners


def test_a_legacy_replay_that_was_altered_still_fails() -> None:
    old = _legacy(_played("q", ["A", "B"], 3))
    end = next(e for e in old.events if e.kind == END)
    end.data["result"]["winners"] = ["nobody"]
    divergence = verify(old)
    assert divergence is not None and "end" in divergence.message


def test_players_of_one_name_get_a_row_each(tmp_path: Path) -> None:
    from gameroom.league.db import open_database, ranks_of, record_game
    from gameroom.league.ratings import RatingBook

    record = _played("fish", ["P", "P", "Q"], 2, misbehaving="bad-turn-choice")
    assert record.result is not None and record.result.misbehaved_seats == [0]
    ranks = ranks_of(record)
    assert set(ranks) == {0, 1, 2} and ranks[0] == max(ranks.values())
    db = tmp_path / "league.db"
    engine = open_database(f"sqlite:///{db}")
    book = RatingBook()
    record_game(engine, record, tournament="twins", ratings=book)
    with sqlite3.connect(db) as connection:
        seats = connection.execute("select s.position, b.name from seats s join bots b on b.id = s.bot_id "
                                   "order by s.position").fetchall()
        results = connection.execute("select b.name, r.rank, r.ejected, r.winner from results r "
                                     "join bots b on b.id = r.bot_id order by r.id").fetchall()
        ejections = connection.execute("select b.name, e.method from ejections e join bots b on b.id = e.bot_id"
                                       ).fetchall()
    assert seats == [(0, "P"), (1, "P"), (2, "Q")]
    assert [(name, rank, bool(ejected)) for name, rank, ejected, _winner in results] == [
        ("P", ranks[0], True), ("P", ranks[1], False), ("Q", ranks[2], False)]
    assert [bool(w) for *_rest, w in results] == [s in record.result.winner_seats for s in range(3)]
    assert ejections == [("P", "take-turn")]
    standing = book.of("fish", "P")
    assert standing.games == 1 and standing.ejections == 1   # one bot, counted once at its better rank
