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

A simultaneous round (``core.match.Match.decide_all``) asks the learning seats together:
their callers' ``together`` runs each call in a greenlet of its own, so every seat's call
reaches its coder, and the environment gets every open turn at once (:attr:`Driver.waiting`)
before any answer goes back: the parallel API's step, and the AEC API one seat after the
other, with no answer seen by another seat before the round is revealed.
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
    :meth:`answer`, either ``waiting`` holds the open ``(seat index, Turn)`` decisions
    (several in a simultaneous round; ``pending`` is the first) or ``result`` is set.
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
        self.waiting: list[tuple[int, Turn]] = []
        self._answers: dict[int, Any] = {}
        self.result: MatchResult | None = None
        self.picture: Any = None     # the latest referee state, when watched
        self.caption: str = ""
        self._referee: greenlet | None = None
        self._env: Any = None

    @property
    def pending(self) -> tuple[int, Turn] | None:
        """The first open decision (seat index, Turn), or None."""
        return self.waiting[0] if self.waiting else None

    # -- the environment's side ----------------------------------------------------------

    def start(self, seed: int) -> None:
        """Abandon any game under way and play a new one from ``seed`` up to the first
        decision of a learning seat (or to its end)."""
        self.stop()
        self.result, self.picture, self.caption = None, None, ""
        self.seats = []
        for index, name in enumerate(self.names):
            if index in self.learners:
                player = SeatPlayer(self, index, self.table.coder())
                # Trusted: direct calls without a time limit (the agent may think as long as
                # it likes) and the referee's own objects, unchecked: a coder's answers are
                # built from the game's types.
                self.seats.append(Seat(name, _LearnerCaller(player, self), trusted=True, player=player))
            else:
                assert self.others is not None, "a seat without a learner needs another player"
                self.seats.append(self.others(index, seed))
        observers = [self._observe] if self.watch else []
        if self.watch:
            self.picture, self.caption = self.table.deal(seed, self.names), "the deal"
        table, seats = self.table, self.seats
        self._referee = greenlet(lambda: table.play(seed, seats, observers))
        self._run(())

    def answer(self, value: Any, seat: int | None = None) -> None:
        """Give an open turn's answer (the first one's, or seat ``seat``'s); once every open
        turn has its answer, the referee plays on."""
        assert self.waiting, "no decision is pending"
        at = next((i for i, (index, _turn) in enumerate(self.waiting) if index == seat), 0) if seat is not None else 0
        index, _turn = self.waiting.pop(at)
        self._answers[index] = value
        if not self.waiting:
            answers, self._answers = self._answers, {}
            self._run(answers)

    def refuse(self, error: ForbiddenAction, seat: int | None = None) -> None:
        """Fail an open call with ``error`` (the referee ejects the seat)."""
        self.answer(_Refused(error), seat)

    def act(self, action: int, allowed: bool, seat: int | None = None) -> None:
        """An open seat (the first, or ``seat``) takes sub-action ``action`` (``allowed``:
        whether the turn's mask holds it): an allowed one goes into the turn, which is
        answered once complete; any other goes to the referee as refused (and the seat is
        ejected)."""
        assert self.waiting, "no decision is pending"
        index, turn = next((w for w in self.waiting if w[0] == seat), self.waiting[0]) if seat is not None \
            else self.waiting[0]
        if allowed:
            if turn.choose(action):
                self.answer(turn.answer(), index)
            return
        try:
            answer = turn.refuse(action)
        except ForbiddenAction as error:
            self.refuse(error, index)
            return
        self.answer(answer, index)

    def stop(self) -> None:
        """End the game under way, if any (its referee greenlet unwinds)."""
        referee, self._referee = self._referee, None
        if referee is not None and not referee.dead:
            referee.throw(GreenletExit)
        self.waiting, self._answers = [], {}

    def ejected(self, index: int) -> str | None:
        """The reason seat ``index`` was ejected, or None."""
        return self.seats[index].ejected if index < len(self.seats) else None

    def _run(self, value: Any) -> None:
        """Switch into the referee (with ``value``, the answers it waits for by seat;
        ``()`` to start it) until it asks learners or ends."""
        referee = self._referee
        assert referee is not None
        referee.parent = getcurrent()
        outcome = referee.switch() if value == () else referee.switch(value)
        if referee.dead:
            self._referee = None
            self.result = outcome
        else:
            self.waiting = list(outcome)

    # -- the referee's side --------------------------------------------------------------

    def suspend(self, index: int, turn: Turn) -> Any:
        """Called in the referee's greenlet (or a round's call greenlet): hand the turn to
        the environment (through the round, if any) and wait for the answers; its own."""
        return getcurrent().parent.switch([(index, turn)])[index]

    def together(self, calls: Sequence[Callable[[], Any]]) -> list[Any]:
        """A simultaneous round's calls to learning seats (``core.calls``'s ``together``),
        in the referee's greenlet: each call runs in a greenlet of its own until it
        suspends at its turn; the environment gets every open turn at once, and once all
        are answered each call goes on with its answer."""
        results: list[Any] = [None] * len(calls)
        suspended: dict[int, greenlet] = {}
        opened: list[tuple[int, Turn]] = []
        for at, call in enumerate(calls):
            runner = greenlet(lambda call=call: ("done", call()))
            outcome = runner.switch()
            if runner.dead:
                results[at] = outcome[1]
            else:
                suspended[at] = runner
                opened += outcome
        if suspended:
            answers = getcurrent().parent.switch(opened)
            for at, runner in suspended.items():
                outcome = runner.switch(answers)
                while not runner.dead:   # a call that asks again (never within one decision): pass it on
                    outcome = runner.switch(getcurrent().parent.switch(outcome))
                results[at] = outcome[1]
        return results

    def _observe(self, event: Event) -> None:
        if event.kind == STATE and event.subject is not None:
            self.picture = event.subject
            self.caption = event.get("caption") or ""


class _LearnerCaller:
    """A learning seat's caller: a direct call (no thread, no limit: the agent may think
    as long as it likes), and the driver's way of asking such seats together."""

    def __init__(self, player: SeatPlayer, driver: Driver) -> None:
        self._call: Caller = direct_caller(player)
        self.together = driver.together

    def __call__(self, method: str, args: tuple[Any, ...], limit: float | None) -> Any:
        return self._call(method, args, limit)
