"""What a game declares so that agents can learn it: the contract of a game's
``learning.py`` (reached through ``GameDescriptor.learning``), in plain Python.

A game's encoding is a :class:`Learning`: named options with defaults (players, board
size, mode, ...) and ``table(**options)``, which fixes for one set of options

* the **action catalogue**: every sub-action a seat can ever take, one label per index,
  so that an agent's action space is one fixed ``Discrete(len(actions))``;
* the **observation**: a flat vector of ``size`` numbers within ``[low, high]`` (per
  feature), reshaped to ``shape``;
* how a game with these options is **played**: ``play(seed, seats, observers)`` runs the
  game's own referee (never a re-implementation), so legality, ejection and scoring are
  exactly the referee's;
* the **rewards** from a finished match, a **text picture** of a referee state and the
  state a game ``deal`` s from a seed (its first picture).

A seat is encoded by a :class:`SeatCoder` (``table.coder()``: one per seat per game): the
referee calls the seat's player, and every call goes to the coder first. A notification
(``setup``, ``new_tiles``, ``observe``, ...) only updates its memory; a call that asks the
seat to decide opens a :class:`Turn`: a sequence of sub-actions from the catalogue within
that call (Q's placements then "done", Bazaar's trades then purchases, ...). The turn
shows an observation and the legal sub-actions, takes one sub-action at a time and, once
complete, gives the game's answer for the referee. A sub-action that is not legal is
given to the referee as what it is — ``Turn.refuse`` turns it into the answer the agent
asked for (a move onto an occupied tile, a placement that does not fit, ...) so that the
referee refuses it and ejects the seat, exactly as it treats any player; a choice that
the game's interface cannot even express raises :class:`ForbiddenAction`, which the
referee also treats as a failed call. Never is such an action silently corrected.

Everything the coder knows comes from the calls its own seat receives — what the player
interface gives a player — so an observation never holds another seat's secret, and the
same coder serves an environment and a trained agent entered as an ordinary player.
Pure: no numpy here or in the games (``gameroom.rl`` makes the arrays).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from gameroom.core.options import OptionError   # one option error for the command line and agents alike
from gameroom.core.record import MatchResult

__all__ = [
    "Answer",
    "ForbiddenAction",
    "Learning",
    "LearningTable",
    "Option",
    "OptionError",
    "SeatCoder",
    "Turn",
    "flag",
    "integer",
    "one_of",
    "rank_rewards",
]


class ForbiddenAction(Exception):
    """A sub-action the game's answer cannot carry: the seat's call fails with it."""


class Turn(Protocol):
    """One decision of a seat: the sub-actions it takes within one call of the referee."""

    def observation(self) -> Sequence[float]:
        """The seat's observation now (``table.size`` numbers; a list or an ``array``)."""
        ...

    def legal(self) -> Iterable[int]:
        """The indices of the catalogue that are legal now (never empty)."""
        ...

    def choose(self, action: int) -> bool:
        """Take the legal sub-action ``action``; True when the answer is complete."""
        ...

    def answer(self) -> Any:
        """The game's answer to the referee's call (once complete)."""
        ...

    def refuse(self, action: int) -> Any:
        """The answer that carries the sub-action ``action``, which is not legal now, to
        the referee (which refuses it); raises ForbiddenAction when no answer can."""
        ...


@dataclass(frozen=True)
class Answer:
    """A decision the encoding cannot put to the agent (none of its legal answers has an
    index in the catalogue, or none is legal at all): the answer the seat gives as is."""

    value: Any


class SeatCoder(Protocol):
    """One seat's encoder for one game: sees every call of its seat, in order."""

    def turn(self, method: str, args: tuple[Any, ...]) -> Turn | Answer | None:
        """A Turn when the call asks the seat to decide; None for a notification (whose
        answer is None), after remembering what it tells; an Answer for a decision the
        catalogue cannot express (documented per game)."""
        ...


@dataclass(frozen=True)
class Option:
    """One option of a game's learning environments: its default, the values it takes
    (a check that returns the value or raises ValueError) and what it means."""

    default: Any
    check: Callable[[Any], Any]
    doc: str


