"""A trained agent entered where a bot can be: ``gameroom.rl.policy_player`` plays every
game as an ordinary player (a guarded seat, and the remote path's wire values), its
masked-out actions are refused by the referee, and a league bots file takes a ``policy``
entry."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.rl.cases import OPTIONS, need_extra

need_extra()

from gameroom import rl
from gameroom.core.context import MatchContext
from gameroom.core.match import guarded_seat
from gameroom.core.record import FailureKind
from gameroom.games import registry
from tests.rl.policies import against_the_mask, first_legal


@pytest.mark.parametrize("game", sorted(OPTIONS))
def test_a_policy_plays_whole_games_as_a_player(game: str) -> None:
    descriptor = registry.game(game)
    players = descriptor.min_players
    for seed in range(3):
        seats = descriptor.seats([next(iter(descriptor.strategies))] * (players - 1), seed)
        agent = rl.policy_player(game, first_legal, name="agent", players=players)
        seats.insert(seed % players, guarded_seat("agent", agent))
        result = descriptor.play(seed, seats, context=MatchContext(limits=descriptor.limits.with_call(30.0)))
        assert "agent" not in result.misbehaved, result.ejections


@pytest.mark.parametrize("game", sorted(OPTIONS))
def test_a_masked_out_action_is_refused_by_the_referee(game: str) -> None:
    descriptor = registry.game(game)
    players = descriptor.min_players
    seats = descriptor.seats([next(iter(descriptor.strategies))] * (players - 1), 1)
    seats.insert(0, guarded_seat("agent", rl.policy_player(game, against_the_mask, name="agent", players=players)))
    result = descriptor.play(1, seats, context=MatchContext(limits=descriptor.limits.with_call(30.0)))
    ejection = next(e for e in result.ejections if e.name == "agent")
    assert ejection.kind in (FailureKind.ILLEGAL_ACTION, FailureKind.INVALID_REPLY, FailureKind.EXCEPTION)
    assert "agent" in result.misbehaved


def test_a_policy_for_other_options_is_ejected_with_the_reason() -> None:
    fish = registry.game("fish")   # the descriptor's games are on 5 x 5 boards
    seats = [guarded_seat("small", rl.policy_player("fish", first_legal, name="small", rows=4, columns=4)),
             *fish.seats(["greedy"], 2)]
    result = fish.play(2, seats, context=MatchContext(limits=fish.limits.with_call(30.0)))
    ejection = next(e for e in result.ejections if e.name == "small")
    assert "this encoding is for 4 x 4 boards, the game's board is 5 x 5" in ejection.reason
    q = registry.game("q")
    seats = [guarded_seat("two", rl.policy_player("q", first_legal, name="two")), *q.seats(["dag", "dag"], 2)]
    result = q.play(2, seats, context=MatchContext(limits=q.limits.with_call(30.0)))
    assert "this encoding is for 2 players, the game has 3" in next(e for e in result.ejections if e.name == "two").reason


def test_a_league_bots_file_takes_a_policy(tmp_path: Path) -> None:
    pytest.importorskip("sqlalchemy", reason="the league extra is not installed")
    from tests.league.conftest import REPO, league

    db, _run = league(tmp_path, "fish", [{"name": "agent", "policy": "tests.rl.policies:first_legal"},
                                         {"name": "greedy", "builtin": "greedy"}], 3, cwd=REPO)
    with sqlite3.connect(db) as connection:
        rows = connection.execute("select count(*) from results r join bots b on b.id = r.bot_id "
                                  "where b.name = 'agent' and not r.ejected").fetchall()
    assert rows == [(3,)]


def test_a_bad_policy_entry_is_one_error_line(tmp_path: Path) -> None:
    pytest.importorskip("sqlalchemy", reason="the league extra is not installed")
    from tests.league.conftest import REPO, gameroom

    bots = tmp_path / "bots.toml"
    bots.write_text("[[bots]]\nname = 'a'\npolicy = 'tests.rl.policies:nothing'\noptions = { rows = 4 }\n"
                    "[[bots]]\nname = 'b'\nbuiltin = 'greedy'\n")
    run = gameroom("league", "fish", "--bots", str(bots), "--games", "1", "--db",
                   f"sqlite:///{tmp_path / 'x.db'}", cwd=REPO)
    assert run.returncode == 2 and "has no 'nothing'" in run.stderr
    bots.write_text("[[bots]]\nname = 'a'\npython = 'tests.rl.policies:first_legal'\noptions = { rows = 4 }\n")
    run = gameroom("league", "fish", "--bots", str(bots), "--games", "1", "--db", f"sqlite:///{tmp_path / 'x.db'}")
    assert run.returncode == 2 and "options is a table, for a policy bot only" in run.stderr


def test_policy_options_reach_the_encoding_in_the_isolated_seat() -> None:
    from gameroom.games.fish.state import Color, GameState
    from gameroom.league.bots import parse_bots

    bot = parse_bots({"bots": [{"name": "a", "policy": "tests.rl.policies:first_legal",
                                "options": {"rows": 3, "columns": 4}}]})[0]
    assert bot.spec == {"name": "a", "policy": "tests.rl.policies:first_legal", "options": {"rows": 3, "columns": 4}}
    fish = registry.game("fish")
    bot.check(fish)
    seat = bot.local_seat(fish, "a", 1)
    try:
        assert seat.caller("playing_as", (Color.RED,), 30.0) is None
        assert seat.caller("playing_with", ([Color.WHITE],), 30.0) is None
        assert seat.caller("initial", (GameState.create(3, 4, 2, fish=2),), 30.0) == (0, 0)   # the first free tile
    finally:
        close: Any = getattr(seat.caller, "close", None)
        if close is not None:
            close()
