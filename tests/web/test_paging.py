"""Stored games paged by the last id seen (issue 34, finding 4): walking the newest-first
pages of ``web.results.Results.games`` while a writer adds games between every two pages,
each game that was stored when the walk began is seen exactly once (by offset, each new
game shifted the pages: some games came twice and others never). A real SQLite file; the
games are one real recorded Q game written again and again through the league's own
``record_game``."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")

from gameroom.core.context import MatchContext  # noqa: E402
from gameroom.games import registry  # noqa: E402
from gameroom.league.db import open_database, record_game  # noqa: E402
from gameroom.league.replay import ReplayRecorder  # noqa: E402
from gameroom.web.results import Results  # noqa: E402


def test_paging_while_games_are_written_sees_each_game_once(tmp_path: Path) -> None:
    game = registry.game("q")
    names = ["ann", "ben"]
    recorder = ReplayRecorder("q", 3, {"seats": [{"name": n, "bot": {"name": n}} for n in names]}, names)
    game.play(3, game.seats([next(iter(game.strategies))] * 2, 3, names), MatchContext(observers=[recorder]))
    url = f"sqlite:///{tmp_path / 'paging.db'}"
    engine = open_database(url)
    stored = {record_game(engine, recorder.record, tournament="paging") for _ in range(23)}
    results = Results(engine, url)
    seen: list[int] = []
    before = None
    while True:
        page = results.games("q", before, 4)
        seen += [g["id"] for g in page["games"]]
        for _ in range(3):   # games written while someone pages: newer than every page's rows
            record_game(engine, recorder.record, tournament="paging")
        if page["next"] is None:
            break
        assert page["next"] == page["games"][-1]["id"]
        before = page["next"]
    assert sorted(seen) == sorted(stored) and len(seen) == len(set(seen)), seen
    assert seen == sorted(seen, reverse=True)   # newest first
    assert results.games("q", min(stored), 4) == {"game": "q", "per_page": 4, "total": 23 + 3 * 6, "games": [],
                                                 "next": None}
