"""The lobby's journal (docs/ARCHITECTURE.md, "The lobby's journal"): a lobby killed with
SIGKILL at random moments and started again from its journal ends every game exactly as
the same games played without a stop; a damaged or torn journal resumes from its last
whole step with one warning; a journal of another format or of an unknown version is
refused with one line; SIGTERM stops cleanly and nothing is replayed twice. Real lobby
processes, real SQLite files, real TCP clients."""

from __future__ import annotations

import random
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from driver import run_gameroom
from tests.lobby.journaled import Person, Restartable

# Every game, with a room of the fewest players: a deterministic person and house bots.
GAMES = ("q", "bazaar", "fish", "evolution", "eriantys")
CONFIG = {"personTimeoutSeconds": 600, "callTimeoutSeconds": 600, "turnTimeoutSeconds": 600,
          "reconnectGraceSeconds": 600, "testHooks": {"roomIds": list(range(2001, 2400))}}
KILL_POINTS = 20   # per game at least


def _entries(lobby: Person) -> dict[str, Any]:
    return {g["name"]: g for g in lobby.client.request({"type": "GET_GAMES"}, "GAMES")["games"]}


def _round(lobby: Restartable, number: int) -> dict[str, Person]:
    """One room of every game, set up one after the other (their seeds and ids follow the
    order), each person then playing in its thread."""
    people = {}
    for game in GAMES:
        person = Person(lobby, f"p{number}{game}", seed=number * 31 + len(game))
        entry = _entries(person)[game]
        person.seat(game, min(entry["numberOfPlayers"]), entry["bots"][0])
        people[game] = person
    for person in people.values():
        person.play()
    return people


def _play(lobby: Restartable, rounds: int, kill_rng: random.Random | None) -> tuple[dict[tuple[int, str], Any],
                                                                                   dict[str, int]]:
    """``rounds`` rounds of every game; with ``kill_rng``, the lobby killed (SIGKILL) and
    started again after a random number of the people's decisions, over and over. Each
    room's record, and the kill points each game met in progress."""
    records: dict[tuple[int, str], Any] = {}
    kills = {game: 0 for game in GAMES}
    for number in range(rounds):
        people = _round(lobby, number)
        deadline = time.monotonic() + 600
        next_kill = sum(p.decisions for p in people.values()) + (kill_rng.randint(1, 4) if kill_rng else 0)
        while any(p.end is None for p in people.values()):
            assert time.monotonic() < deadline, {g: (p.decisions, p.end) for g, p in people.items()}
            for game, person in people.items():
                assert person.error is None, (game, person.error, lobby.log()[-3000:])
            if kill_rng is not None and sum(p.decisions for p in people.values()) >= next_kill:
                time.sleep(kill_rng.random() * 0.05)   # anywhere in what follows a decision
                in_progress = [game for game, p in people.items() if p.end is None]
                lobby.kill()
                for game in in_progress:
                    kills[game] += 1
                lobby.start()
                next_kill = sum(p.decisions for p in people.values()) + kill_rng.randint(1, 4)
            time.sleep(0.005)
        for game, person in people.items():
            assert person.error is None, (game, person.error)
            records[(number, game)] = person.record()
            person.client.close()
    return records, kills


def test_games_killed_at_random_steps_end_as_the_uninterrupted_games(tmp_path: Path) -> None:
    rounds = 2
    calm = Restartable(tmp_path / "calm" if (tmp_path / "calm").mkdir() is None else tmp_path, CONFIG)
    try:
        expected, _ = _play(calm, rounds, None)
    finally:
        calm.stop()
    killed = Restartable(tmp_path, CONFIG)
    try:
        got, kills = _play(killed, rounds, random.Random(29))
        log = killed.stop()
    except BaseException:
        print(killed.log()[-5000:])
        raise
    assert "Traceback" not in log and "internal error" not in log and "cannot be resumed" not in log, log[-5000:]
    for key, record in expected.items():
        assert got[key] == record, (key, got[key], record)
    assert all(count >= KILL_POINTS for count in kills.values()), kills
