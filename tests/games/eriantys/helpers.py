"""Helpers for the Eriantys tests: games driven event by event through the pure step
function, with a client's view kept from the broadcasts, and conservation checks."""

from __future__ import annotations

import random
from typing import Any, Callable

from gameroom.games.eriantys.pieces import COLOR_INDEX, STUDENTS_PER_COLOR, BANK, constants
from gameroom.games.eriantys.rules import eject, step
from gameroom.games.eriantys.state import GameState, TestHooks, new_game, snapshot
from gameroom.games.eriantys.strategies import make_strategy
from gameroom.games.eriantys.view import TableView

NAMES = ["ann", "ben", "cyd", "dot"]


def hooks(first: int | None = None, cards: list[int] | None = None, draws: str = "") -> TestHooks:
    return TestHooks(first, cards, [COLOR_INDEX[d] for d in draws.split()])


def conserved(s: GameState) -> list[str]:
    """What is wrong with the piece counts of a state (empty when all is well)."""
    problems = []
    for color in range(5):
        total = (s.bag[color] + sum(i.students[color] for i in s.islands) + sum(c[color] for c in s.clouds)
                 + sum(e[color] for e in s.entrance) + sum(d[color] for d in s.dining)
                 + sum(card.students[color] for card in s.cards if card.students is not None))
        if total != STUDENTS_PER_COLOR:
            problems.append(f"{total} students of colour {color}")
    c = constants(s.n)
    for team in range(c.teams):
        placed = sum(i.towers for i in s.islands if i.team == team)
        clamped = s.finished and s.supply[team] == 0
        if s.supply[team] + placed != c.towers and not (clamped and placed >= c.towers):
            problems.append(f"team {team}: {s.supply[team]} in supply + {placed} placed")
    if s.expert:
        coins = s.bank + sum(s.coins) + sum(1 for card in s.cards if card.used)
        if coins != BANK or s.bank < 0 or min(s.coins) < 0:
            problems.append(f"{coins} coins")
    if any(owner is not None and not 0 <= owner < s.n for owner in s.professors):
        problems.append(f"professors {s.professors}")
    tiles = sum(i.no_entry for i in s.islands) + sum(card.no_entry or 0 for card in s.cards)
    if any(card.id == 5 for card in s.cards) and tiles != 4:
        problems.append(f"{tiles} no-entry tiles")
    return problems


def play_checked(n: int, expert: bool, seed: int, kinds: list[str],
                 check: Callable[[GameState, dict[str, Any], list[dict[str, Any]]], None] | None = None,
                 eject_at: tuple[int, int] | None = None) -> GameState:
    """Play a game through ``step``; after every event the broadcasts applied to a client's
    view must give the server's snapshot, and the pieces must be conserved. ``eject_at``
    = (event number, seat) ejects that seat (referee policy) before that event."""
    names = NAMES[:n]
    state, setup = new_game(names, expert, seed)
    view = TableView()
    for message in setup:
        view.apply(message)
    assert view.snapshot() == snapshot(state)
    strategies = [make_strategy(kinds[i % len(kinds)], random.Random(seed * 10 + i)) for i in range(n)]
    events = 0
    while not state.finished:
        if eject_at is not None and events == eject_at[0]:
            for message in eject(state, eject_at[1] % n, "EJECTED"):
                view.apply(message)
            assert view.snapshot() == snapshot(state)
            if state.finished:
                break
        seat = state.current
        before = snapshot(state)
        event = strategies[seat](before)
        new, messages, reply = step(state, seat, event)
        assert reply == {"type": "ACK"}, (event, reply)
        assert snapshot(state) == before, "step changed the state it was given"
        state = new
        for message in messages:
            view.apply(message)
        view.acknowledge(event)
        now = snapshot(state)
        assert view.snapshot() == now, (event, messages, _diff(view.snapshot(), now))
        assert not conserved(state), conserved(state)
        if check is not None:
            check(state, event, messages)
        events += 1
        assert events < 2000
    return state


