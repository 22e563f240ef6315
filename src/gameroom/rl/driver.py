"""The game's real referee, run so that an environment can push actions into it.

A referee *pulls* decisions: it calls a player and waits for the answer. PettingZoo and
Gymnasium *push* them: ``step(action)``. :class:`Driver` inverts control by running the
referee (the table's ``play``) in a greenlet: a learning seat's player is a
:class:`SeatPlayer` whose every call goes to the seat's coder; when the call asks the seat
to decide, the player switches back to the environment with the open :class:`Turn`, and
the environment switches into the referee again with the answer once the agent has
chosen its sub-actions. Built-in opponents (trusted seats) and any other seat run inside
the referee's greenlet as they always do. A greenlet switch costs about a microsecond;
a thread hand-off costs tens (see ``docs/ARCHITECTURE.md``, "Learning environments").

A sub-action the turn does not allow goes to the referee as the answer the agent asked for
(``Turn.refuse``) or, when the game's answer cannot carry it, as a ForbiddenAction raised
in the call: the referee ejects the seat as it ejects any player.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from greenlet import GreenletExit, getcurrent, greenlet

from gameroom.core.calls import Caller, direct_caller
from gameroom.core.learning import (
    Answer,
    ForbiddenAction,
    LearningTable,
    SeatCoder,
    Turn,
)
from gameroom.core.match import Seat
from gameroom.core.record import STATE, Event, MatchResult
from gameroom.games import registry

__all__ = ["Driver", "SeatPlayer"]


class _Refused:
    """Sent into the referee instead of an answer: raise this ForbiddenAction there."""

    __slots__ = ("error",)

    def __init__(self, error: ForbiddenAction) -> None:
        self.error = error


class SeatPlayer:
    """The player of a learning seat: any method the referee calls goes to the coder; a
    decision suspends the referee until the environment answers."""

    def __init__(self, driver: Driver, index: int, coder: SeatCoder) -> None:
        self._driver = driver
        self._index = index
        self._coder = coder

    def __getattr__(self, method: str) -> Callable[..., Any]:
        # Only the game's interface: a referee that looks for optional extensions (Fish's
        # query desk) must not find them here.
        if method not in self._driver.methods:
            raise AttributeError(method)
        driver, index, coder = self._driver, self._index, self._coder

        def call(*args: Any) -> Any:
            turn = coder.turn(method, args)
            if turn is None:
                return None
            if isinstance(turn, Answer):
                return turn.value
            answer = driver.suspend(index, turn)
            if type(answer) is _Refused:
                raise answer.error
            return answer

        return call

    def name(self) -> str:   # Q's and Eriantys's interfaces ask players their name
        return self._driver.names[self._index]


class Driver:
    """One game of a table at a time: the referee in a greenlet, learning seats that
    suspend it at their decisions, the result at the end.

    ``learners`` are the seat indices whose decisions the environment takes; every other
    seat is ``others[index]`` (a ``core.match.Seat``). After :meth:`start` and after each
    :meth:`answer`, either ``pending`` is ``(seat index, Turn)`` or ``result`` is set.
    """

    def __init__(self, table: LearningTable, names: Sequence[str], learners: Sequence[int],
                 others: Callable[[int, int], Seat] | None = None, watch: bool = False) -> None:
        self.table = table
        self.methods = frozenset(m.name for m in registry.game(table.game).protocol.methods)
        self.names = list(names)
        self.learners = list(learners)
        self.others = others
        self.watch = watch
        self.seats: list[Seat] = []
        self.pending: tuple[int, Turn] | None = None
        self.result: MatchResult | None = None
        self.picture: Any = None     # the latest referee state, when watched
        self.caption: str = ""
        self._referee: greenlet | None = None
        self._env: Any = None

    # -- the environment's side ----------------------------------------------------------

    def start(self, seed: int) -> None:
        """Abandon any game under way and play a new one from ``seed`` up to the first
        decision of a learning seat (or to its end)."""
        self.stop()
        self.pending, self.result, self.picture, self.caption = None, None, None, ""
        self.seats = []
        for index, name in enumerate(self.names):
            if index in self.learners:
                player = SeatPlayer(self, index, self.table.coder())
                # Trusted: direct calls without a time limit (the agent may think as long as
                # it likes) and the referee's own objects, unchecked: a coder's answers are
                # built from the game's types.
                self.seats.append(Seat(name, _direct(player), trusted=True, player=player))
            else:
                assert self.others is not None, "a seat without a learner needs another player"
                self.seats.append(self.others(index, seed))
        observers = [self._observe] if self.watch else []
        if self.watch:
            self.picture, self.caption = self.table.deal(seed, self.names), "the deal"
        table, seats = self.table, self.seats
        self._referee = greenlet(lambda: table.play(seed, seats, observers))
        self._run(())

    def answer(self, value: Any) -> None:
        """Give the pending turn's answer to the referee and play on."""
        assert self.pending is not None, "no decision is pending"
        self.pending = None
        self._run(value)

    def refuse(self, error: ForbiddenAction) -> None:
        """Fail the pending call with ``error`` (the referee ejects the seat) and play on."""
        self.answer(_Refused(error))

    def act(self, action: int, allowed: bool) -> None:
        """The pending seat takes sub-action ``action`` (``allowed``: whether the turn's
        mask holds it): an allowed one goes into the turn, and the referee plays on once
        the turn is complete; any other goes to the referee as refused (and the seat is
        ejected)."""
        assert self.pending is not None, "no decision is pending"
        turn = self.pending[1]
        if allowed:
            if turn.choose(action):
                self.answer(turn.answer())
            return
        try:
            answer = turn.refuse(action)
        except ForbiddenAction as error:
            self.refuse(error)
            return
        self.answer(answer)

    def stop(self) -> None:
        """End the game under way, if any (its referee greenlet unwinds)."""
        referee, self._referee = self._referee, None
        if referee is not None and not referee.dead:
            referee.throw(GreenletExit)
        self.pending = None

    def ejected(self, index: int) -> str | None:
        """The reason seat ``index`` was ejected, or None."""
        return self.seats[index].ejected if index < len(self.seats) else None

    def _run(self, value: Any) -> None:
        """Switch into the referee (with ``value``, the answer it waits for; ``()`` to
        start it) until it asks a learner or ends."""
        referee = self._referee
        assert referee is not None
        referee.parent = getcurrent()
        outcome = referee.switch() if value == () else referee.switch(value)
        if referee.dead:
            self._referee = None
            self.result = outcome
        else:
            self.pending = outcome

    # -- the referee's side --------------------------------------------------------------

    def suspend(self, index: int, turn: Turn) -> Any:
        """Called in the referee's greenlet: hand the turn to the environment and wait
        for its answer."""
        return getcurrent().parent.switch((index, turn))

    def _observe(self, event: Event) -> None:
        if event.kind == STATE and event.subject is not None:
            self.picture = event.subject
            self.caption = event.get("caption") or ""


def _direct(player: SeatPlayer) -> Caller:
    return direct_caller(player)
