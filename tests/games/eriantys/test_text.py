"""Eriantys's words for a person at a terminal (``games/eriantys/text.py``): the commands
listed as possible now are exactly what the rules accept (each one typed is an event the
rules take, and the move a player makes is among them), nobody else has any, one turn of a
seat is its planning decision or its whole action phase, and the narrator of a room tells
the broadcasts in ``gameroom play``'s sentences, counting rounds on from a game joined
midway."""

from __future__ import annotations

import random

from gameroom.core.record import Event
from gameroom.games.eriantys import text
from gameroom.games.eriantys.narrator import sentence
from gameroom.games.eriantys.rules import step
from gameroom.games.eriantys.state import new_game, snapshot
from gameroom.games.eriantys.strategies import make_strategy
from tests.games.eriantys.helpers import NAMES

ACK = {"type": "ACK"}


def test_the_commands_listed_are_the_moves_the_rules_accept() -> None:
    state, _setup = new_game(NAMES[:3], True, 5)
    players = [make_strategy("random", random.Random(50 + i)) for i in range(3)]
    turns, checked = set(), 0
    while not state.finished and checked < 80:
        snap, seat = snapshot(state), state.current
        commands = text.legal_commands(snap, seat)
        assert commands and len(set(commands)) == len(commands)
        assert all(text.legal_commands(snap, other) == [] for other in range(3) if other != seat)
        for command in commands:   # typed, each is an event the rules take
            event = text.parse_command(command.split(), snap)
            assert text.command_of(event) == command
            assert step(state, seat, event)[2] == ACK, command
        event = players[seat](snap)
        assert text.command_of(event) in commands, (text.command_of(event), commands)
        turns.add(text.turn(snap))
        state, _messages, reply = step(state, seat, event)
        assert reply == ACK
        checked += 1
    # a planning turn per seat and round, an action phase per seat and round
    assert {planning for _round, planning, _seat in turns} == {True, False}
    assert len(turns) < checked


def test_the_rooms_narrator_tells_the_broadcasts_in_plays_sentences() -> None:
    state, setup = new_game(NAMES[:2], False, 2)
    told = text.narrator(NAMES[:2])
    lines = [line for m in setup for line in told.narrate(Event("message", {"message": m}))]
    assert lines == ["-- round 1 --"]
    players = [make_strategy("first-legal", random.Random(i)) for i in range(2)]
    said: list[str] = []
    for _ in range(12):
        state, messages, _reply = step(state, state.current, players[state.current](snapshot(state)))
        for m in messages:
            lines = told.narrate(Event("message", {"message": m}))
            expected = sentence(m, NAMES[:2], text.TEAMS)
            assert lines == ([expected] if expected is not None else []) or m["type"] == "CHANGE_PHASE", m
            said += lines
    assert said[0] == "ann plays assistant 1" and any(line.startswith("  ") and "student:" in line for line in said)
    # joined midway (a reconnection): the rounds are counted on from the game's own
    midway = text.narrator(NAMES[:2], {**snapshot(state), "round": 4})
    message = {"type": "CHANGE_PHASE", "gamePhase": "PLANNING_PHASE"}
    assert midway.narrate(Event("message", {"message": message})) == ["-- round 5 --"]