def _diff(a: Any, b: Any, path: str = "$") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b)) for d in _diff(a.get(k), b.get(k), f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _diff(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: view {a!r} != server {b!r}"]


ACK = {"type": "ACK"}


def nack(text: str) -> dict[str, Any]:
    return {"type": "NACK", "errorMessage": text}


class Table:
    """A game under test: events go through ``step``; every accepted event's broadcasts
    must also bring a client's view to the server's snapshot."""

    def __init__(self, n: int = 2, expert: bool = False, first: int | None = 0, cards: list[int] | None = None,
                 draws: str = "", seed: int = 0) -> None:
        self.state, self.setup = new_game(NAMES[:n], expert, seed, hooks(first, cards, draws))
        self.view = TableView()
        for message in self.setup:
            self.view.apply(message)
        assert self.view.snapshot() == snapshot(self.state)

    def send(self, seat: int, kind: str, **fields: Any) -> list[dict[str, Any]]:
        """Send one event; the broadcasts followed by the reply."""
        return self.send_event(seat, {"eventType": kind, **fields})

    def send_event(self, seat: int, event: dict[str, Any]) -> list[dict[str, Any]]:
        new, messages, reply = step(self.state, seat, event)
        if reply == ACK:
            self.state = new
            for message in messages:
                self.view.apply(message)
            self.view.acknowledge(event)
            assert self.view.snapshot() == snapshot(self.state), _diff(self.view.snapshot(), snapshot(self.state))
            assert not conserved(self.state), conserved(self.state)
        else:
            assert new is self.state and not messages
        return messages + [reply]

    def ok(self, seat: int, kind: str, **fields: Any) -> list[dict[str, Any]]:
        """Send an event that must be accepted; its broadcasts."""
        out = self.send(seat, kind, **fields)
        assert out[-1] == ACK, out[-1]
        return out[:-1]

    def play(self, seat: int, event: dict[str, Any]) -> list[dict[str, Any]]:
        """Send an event object that must be accepted; its broadcasts."""
        out = self.send_event(seat, event)
        assert out[-1] == ACK, out[-1]
        return out[:-1]

    def arrange(self, change: Callable[[GameState], None]) -> None:
        """Set a situation up directly (what a reconnecting client would get as GAME_STATE)."""
        change(self.state)
        self.view.state = snapshot(self.state)
        assert not conserved(self.state), conserved(self.state)

    def plan(self, *values: int) -> None:
        """Everybody plays an assistant, in planning order."""
        for value in values:
            self.ok(self.state.current, "PLAY_ASSISTANT_CARD", assistantCard=value)

    @property
    def snap(self) -> dict[str, Any]:
        return snapshot(self.state)


def give_coins(seat: int, amount: int) -> Callable[[GameState], None]:
    def change(s: GameState) -> None:
        s.bank -= amount
        s.coins[seat] += amount
    return change


def move(s: GameState, source: list[int], target: list[int], color: str, count: int = 1) -> None:
    c = COLOR_INDEX[color]
    assert source[c] >= count
    source[c] -= count
    target[c] += count


def counts(colors: str) -> list[int]:
    out = [0, 0, 0, 0, 0]
    for name in colors.split():
        out[COLOR_INDEX[name]] += 1
    return out


def fill(s: GameState, where: list[int], colors: str) -> None:
    """Make ``where`` hold exactly ``colors``, exchanging students with the bag."""
    for c in range(5):
        s.bag[c] += where[c]
        where[c] = 0
    for c, k in enumerate(counts(colors)):
        assert s.bag[c] >= k
        s.bag[c] -= k
        where[c] += k


def in_action(n: int = 2, expert: bool = False, cards: list[int] | None = None, seed: int = 0,
              values: tuple[int, ...] | None = None) -> Table:
    """A table in the first action phase: seat i played ``values[i]`` (by default 1, 3, 5,
    7, so that seat 0 starts)."""
    table = Table(n, expert, first=0, cards=cards, seed=seed)
    table.plan(*(values or tuple(2 * i + 1 for i in range(n))))
    return table
