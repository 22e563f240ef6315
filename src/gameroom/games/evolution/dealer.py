"""The dealer's turn engine (spec 3.1 to 3.5, 4): the game loop, steps 0 to 4, the
feeding cycle with its queue, cleanup and rotation.

The engine is pure: it reaches players only through ``decide(seat, method, *args,
legal=...)`` (``seat`` is what ``PlayerState.seat`` holds), which returns the answer, or
:data:`FAILED` when the call failed or ``legal(answer)`` named a reason (the one who
decides has then recorded the failure). The
checks of ``choose`` and ``feedNext`` answers are the dealer's (:meth:`Dealer.choice_problem`,
:meth:`Dealer.feeding_problem`). A failed player is removed at once and for good, also in
the middle of the feeding cycle. The referee (:mod:`gameroom.games.evolution.referee`)
plugs in ``core.match.Match.decide`` itself; the harnesses plug in direct calls to built-in
players. Arguments handed to players are copies, so no player can change the dealer's
state except through its answers.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from functools import partial
from typing import Any

from gameroom.core.match import FAILED, Legal
from gameroom.core.wire import WireError
from gameroom.games.evolution.actions import Action4, apply_action, validate
from gameroom.games.evolution.codec import as_action4, as_feeding_choice
from gameroom.games.evolution.pieces import CARDS_PER_BOARD, CARDS_PER_PLAYER, Species
from gameroom.games.evolution.rules import Choice, PlayerState, Table, ranking
from gameroom.games.evolution.words import describe_action, describe_feeding

__all__ = ["Dealer", "Decide", "direct_decide"]

logger = logging.getLogger(__name__)

Decide = Callable[..., Any]
"""``decide(seat, method, *args, legal=None)``, as ``core.match.Match.decide``: the answer
once ``legal(answer)`` accepted it, or FAILED (the player failed)."""


def _copy_boards(boards: list[Species]) -> list[Species]:
    return [s.copy() for s in boards]


def direct_decide(player: Any, method: str, *args: Any, legal: Legal | None = None) -> Any:
    """Call a built-in player (what ``PlayerState.seat`` holds) directly; an exception or
    an answer ``legal`` refuses is a failure."""
    try:
        answer = getattr(player, method)(*args)
    except Exception:   # the player's failure is the game's FAILED; its traceback is kept for debugging
        logger.debug("built-in player %s failed in %s", type(player).__name__, method, exc_info=True)
        return FAILED
    return answer if legal is None or legal(answer) is None else FAILED


class Dealer(Table):
    """A game in progress: the table plus the players' answers, turn by turn."""

    def __init__(self, players: list[PlayerState], deck: list, decide: Decide = direct_decide,
                 hole: int = 0, extinction_cards: int = 2) -> None:
        super().__init__(players, hole, deck, extinction_cards)
        self.decide = decide
        self.turn = 0
        # Hooks for traces and observers, each given the dealer: at the start of every turn,
        # right after the feeding phase, and after cleanup (before the rotation).
        self.on_turn: Callable[["Dealer"], None] | None = None
        self.on_fed: Callable[["Dealer"], None] | None = None
        self.on_end: Callable[["Dealer"], None] | None = None
        # And at every step a person would want to see: ``on_step(dealer, kind, player,
        # words)`` after the cards are dealt ("dealt"), each player's card actions
        # ("chose"), pre-feeding ("feeding"), each feeding ("fed") and cleanup ("cleanup");
        # ``words`` says what happened (the describing is done only with the hook set).
        self.on_step: Callable[["Dealer", str, PlayerState | None, str], None] | None = None
        self.actions: list[Action4] = []   # the Action4s that reached step 4 this turn
        self.checked: Any = None   # the parsed form of the answer the last check accepted

    # -- the game ----------------------------------------------------------------------

    def game_over(self) -> bool:
        """Spec 3.2: no player left, or too few cards for the next step 1."""
        need = 0
        for p in self.players:
            need += len(p.boards) * CARDS_PER_BOARD + CARDS_PER_PLAYER
        return not self.players or len(self.deck) < need

    def play(self) -> list[tuple[int, Any, int]]:
        """Turns until the game is over; the ranking of spec 3.9."""
        while not self.game_over():
            self.play_turn()
            if not self.players:
                break
            self.players.append(self.players.pop(0))
        return ranking(self.players)

    def play_turn(self) -> None:
        """Steps 0 to 4 and cleanup of spec 3.3 (the rotation is the game loop's)."""
        self.turn += 1
        if self.on_turn is not None:
            self.on_turn(self)
        players = self.players
        for p in players:
            if not p.boards:
                p.boards.append(Species())
        for p in players:
            self.deal(p, len(p.boards) * CARDS_PER_BOARD + CARDS_PER_PLAYER)
        for p in list(players):
            if self.decide(p.seat, "start", self.hole, p.bag, _copy_boards(p.boards), list(p.cards)) is FAILED:
                self.remove(p)
        step = self.on_step
        if step is not None:
            step(self, "dealt", None, "cards dealt: " + ", ".join(f"{p.id} {len(p.cards)}" for p in self.players))
        chosen = self.choose_all()
        self.actions = [a for _p, a in chosen]
        if self.players:
            for p, action in chosen:
                words = describe_action(action, p.cards) if step is not None else ""
                value = apply_action(action, p.boards, p.cards)[0]
                self.hole = max(0, self.hole + value)
                if step is not None:
                    step(self, "chose", p, words)
            self.feeding_phase()
            if self.on_fed is not None:
                self.on_fed(self)
            self.starve()
            self.fill_bags()
            if step is not None:
                step(self, "cleanup", None,
                     f"turn {self.turn} ends: species shrink to the food they ate, which goes into the bags")
        if self.on_end is not None:
            self.on_end(self)

    def choose_all(self) -> list[tuple[PlayerState, Action4]]:
        """Steps 2 and 3: every player's valid Action4, in turn order."""
        chosen = []
        for p in list(self.players):
            if p not in self.players:
                continue
            i = self.players.index(p)
            before = [_copy_boards(q.boards) for q in self.players[:i]]
            after = [_copy_boards(q.boards) for q in self.players[i + 1:]]
            answer = self.decide(p.seat, "choose", before, after, legal=partial(self.choice_problem, p))
            if answer is FAILED:
                self.remove(p)
            else:
                chosen.append((p, self.checked))
        return chosen

    def choice_problem(self, p: PlayerState, answer: Any) -> str | None:
        """Why ``answer`` is not a valid Action4 for ``p`` (spec 3.4), or None."""
        try:
            self.checked = action = as_action4(answer)
        except WireError as exc:
            return f"ill-formed action: {exc}"
        problem = validate(action, p.boards, p.cards)
        return None if problem is None else f"invalid action: {problem}"

    # -- feeding -----------------------------------------------------------------------

    def feeding_phase(self) -> None:
        """Spec 3.5: pre-feeding, then the feeding cycle."""
        self.pre_feeding()
        if self.on_step is not None:
            self.on_step(self, "feeding", None, f"feeding begins: {self.hole} food in the watering hole")
        self.feeding_cycle()

    def feeding_cycle(self) -> None:
        """FEED1 until the watering hole is empty or nobody in the queue can eat."""
        queue = deque(self.players)
        while self.hole > 0 and queue:
            if not any(self.possibilities(p, self.others(p), 1) for p in queue):
                return
            self.feed1(queue)

    def feed1(self, queue: deque) -> None:
        """One FEED1 (spec 3.5): the first player of the queue feeds (auto, asked, or not at
        all) and moves to the end, or fails and leaves the game."""
        p = queue[0]
        others = self.others(p)
        choice = self.choice_of(p, others)
        if choice is FAILED:
            queue.popleft()
            return
        self.apply_choice(p, others, choice)
        if self.on_step is not None and choice is not None:
            self.on_step(self, "fed", p, describe_feeding(choice, others))
        queue.rotate(-1)

    def choice_of(self, p: PlayerState, others: list[PlayerState]) -> Choice:
        """The player's feeding choice: None (feed none), the single possibility, or its
        answer to ``feedNext``; FAILED (and the player removed) on a failure."""
        if self.hole == 0:
            return None
        found = self.possibilities(p, others, 2)
        if not found:
            return None
        if len(found) == 1:
            return found[0]
        answer = self.decide(p.seat, "feed_next", p.bag, _copy_boards(p.boards), list(p.cards), self.hole,
                             [_copy_boards(o.boards) for o in others], legal=lambda a: self.feeding_problem(p, others, a))
        if answer is FAILED:
            self.remove(p)
            return FAILED
        return self.checked

    def feeding_problem(self, p: PlayerState, others: list[PlayerState], answer: Any) -> str | None:
        """Why ``answer`` is not a possible feeding choice for ``p`` (spec 3.5.1), or None."""
        try:
            self.checked = choice = as_feeding_choice(answer)
        except WireError as exc:
            return f"ill-formed feeding choice: {exc}"
        if choice is False or not self.matches(p, others, choice):
            return f"the feeding choice {answer!r} is not possible"
        return None
