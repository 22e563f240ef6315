"""Misbehaving Fish players (spec 9.6) and the remote integration scenarios, as pure data.

Every baddie is the greedy player with one method misbehaving. :data:`BADDIES` says which
method (by wire name, or ``"name"`` for the sign-up name) and how
(:class:`Misbehaviour`); the phase that runs players turns ``RAISE`` into an exception,
``HANG`` into a call that never returns, and uses :func:`bad_answer` for the wrong answers.
:func:`decode_scenarios` reads ``fixtures/fish/itests/scenarios.json``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from gameroom.core.wire import WireError, describe, expect_list, expect_natural, expect_object, expect_str
from gameroom.games.fish.state import GameState


class Misbehaviour(StrEnum):
    """How a baddie's method misbehaves."""

    RAISE = "raise"
    """The method raises an exception (remote: the client stops answering)."""
    HANG = "hang"
    """The method never returns (an infinite loop)."""
    OCCUPIED_PLACEMENT = "occupied-placement"
    """``setup`` answers the first penguin of the first player that has one (or false)."""
    SELF_MOVE = "self-move"
    """``take-turn`` answers ``[p, p]`` for its own first penguin p."""
    NO_NAME = "no-name"
    """The client connects but never sends its name."""
    INVALID_JSON_SETUP = "invalid-json-setup"
    """``setup`` is answered ``[1, row, column]``: JSON, but not a Position."""
    ILL_FORMED_SETUP = "ill-formed-setup"
    """``setup`` is answered with the raw text ``(row column)`` and a newline: not JSON."""


@dataclass(frozen=True)
class Baddie:
    """A misbehaving player: the method (wire name, or ``"name"``) that misbehaves and how.
    ``remote`` baddies exist only as clients (their misbehaviour is on the wire)."""

    name: str
    method: str
    misbehaviour: Misbehaviour
    remote: bool = False
    note: str = ""


BADDIES: dict[str, Baddie] = {b.name: b for b in (
    Baddie("bad-playing-as", "playing-as", Misbehaviour.RAISE),
    Baddie("bad-playing-with", "playing-with", Misbehaviour.RAISE),
    Baddie("bad-init-time", "setup", Misbehaviour.HANG),
    Baddie("bad-init-choice", "setup", Misbehaviour.OCCUPIED_PLACEMENT),
    Baddie("bad-turn-time", "take-turn", Misbehaviour.HANG),
    Baddie("bad-turn-choice", "take-turn", Misbehaviour.SELF_MOVE),
    Baddie("bad-end-of-tournament", "end", Misbehaviour.RAISE),
    Baddie("bad-start-of-tournament", "end", Misbehaviour.RAISE,
           note="reference defect: despite its name it fails in end-of-tournament"),
    Baddie("no-name", "name", Misbehaviour.NO_NAME, remote=True),
    Baddie("invalid-json-setup", "setup", Misbehaviour.INVALID_JSON_SETUP, remote=True),
    Baddie("ill-formed-setup", "setup", Misbehaviour.ILL_FORMED_SETUP, remote=True),
)}
"""Every misbehaving player by name."""

SCENARIO_KINDS: dict[str, str | None] = {
    "greedy": None,
    "no-name": "no-name",
    "invalid-json-setup": "invalid-json-setup",
    "ill-formed-setup": "ill-formed-setup",
    "bad-start": "bad-start-of-tournament",
    "bad-as": "bad-playing-as",
    "bad-with": "bad-playing-with",
    "bad-turn-choice": "bad-turn-choice",
    "bad-end": "bad-end-of-tournament",
}
"""Player kinds of ``scenarios.json`` -> baddie name (None = a well-behaved greedy player)."""


def occupied_placement(state: GameState) -> list[int] | bool:
    """``bad-init-choice``'s answer: the first position in the places of the first player
    (in state order) that has a penguin, as JSON; ``false`` if no penguin is placed yet."""
    for p in state.players:
        if p.places:
            return [p.places[0][0], p.places[0][1]]
    return False


