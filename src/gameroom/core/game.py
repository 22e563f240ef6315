"""What a game is, in one place: the :class:`GameDescriptor` every game package exports.

The command line, the benchmarks, the server, the tests (and later the web page, the league
and the results database) ask a descriptor — never a game's modules — which games exist,
how many players they take, which built-in and misbehaving players they have, how to
start a game from a seed and seats, which protocol the players speak, how states and
actions travel as JSON, what each seat may see, how a state looks as a picture, which
test harnesses exist and how to host a game or launch clients.

A game package ``gameroom.games.<name>`` defines ``GAME`` in its module ``descriptor``;
:mod:`gameroom.games.registry` finds it there. Game-agnostic: imports only ``core``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from gameroom.core.limits import Limits
from gameroom.core.match import Seat
from gameroom.core.protocol import Codec, Protocol

__all__ = ["GameDescriptor", "SeatViews", "PlayerFactory", "Harness", "Deal", "PlayGame"]

PlayerFactory = Callable[[str, int], Any]
"""``(name, seed) -> player``: a built-in (or misbehaving) player for a seat."""

Harness = Callable[..., list[Any]]
"""A test harness: the JSON values read on standard input -> the JSON values to print;
game-running harnesses also take ``observers=``."""

Deal = Callable[[int, Sequence[str]], Any]
"""``deal(seed, names) -> state``: the referee state a game starts from, for players of
these names in turn order; the same seed deals the same game."""

PlayGame = Callable[..., Any]
"""``play(seed, seats, *, limits=None, observers=(), log=None, cancel=None) -> MatchResult``:
deal a game from ``seed`` for ``seats`` (in turn order) and run it to the end through
``core.match``; observers receive its events; setting the ``cancel`` event (a
``threading.Event``) stops it at its next call with ``core.match.MatchCancelled``."""


@dataclass(frozen=True)
class SeatViews:
    """What a seat and what a spectator may see of a referee state, as JSON.

    ``seat(state, name)`` is everything the player called ``name`` may know (its own
    secrets, the public part of the others'); ``spectator(state)`` the public part only.
    ``vary_secret(state, name, rng)`` is a state that differs from ``state`` only in what
    is secret to ``name`` (Q: the tiles of its hand; Bazaar: its wallet): no other seat's
    view, no spectator's view and no message to another seat may change with it — what
    the secrecy property test checks. None for games without hidden information.
    ``conceal(state, name)`` is a state the game's picture code can draw showing only what
    ``name`` may see (``name`` None: a spectator), the other secrets emptied; a game with
    secrets and no ``conceal`` is shown without pictures (the web room).
    """

    seat: Callable[[Any, str], Any]
    spectator: Callable[[Any], Any]
    vary_secret: Callable[[Any, str, random.Random], Any] | None = None
    conceal: Callable[[Any, str | None], Any] | None = None

    def picture_state(self, state: Any, name: str | None) -> Any:
        """The state to draw for ``name`` (None: a spectator); None when the game has
        secrets but no way to conceal them."""
        if self.vary_secret is None:
            return state
        return None if self.conceal is None else self.conceal(state, name)


@dataclass(frozen=True)
class GameDescriptor:
    """One game, as everything outside its package sees it.

    ``strategies`` and ``misbehaviours`` map names to player factories (the first strategy
    is the default). ``deal`` makes the state a game starts from, ``play`` deals and runs a
game from a seed and seats. ``state_codec`` encodes
    the referee state the game reports to observers (and decodes it back);
    ``action_codec`` one player action. ``commands`` names a module of command-line
    plug-ins (``gameroom.cli.common.GameCommands`` fields) when the game wants more than
    the generic commands; ``benchmark`` a module with ``run(games)``. ``moves(method,
    args)`` offers a person at a seat (the web room) the legal answers to the call
    ``method`` (protocol name) with ``args``: ``(label, answer as JSON)`` pairs (the
    method's result codec decodes them), or None for a call that asks no decision.
    ``seat_moves()`` instead makes a fresh such function for one person's seat, for games
    whose legal answers depend on what earlier calls told the player (Evolution's
    ``choose`` needs the hand ``start`` dealt; Bazaar's trades the equations of
    ``setup``): it sees every call of its seat in order, notifications included.
    """

    name: str
    summary: str
    min_players: int
    max_players: int
    protocol: Protocol
    strategies: Mapping[str, PlayerFactory]
    misbehaviours: Mapping[str, PlayerFactory]
    deal: Deal
    play: PlayGame
    limits: Limits
    state_codec: Codec[Any]
    action_codec: Codec[Any]
    views: SeatViews
    render: Callable[[Any, str], str]
    harnesses: Callable[[], Mapping[str, Harness]]
    server_plan: Callable[[list[Any], Any], Any] | None = None
    client_specs: Callable[[list[Any], Any], Any] | None = None
    tournament: bool = False
    commands: str | None = None
    benchmark: str | None = None
    moves: Callable[[str, tuple[Any, ...]], list[tuple[str, Any]] | None] | None = None
    seat_moves: Callable[[], Callable[[str, tuple[Any, ...]], list[tuple[str, Any]] | None]] | None = None
    lobby: Any = None
    """A ``core.lobbygame.LobbyGame`` when the game is served by the lobby (rooms that
    people and bots log in to and join, events sent when they like) rather than by the
    sign-up-and-referee server; ``gameroom serve/clients/connect`` then use the lobby."""
    learning: Callable[[], Any] | None = None
    """Loads the game's ``core.learning.Learning`` (its encoding for agents, loaded on
    use like ``harnesses``); ``gameroom.rl`` makes PettingZoo and Gymnasium
    environments of every game that declares one."""

    @property
    def playable_by_people(self) -> bool:
        """Whether a person can take a seat (the web room): the game offers legal answers."""
        return self.moves is not None or self.seat_moves is not None

    def person_moves(self) -> Callable[[str, tuple[Any, ...]], list[tuple[str, Any]] | None] | None:
        """The legal answers for one person's seat: ``seat_moves()`` or ``moves``."""
        return self.seat_moves() if self.seat_moves is not None else self.moves

    def seats(self, strategies: Sequence[str], seed: int = 0, names: Sequence[str] | None = None) -> list[Seat]:
        """Trusted seats for built-in players of the named strategies (in turn order)."""
        from gameroom.core.match import trusted_seat

        names = list(names) if names is not None else [f"P{i + 1}" for i in range(len(strategies))]
        return [trusted_seat(name, self.strategies[strategy](name, seed + i))
                for i, (name, strategy) in enumerate(zip(names, strategies))]
