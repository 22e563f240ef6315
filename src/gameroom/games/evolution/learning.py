"""Evolution for learning agents: the encoding behind ``gameroom.rl`` (``core.learning``).

Options: ``players`` (3-8, default 3), ``boards`` (species boards a seat can see and
address per player, 2-12, default 6) and ``hand`` (cards of the hand it can see and use,
4-30, default 16). The game is the descriptor's: the deck shuffled by the seed, played by
Evolution's own dealer. Boards and cards beyond those numbers exist in the game but the
encoding neither shows nor names them.

**Actions** (H = hand, B = boards, O = players - 1):

* ``choose`` — one card use per sub-action, then ``done``: ``food c`` (the food card; H),
  ``grow population of board b with card c`` (B x H), ``grow body ...`` (B x H), ``new board
  paid with card c`` (H), ``trait card c on the new board`` (H: right after the new board's
  payment or its earlier trait cards), ``replace trait i of board b with card c`` (B x 3 x
  H), ``done``. Board b counts the boards of this Action4's new boards too, as spec 3.4
  does. Legal: exactly what spec 3.4's validity rules accept (each card once, growth
  within 7, distinct traits, ...); ``done`` once a food card is chosen.
* ``feedNext`` — one sub-action: ``feed board i`` (B), ``store n fat food on board i``
  (B x 7), ``board c attacks board a of opponent k`` (B x O x B, opponents in the
  attackable order of the call). Legal: the feeding possibilities of spec 3.5.

A seat with no card at ``choose`` answers an Action4 the dealer refuses (none is valid
without a food card); a ``feedNext`` none of whose possibilities the encoding can name
(boards beyond ``boards``) is answered with the first possibility, as the dealer itself
does for a single one. A refused choice goes to the dealer as the Action4 or feeding choice it makes (the dealer
rejects it); one Evolution's answers cannot say (a second food card, ``done`` without one,
a trait card not right after its new board, any card use before the food card is chosen,
a feeding choice while choosing and the reverse) fails the call.

**Observation** (a vector), each board as 53 numbers (present; food, body, population, fat
food / 7; its three trait positions one-hot over the 16 traits): one's own B boards *as
the choices of this Action4 so far leave them*; the H cards of the hand ((value + 8) / 16,
trait one-hot, used by this Action4); the other players' B boards each, in attackable
order (the players after oneself, then those before); the watering hole and one's bag /
20; feeding (vs. choosing); a food card chosen. Only what ``start``, ``choose`` and
``feedNext`` give the seat: other hands and bags never appear.

**Rewards** at the end: ``core.learning.rank_rewards`` of the final scores (equal scores
tie; a removed player ranks last, -1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gameroom.core.context import MatchContext
from gameroom.core.learning import (
    Answer,
    ForbiddenAction,
    Learning,
    LearningTable,
    Option,
    integer,
    rank_rewards,
)
from gameroom.core.match import ranking_by_score
from gameroom.core.record import MatchResult
from gameroom.games.evolution.actions import Action4
from gameroom.games.evolution.pieces import (
    MAX_BODY,
    MAX_POPULATION,
    MAX_TRAITS,
    TRAITS,
    Card,
    Species,
    shuffled_deck,
)
from gameroom.games.evolution.referee import run_game
from gameroom.games.evolution.rules import PlayerState, Table, player_id

__all__ = ["LEARNING"]

TRAIT_INDEX = {t: i for i, t in enumerate(TRAITS)}
BOARD = 5 + MAX_TRAITS * len(TRAITS)
"""Numbers per board."""
SCALE = 20.0
FAT = MAX_BODY


class _Layout:
    """Where each kind of action starts in the catalogue."""

    def __init__(self, players: int, boards: int, hand: int) -> None:
        self.players, self.boards, self.hand = players, boards, hand
        self.others = players - 1
        self.food = 0
        self.grow_population = hand
        self.grow_body = self.grow_population + boards * hand
        self.new = self.grow_body + boards * hand
        self.trait = self.new + hand
        self.replace = self.trait + hand
        self.done = self.replace + boards * MAX_TRAITS * hand
        self.feed = self.done + 1
        self.fat = self.feed + boards
        self.attack = self.fat + boards * FAT
        self.size = self.attack + boards * self.others * boards

    def label(self, a: int) -> str:
        h, b = self.hand, self.boards
        if a < self.grow_population:
            return f"food card {a}"
        if a < self.grow_body:
            board, card = divmod(a - self.grow_population, h)
            return f"grow population of board {board} with card {card}"
        if a < self.new:
            board, card = divmod(a - self.grow_body, h)
            return f"grow body of board {board} with card {card}"
        if a < self.trait:
            return f"new board paid with card {a - self.new}"
        if a < self.replace:
            return f"trait card {a - self.trait} on the new board"
        if a < self.done:
            rest, card = divmod(a - self.replace, h)
            board, position = divmod(rest, MAX_TRAITS)
            return f"replace trait {position} of board {board} with card {card}"
        if a == self.done:
            return "done"
        if a < self.fat:
            return f"feed board {a - self.feed}"
        if a < self.attack:
            board, n = divmod(a - self.fat, FAT)
            return f"store {n + 1} fat food on board {board}"
        rest, target = divmod(a - self.attack, b)
        board, k = divmod(rest, self.others)
        return f"board {board} attacks board {target} of opponent {k}"


class _Choose:
    """One ``choose``: card uses, then done."""

    def __init__(self, coder: _Coder, others: list[list[Species]]) -> None:
        self.coder = coder
        self.others = others
        self.boards = coder.boards
        self.cards = coder.cards
        self.food: int | None = None
        self.gp: list[tuple[int, int]] = []
        self.gb: list[tuple[int, int]] = []
        self.bt: list[list[int]] = []
        self.rt: list[tuple[int, int, int]] = []
        self.used: set[int] = set()
        self.last_new = False     # the last sub-action paid for a new board or added a trait to it

    def action(self, food: int | None = None) -> Action4:
        """The Action4 so far (with ``food`` as its food card when one is given)."""
        chosen = self.food if food is None else food
        assert chosen is not None, "an Action4 has a food card"
        return Action4(chosen, tuple(self.gp), tuple(self.gb), tuple(tuple(bt) for bt in self.bt), tuple(self.rt))

    def _traits(self, b: int) -> list[str]:
        """Board b's traits before any replacement (a new board: its trait cards')."""
        existing = len(self.boards)
        if b < existing:
            return self.boards[b].traits
        return [self.cards[c][1] for c in self.bt[b - existing][1:]]

    def observation(self) -> list[float]:
        return self.coder.encode(self.planned(), self.cards, self.used, self.others, self.coder.hole,
                                 self.coder.bag, feeding=False, food=self.food is not None)

    def planned(self) -> list[Species]:
        """One's boards as this Action4 so far would leave them (spec 3.4's application)."""
        cards = self.cards
        boards = [s.copy() for s in self.boards]
        boards += [Species(0, 0, 1, [cards[c][1] for c in bt[1:]]) for bt in self.bt]
        for b, i, c in self.rt:
            boards[b].traits[i] = cards[c][1]
        for b, _c in self.gp:
            boards[b].population = min(MAX_POPULATION, boards[b].population + 1)
        for b, _c in self.gb:
            boards[b].body += 1
        return boards

    def legal(self) -> list[int]:
        layout, cards, used = self.coder.layout, self.cards, self.used
        h, nb = layout.hand, layout.boards
        free = [c for c in range(min(h, len(cards))) if c not in used]
        out: list[int] = []
        if self.food is None:
            out += [layout.food + c for c in free]
            if len(free) < 2:    # the last free card must stay for the food card
                return out
        existing = len(self.boards)
        total = min(existing + len(self.bt), nb)
        for b in range(total):
            base_pop = self.boards[b].population if b < existing else 1
            base_body = self.boards[b].body if b < existing else 1
            if base_pop + 1 + sum(1 for x, _c in self.gp if x == b) <= MAX_POPULATION:
                out += [layout.grow_population + b * h + c for c in free]
            if base_body + 1 + sum(1 for x, _c in self.gb if x == b) <= MAX_BODY:
                out += [layout.grow_body + b * h + c for c in free]
        out += [layout.new + c for c in free]
        if self.last_new and len(self.bt[-1]) - 1 < MAX_TRAITS:
            present = {cards[c][1] for c in self.bt[-1][1:]}
            out += [layout.trait + c for c in free if cards[c][1] not in present]
        for b in range(total):
            traits = self._traits(b)
            for i in range(len(traits)):
                others = traits[:i] + traits[i + 1:]
                if len(set(others)) < len(others):
                    # Two replacements of one turn may leave a board with a duplicate trait
                    # (spec 3.4's quirk); its other traits must still be pairwise distinct,
                    # so only a replacement of one of the two can be legal.
                    continue
                base = layout.replace + (b * MAX_TRAITS + i) * h
                out += [base + c for c in free if cards[c][1] not in others]
        if self.food is not None:
            out.append(layout.done)
        return out

    def choose(self, a: int) -> bool:
        layout = self.coder.layout
        h = layout.hand
        new = False
        if a == layout.done:
            return True
        if a < layout.grow_population:
            self.food = a
            self.used.add(a)
        elif a < layout.grow_body:
            b, c = divmod(a - layout.grow_population, h)
            self.gp.append((b, c))
            self.used.add(c)
        elif a < layout.new:
            b, c = divmod(a - layout.grow_body, h)
            self.gb.append((b, c))
            self.used.add(c)
        elif a < layout.trait:
            self.bt.append([a - layout.new])
            self.used.add(a - layout.new)
            new = True
        elif a < layout.replace:
            self.bt[-1].append(a - layout.trait)
            self.used.add(a - layout.trait)
            new = True
        else:
            rest, c = divmod(a - layout.replace, h)
            b, i = divmod(rest, MAX_TRAITS)
            self.rt.append((b, i, c))
            self.used.add(c)
        self.last_new = new
        return False

    def answer(self) -> Any:
        return self.action()

    def refuse(self, a: int) -> Any:
        layout = self.coder.layout
        h = layout.hand
        if a >= layout.feed:
            raise ForbiddenAction(f"{layout.label(a)} while choosing card actions")
        if a == layout.done:
            raise ForbiddenAction("done before choosing a food card")
        if a < layout.grow_population:
            if self.food is not None:
                raise ForbiddenAction("a second food card")
            return self.action(food=a)
        if self.food is None:
            raise ForbiddenAction(f"{layout.label(a)} before choosing a food card")
        if a < layout.grow_body:
            b, c = divmod(a - layout.grow_population, h)
            self.gp.append((b, c))
        elif a < layout.new:
            b, c = divmod(a - layout.grow_body, h)
            self.gb.append((b, c))
        elif a < layout.trait:
            self.bt.append([a - layout.new])
        elif a < layout.replace:
            if not self.last_new:
                raise ForbiddenAction("a trait card not right after its new board")
            self.bt[-1].append(a - layout.trait)
        else:
            rest, c = divmod(a - layout.replace, h)
            b, i = divmod(rest, MAX_TRAITS)
            self.rt.append((b, i, c))
        return self.action()


class _Feed:
    """One ``feedNext``: one feeding choice."""

    def __init__(self, coder: _Coder, bag: int, boards: list[Species], cards: list[Card], hole: int,
                 others: list[list[Species]]) -> None:
        self.coder = coder
        self.bag, self.boards, self.cards, self.hole, self.others = bag, boards, cards, hole, others
        self.choice: Any = None

    def observation(self) -> list[float]:
        return self.coder.encode(self.boards, self.cards, set(), self.others, self.hole, self.bag,
                                 feeding=True, food=False)

    def legal(self) -> list[int]:
        layout = self.coder.layout
        nb, o = layout.boards, layout.others
        me = PlayerState("me", self.boards)
        rivals = [PlayerState(k, row) for k, row in enumerate(self.others)]
        out: list[int] = []
        for choice in Table([], self.hole).possibilities(me, rivals):
            if isinstance(choice, int):
                if choice < nb:
                    out.append(layout.feed + choice)
            elif len(choice) == 2:
                i, need = choice
                if i < nb:
                    out += [layout.fat + i * FAT + n - 1 for n in range(1, min(need, FAT) + 1)]
            else:
                c, k, a = choice
                if c < nb and k < o and a < nb:
                    out.append(layout.attack + (c * o + k) * nb + a)
        return out

    def choose(self, a: int) -> bool:
        self.choice = self._choice(a)
        return True

    def first(self) -> Any:
        """The first feeding possibility (spec 3.5's order)."""
        me = PlayerState("me", self.boards)
        rivals = [PlayerState(k, row) for k, row in enumerate(self.others)]
        return Table([], self.hole).possibilities(me, rivals, 1)[0]

    def _choice(self, a: int) -> Any:
        layout = self.coder.layout
        nb, o = layout.boards, layout.others
        if a < layout.fat:
            return a - layout.feed
        if a < layout.attack:
            i, n = divmod(a - layout.fat, FAT)
            return (i, n + 1)
        rest, target = divmod(a - layout.attack, nb)
        c, k = divmod(rest, o)
        return (c, k, target)

    def answer(self) -> Any:
        return self.choice

    def refuse(self, a: int) -> Any:
        if a < self.coder.layout.feed:
            raise ForbiddenAction(f"{self.coder.layout.label(a)} while feeding")
        return self._choice(a)


class _Coder:
    """One seat: ``start`` tells it its hand, boards, bag and the watering hole."""

    def __init__(self, layout: _Layout) -> None:
        self.layout = layout
        self.hole, self.bag = 0, 0
        self.boards: list[Species] = []
        self.cards: list[Card] = []

    def turn(self, method: str, args: tuple[Any, ...]) -> Any:
        if method == "start":
            self.hole, self.bag, self.boards, self.cards = args[0], args[1], list(args[2]), list(args[3])
            return None
        if method == "choose":
            before, after = args
            if len(before) + len(after) + 1 > self.layout.players:
                raise ValueError(f"this encoding is for {self.layout.players} players, "
                                 f"the game has {len(before) + len(after) + 1}")
            if not self.cards:   # no food card to give: no Action4 is valid, the dealer refuses this one
                return Answer(Action4(0))
            return _Choose(self, list(after) + list(before))
        if method == "feed_next":
            bag, boards, cards, hole, others = args
            feed = _Feed(self, bag, list(boards), list(cards), hole, list(others))
            legal = feed.legal()
            if not legal:   # every possibility is beyond the encoding's boards: the first one
                return Answer(feed.first())
            return feed
        return None

    def encode(self, boards: Sequence[Species], cards: Sequence[Card], used: set[int],
               others: Sequence[Sequence[Species]], hole: int, bag: int, feeding: bool, food: bool) -> list[float]:
        layout = self.layout
        values: list[float] = []
        _boards(values, boards, layout.boards)
        for c in range(layout.hand):
            card = [0.0] * (2 + len(TRAITS))
            if c < len(cards):
                value, trait = cards[c]
                card[0] = (value + 8) / 16
                card[1 + TRAIT_INDEX[trait]] = 1.0
                card[-1] = 1.0 if c in used else 0.0
            values += card
        for k in range(layout.others):
            _boards(values, others[k] if k < len(others) else (), layout.boards)
        values += [hole / SCALE, bag / SCALE, 1.0 if feeding else 0.0, 1.0 if food else 0.0]
        return values


def _boards(values: list[float], boards: Sequence[Species], count: int) -> None:
    for b in range(count):
        board = [0.0] * BOARD
        if b < len(boards):
            s = boards[b]
            board[0] = 1.0
            board[1], board[2], board[3], board[4] = s.food / 7, s.body / 7, s.population / 7, s.fat / 7
            for i, trait in enumerate(s.traits[:MAX_TRAITS]):
                board[5 + i * len(TRAITS) + TRAIT_INDEX[trait]] = 1.0
        values += board


def _text(table: Table) -> str:
    """Each player's id, bag, hand size and boards (population/body/food, fat, traits),
    the watering hole and the deck."""
    lines = [f"watering hole {table.hole}, deck {len(table.deck)} cards"]
    for p in table.players:
        boards = "; ".join(f"p{s.population} b{s.body} f{s.food}" + (f" fat{s.fat}" if s.fat else "")
                           + (f" {','.join(s.traits)}" if s.traits else "") for s in p.boards)
        lines.append(f"{p.id}: bag {p.bag}, {len(p.cards)} cards | {boards or 'no boards'}")
    return "\n".join(lines)


def _make(players: int, boards: int, hand: int) -> LearningTable:
    layout = _Layout(players, boards, hand)
    size = BOARD * boards * players + (2 + len(TRAITS)) * hand + 4

    def deal(seed: int, names: Sequence[str]) -> Table:
        return Table([PlayerState(player_id(name, i)) for i, name in enumerate(names)], 0, shuffled_deck(seed))

    def play(seed: int, seats: Sequence[Any], observers: Sequence[Any]) -> MatchResult:
        return run_game(seats, shuffled_deck(seed), MatchContext(observers=observers))

    def rewards(result: MatchResult, names: Sequence[str]) -> list[float]:
        scores = {seat: result.seat_scores[seat] for seat in range(len(names)) if seat in result.seat_scores}
        return rank_rewards(len(names), ranking_by_score(scores), result.misbehaved_seats)

    high = [1.0] * (size - 4) + [10_000.0, 10_000.0, 1.0, 1.0]
    return LearningTable(
        game="evolution", options={"players": players, "boards": boards, "hand": hand}, players=players,
        actions=tuple(layout.label(a) for a in range(layout.size)), shape=(size,), low=[0.0] * size, high=high,
        play=play, coder=lambda: _Coder(layout), rewards=rewards, text=_text, deal=deal, strategies=("silly", "silly-need"))


LEARNING = Learning(
    options={
        "players": Option(3, integer(3, 8, "players"), "players at the table"),
        "boards": Option(6, integer(2, 12, "boards"), "species boards per player a seat sees and addresses"),
        "hand": Option(16, integer(4, 30, "hand"), "cards of the hand a seat sees and uses"),
    },
    make=_make,
    doc=__doc__ or "",
)