def self_move(state: GameState) -> list[list[int]]:
    """``bad-turn-choice``'s answer ``[p, p]`` (JSON) for the active player's first penguin."""
    r, c = state.players[0].places[0]
    return [[r, c], [r, c]]


def invalid_json_setup(position: tuple[int, int]) -> list[int]:
    """The invalid-JSON client's ``setup`` reply for the placement it would have made."""
    return [1, position[0], position[1]]


def ill_formed_setup(position: tuple[int, int]) -> str:
    """The ill-formed client's raw ``setup`` reply text (not JSON)."""
    return f"({position[0]} {position[1]})\n"


def bad_answer(baddie: Baddie, state: GameState, intended: tuple[int, int] | None = None) -> Any:
    """The wrong answer (JSON value, or raw text for ill-formed) a choice baddie gives in
    `state`; `intended` is the placement a well-behaved player would have made."""
    kind = baddie.misbehaviour
    if kind is Misbehaviour.OCCUPIED_PLACEMENT:
        return occupied_placement(state)
    if kind is Misbehaviour.SELF_MOVE:
        return self_move(state)
    if kind in (Misbehaviour.INVALID_JSON_SETUP, Misbehaviour.ILL_FORMED_SETUP):
        if intended is None:
            raise ValueError(f"{baddie.name} needs the intended placement")
        return (invalid_json_setup(intended) if kind is Misbehaviour.INVALID_JSON_SETUP
                else ill_formed_setup(intended))
    raise ValueError(f"{baddie.name} does not answer wrongly; it {kind.value}s")


@dataclass(frozen=True)
class Scenario:
    """One remote integration scenario: players in sign-up order (kinds of
    :data:`SCENARIO_KINDS`) or the ``xclients`` arguments, and the accepted ``[W, F]``."""

    name: str
    expected: tuple[tuple[int, int], ...]
    players: tuple[str, ...] = ()
    xclients_args: tuple[str, ...] = ()


def _expected(value: Any, where: str) -> tuple[tuple[int, int], ...]:
    out = []
    for i, pair in enumerate(expect_list(value, where, 1)):
        items = expect_list(pair, f"{where}[{i}]", 2, 2)
        out.append((expect_natural(items[0], f"{where}[{i}][0]"),
                    expect_natural(items[1], f"{where}[{i}][1]")))
    return tuple(out)


def decode_scenarios(value: Any, where: str = "$") -> tuple[list[Scenario], list[Scenario]]:
    """``scenarios.json`` -> (xserver-test scenarios, xclients-test scenarios)."""
    obj = expect_object(value, ("description", "xserver-test", "xclients-test"), where)
    servers: list[Scenario] = []
    for i, s in enumerate(expect_list(obj["xserver-test"], f"{where}.xserver-test")):
        at = f"{where}.xserver-test[{i}]"
        o = expect_object(s, ("name", "players", "expected"), at)
        kinds = []
        for j, k in enumerate(expect_list(o["players"], f"{at}.players")):
            if k not in SCENARIO_KINDS:
                raise WireError(f"unknown player kind {describe(k)}", f"{at}.players[{j}]")
            kinds.append(k)
        servers.append(Scenario(expect_str(o["name"], f"{at}.name"),
                                _expected(o["expected"], f"{at}.expected"), players=tuple(kinds)))
    clients: list[Scenario] = []
    for i, s in enumerate(expect_list(obj["xclients-test"], f"{where}.xclients-test")):
        at = f"{where}.xclients-test[{i}]"
        o = expect_object(s, ("name", "xclients-args", "expected"), at)
        args = tuple(expect_str(a, f"{at}.xclients-args[{j}]")
                     for j, a in enumerate(expect_list(o["xclients-args"], f"{at}.xclients-args")))
        clients.append(Scenario(expect_str(o["name"], f"{at}.name"),
                                _expected(o["expected"], f"{at}.expected"), xclients_args=args))
    return servers, clients