@dataclass(frozen=True)
class LearningTable:
    """A game's encoding for one set of options (see the module's docstring)."""

    game: str
    options: Mapping[str, Any]
    players: int
    actions: Sequence[str]
    shape: tuple[int, ...]
    low: Sequence[float]
    high: Sequence[float]
    play: Callable[[int, Sequence[Any], Sequence[Callable[[Any], Any]]], MatchResult]
    coder: Callable[[], SeatCoder]
    rewards: Callable[[MatchResult, Sequence[str]], list[float]]
    text: Callable[[Any], str]
    deal: Callable[[int, Sequence[str]], Any]
    """``deal(seed, names)``: the referee state the game from ``seed`` starts from (the
    picture until the referee shows one)."""
    strategies: Sequence[str] = field(default_factory=tuple)
    """The built-in strategies that can fill the other seats (default: the game's)."""

    @property
    def size(self) -> int:
        """The number of numbers in an observation."""
        total = 1
        for n in self.shape:
            total *= n
        return total


@dataclass(frozen=True)
class Learning:
    """A game's learning environments: options with defaults, and the table they make."""

    options: Mapping[str, Option]
    make: Callable[..., LearningTable]
    doc: str = ""

    def table(self, game: str, **given: Any) -> LearningTable:
        """The table for ``given`` options (the others at their defaults); OptionError
        names an unknown option or a value the game cannot take."""
        unknown = sorted(set(given) - set(self.options))
        if unknown:
            raise OptionError(f"{game} has no option {unknown[0]!r}; its options are "
                              f"{', '.join(self.options) or 'none'}")
        values: dict[str, Any] = {}
        for name, option in self.options.items():
            value = given.get(name, option.default)
            try:
                values[name] = option.check(value)
            except (TypeError, ValueError) as exc:
                raise OptionError(f"{game} option {name}={value!r}: {exc}") from None
        try:
            return self.make(**values)
        except ValueError as exc:   # options that do not go together
            raise OptionError(f"{game}: {exc}") from None


def integer(low: int, high: int, what: str, odd: bool = False) -> Callable[[Any], int]:
    """An option's check: an integer from ``low`` to ``high`` (odd, if ``odd``)."""
    def check(value: Any) -> int:
        if (not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high
                or (odd and value % 2 == 0)):
            raise ValueError(f"{what} must be an{' odd' if odd else ''} integer from {low} to {high}")
        return value
    return check


def flag(what: str) -> Callable[[Any], bool]:
    """An option's check: true or false."""
    def check(value: Any) -> bool:
        if not isinstance(value, bool):
            raise TypeError(f"{what} must be true or false")
        return value
    return check


def one_of(values: Sequence[Any], what: str) -> Callable[[Any], Any]:
    """An option's check: one of ``values``."""
    def check(value: Any) -> Any:
        if value not in values:
            raise ValueError(f"{what} must be one of {', '.join(map(repr, values))}")
        return value
    return check


def rank_rewards(n: int, ranking: Sequence[Sequence[int]], ejected: Iterable[int]) -> list[float]:
    """Rewards of the ``n`` seats from a ranking (groups of seat indices, best first, as a
    ``MatchResult``'s ``ranking_seats``): each seat gets (seats ranked below it - seats
    ranked above it) / (n - 1), which sums to zero; seats the ranking leaves out come after
    it, and ejected seats last, each with -1 (the least possible). Two players: +1 win, -1
    loss, 0 tie. Seats, not names: two players may share a name."""
    if n < 2:
        return [0.0] * n
    out = set(ejected)
    groups = [[seat for seat in group if seat not in out] for group in ranking]
    groups = [g for g in groups if g]
    ranked = {seat for g in groups for seat in g}
    # Below the game's ranking: the seats it did not rank, then the ejected ones.
    groups.append([seat for seat in range(n) if seat not in ranked and seat not in out])
    groups.append([seat for seat in range(n) if seat in out])
    place: dict[int, int] = {}
    position = 0
    sizes: list[tuple[int, int]] = []
    for g in groups:
        sizes.append((position, len(g)))
        for seat in g:
            place[seat] = len(sizes) - 1
        position += len(g)
    rewards = []
    for seat in range(n):
        start, count = sizes[place[seat]]
        above, below = start, n - start - count
        reward = (below - above) / (n - 1)
        rewards.append(-1.0 if seat in out else reward)
    return rewards
