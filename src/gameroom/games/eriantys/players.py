"""In-process Eriantys players (eriantys.md 5, 9): the logical player interface
(``name``, ``setup``, ``observe``, ``act``, ``end``) around a strategy, and the
misbehaving players of §9.3 (``timeout@K``, ``illegal@K``, ``crash@K``, ``garbage@K``,
``impostor@K``, ``outofturn``).

``garbage``, ``impostor`` and ``outofturn`` are remote behaviours in the spec; in process
``garbage@K`` returns the broken text instead of an event object, ``impostor@K`` claims
the next seat's ``playerNumber`` and ``outofturn`` plays like ``first-legal`` (a referee
never asks a player out of turn). The remote client of the lobby issue reuses
:func:`misbehaving_event` and :data:`GARBAGE`.
"""

from __future__ import annotations

import random
from typing import Any, Callable

from gameroom.core.misbehaviour import PlayerMisbehaved, hang
from gameroom.games.eriantys.pieces import ACTION_ONE, ACTION_TWO, CARD_INPUTS, COLORS, PLANNING
from gameroom.games.eriantys.strategies import STRATEGIES, first_legal, make_strategy
from gameroom.games.eriantys.state import from_snapshot

__all__ = ["EriantysPlayer", "MISBEHAVIOURS", "GARBAGE", "illegal_event", "misbehaving_event", "make_player",
           "parse_strategy", "PLAYER_KINDS"]

GARBAGE = b'{"type": GAME_EVENT\n'
MISBEHAVIOURS = ("timeout", "illegal", "crash", "garbage", "impostor")
PLAYER_KINDS = (*STRATEGIES, *(f"{m}@K" for m in MISBEHAVIOURS), "outofturn")


def illegal_event(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The illegal event of §9.3 for the current situation."""
    s = from_snapshot(snapshot)
    seat = s.current
    if s.pending is not None:
        if "CHOOSE_ISLAND" in CARD_INPUTS[s.pending]:
            return {"eventType": "CHOOSE_ISLAND", "islandIndex": len(s.islands)}
        return {"eventType": "PLAY_ASSISTANT_CARD", "assistantCard": 1}
    if s.phase == PLANNING:
        hand = s.hands[seat]
        value = next((v for v in range(1, 11) if v not in hand), 11)
        return {"eventType": "PLAY_ASSISTANT_CARD", "assistantCard": value}
    if s.phase == ACTION_ONE:
        entrance = s.entrance[seat]
        absent = [c for c in range(5) if not entrance[c]]
        if absent:
            return {"eventType": "MOVE_STUDENT_FROM_ENTRANCE_TO_TABLE", "color": COLORS[absent[0]]}
        return {"eventType": "MOVE_STUDENT_FROM_ENTRANCE_TO_ISLAND", "color": COLORS[0],
                "islandIndex": len(s.islands)}
    if s.phase == ACTION_TWO:
        return {"eventType": "MOVE_MOTHER_NATURE", "amount": s.mother_nature_limit() + 1}
    return {"eventType": "CHOOSE_CLOUD", "cloudIndex": len(s.clouds)}


def misbehaving_event(kind: str, snapshot: dict[str, Any]) -> Any:
    """What a misbehaving player answers at its K-th decision (``timeout`` and ``crash``
    are not answers: the caller hangs or raises)."""
    if kind == "illegal":
        return illegal_event(snapshot)
    if kind == "garbage":
        return GARBAGE.decode("ascii")
    if kind == "impostor":
        event = dict(first_legal(snapshot))
        event["playerNumber"] = (snapshot["currentPlayer"] + 1) % snapshot["numberOfPlayers"]
        return event
    raise ValueError(kind)


def parse_strategy(text: str) -> tuple[str, int | None]:
    """``greedy`` -> ("greedy", None); ``crash@5`` -> ("crash", 5). ValueError if unknown."""
    if text == "outofturn" or text in STRATEGIES:
        return text, None
    kind, at, k = text.partition("@")
    if at and kind in MISBEHAVIOURS and k.isdigit() and int(k) >= 1:
        return kind, int(k)
    raise ValueError(f"unknown player {text!r}; choose from {', '.join(PLAYER_KINDS)} (K >= 1)")


class EriantysPlayer:
    """A player of the logical interface of §5 built from a strategy name of §9."""

    def __init__(self, name: str, kind: str = "first-legal", rng: random.Random | None = None,
                 block: Callable[[], None] = hang) -> None:
        self._name = name
        self.kind, self.at = parse_strategy(kind)
        self.strategy = make_strategy(self.kind if self.kind in STRATEGIES else "first-legal", rng)
        self.block = block
        self.decisions = 0
        self.seat: int | None = None
        self.winners: list[str] | None = None

    def name(self) -> str:
        return self._name

    def setup(self, seat: int, players: list[str], expert: bool) -> None:
        self.seat = seat

    def observe(self, message: dict[str, Any]) -> None:
        return None

    def act(self, state: dict[str, Any]) -> Any:
        self.decisions += 1
        if self.at is not None and self.decisions == self.at:
            if self.kind == "timeout":
                self.block()
            if self.kind == "crash":
                raise PlayerMisbehaved(f"crash@{self.at}")
            return misbehaving_event(self.kind, state)
        return self.strategy(state)

    def end(self, winners: list[str]) -> None:
        self.winners = list(winners)


def make_player(name: str, kind: str, seed: int = 0) -> EriantysPlayer:
    return EriantysPlayer(name, kind, random.Random(seed))
