"""500 slow and silent connections beside 20 normal games in one server process: the
connections that never send, trickle a byte a second or stop reading crowd other games'
sign-ups, and every normal game still finishes with its result printed. How long the
normal games take with and without the crowd is measured by ``python -m gameroom.bench
slowloris``, not asserted here."""

from __future__ import annotations

import asyncio

from gameroom.bench import slowloris


def test_normal_games_finish_beside_500_slow_and_silent_connections() -> None:
    # A period the normal games' clients always sign up within, however long a loaded machine
    # takes to connect the 500 first (5 s was too short); every game still ends by itself.
    report = asyncio.run(slowloris.run_mix("q", games=20, attackers=500, seed=3, period=60.0))
    assert sum(report.connected.values()) == 500, report
    assert set(report.connected) == set(slowloris.KINDS), report
    assert report.crashed is None, report
    assert report.results == 20 and report.lost == 0, report
