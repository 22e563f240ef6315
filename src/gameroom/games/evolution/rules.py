"""Evolution's rules on the dealer's state (spec 3.3 cleanup, 3.5 to 3.9): attackability,
feeding a species with foraging and cooperation, feeding possibilities, the attack
sequence with horns and scavengers, extinction and its cards, pre-feeding, starvation,
scoring and ranking.

:class:`Table` is the dealer's authoritative state (players in turn order, watering hole,
deck) and mutates in place: the feeding cycle runs thousands of tiny updates per game, so
nothing is copied on the hot path. Asking players is not done here (see :mod:`dealer`).

Feeding choices are kept in their wire shapes, which also makes them hashable: an ``int``
``i`` (vegetarian board i), a pair ``(i, n)`` (store n fat tokens on board i) and a triple
``(c, k, a)`` (board c attacks board a of ``others[k]``); ``None`` is "feed none".
"""

from __future__ import annotations

from typing import Any, Iterator, Optional, Sequence

from gameroom.games.evolution.pieces import (AMBUSH, BURROWING, CARNIVORE, CLIMBING, COOPERATION,
                                             EXTINCTION_CARDS, FAT_TISSUE, FERTILE, FORAGING,
                                             HARD_SHELL, HARD_SHELL_ATTACK, HERDING, HORNS, LONG_NECK,
                                             MAX_POPULATION, PACK_HUNTING, SCAVENGER, WARNING_CALL,
                                             Card, Species)

__all__ = ["PlayerState", "Table", "attackable", "body_value", "population_value", "Choice",
           "ranking", "score", "player_id"]

Choice = Any   # int | tuple[int, int] | tuple[int, int, int] | None


class PlayerState:
    """What the dealer knows of one player (spec 2.4); ``seat`` is whatever the dealer
    uses to reach the player (opaque here)."""

    __slots__ = ("id", "boards", "bag", "cards", "seat")

    def __init__(self, id: Any, boards: list[Species] | None = None, bag: int = 0,
                 cards: list[Card] | None = None, seat: Any = None) -> None:
        self.id = id
        self.boards = boards if boards is not None else []
        self.bag = bag
        self.cards = cards if cards is not None else []
        self.seat = seat

    def __repr__(self) -> str:
        return f"PlayerState({self.id!r}, boards={self.boards!r}, bag={self.bag}, cards={self.cards!r})"


def body_value(s: Species) -> int:
    """BODY# (spec 3.7): hard-shell adds 4; otherwise a pack-hunting carnivore adds its
    population; otherwise the body."""
    t = s.traits
    if HARD_SHELL in t:
        return s.body + HARD_SHELL_ATTACK
    if PACK_HUNTING in t and CARNIVORE in t:
        return s.body + s.population
    return s.body


def population_value(s: Species) -> int:
    """POP# (spec 3.7): body + population for any pack-hunting species."""
    return s.body + s.population if PACK_HUNTING in s.traits else s.population


def attackable(defender: Species, attacker: Species, left: Optional[Species], right: Optional[Species]) -> bool:
    """ATTACKABLE of spec 3.7, checks in the spec's order; the first that applies decides.

    ``symbiosis`` is deliberately ignored (the reference's code, spec 11 item 3); a switch
    for the course prose would go here, between checks 3 and 4.
    """
    if ((left is not None and WARNING_CALL in left.traits) or
            (right is not None and WARNING_CALL in right.traits)) and AMBUSH not in attacker.traits:
        return False
    d = defender.traits
    if not d:
        return True
    if BURROWING in d and defender.food == defender.population:
        return False
    if CLIMBING in d and CLIMBING not in attacker.traits:
        return False
    if HERDING in d and population_value(attacker) <= population_value(defender):
        return False
    if HARD_SHELL in d and body_value(attacker) <= body_value(defender):
        return False
    return True


def targets_in_row(attacker: Species, row: Sequence[Species]) -> Iterator[int]:
    """Indexes of the boards of one row the attacker may attack, in descending order."""
    last = len(row) - 1
    for a in range(last, -1, -1):
        if attackable(row[a], attacker, row[a - 1] if a > 0 else None, row[a + 1] if a < last else None):
            yield a


def score(player: PlayerState) -> int:
    """Spec 3.9: bag + number of boards + number of trait cards on them."""
    return player.bag + len(player.boards) + sum(len(s.traits) for s in player.boards)


def player_id(name: str, seat: int) -> str:
    """The id of the player named ``name`` at position ``seat`` (0-based) of the dealer's
    list: ``"<name>#<seat+1>"`` (spec 3.1). Ids are for the spec's reports; the seat is the
    player's identity."""
    return f"{name}#{seat + 1}"


def ranking(players: Sequence[PlayerState]) -> list[tuple[int, Any, int]]:
    """``(rank, id, score)`` per player: the final turn order reversed, then sorted stably
    by score, highest first (spec 3.9)."""
    scored = sorted(((score(p), p) for p in reversed(players)), key=lambda sp: -sp[0])
    return [(i + 1, p.id, s) for i, (s, p) in enumerate(scored)]


class Table:
    """The dealer's state (spec 2.5) and every rule that changes it without asking anyone."""

    def __init__(self, players: list[PlayerState], hole: int = 0, deck: list[Card] | None = None,
                 extinction_cards: int = EXTINCTION_CARDS, over: bool = False) -> None:
        self.players = players
        self.hole = hole
        self.deck = deck if deck is not None else []
        self.extinction_cards = extinction_cards
        self.over = over   # the game has ended: the scores (bags) are public

    # -- cards -----------------------------------------------------------------------

    def deal(self, player: PlayerState, n: int) -> None:
        """Up to n cards from the front of the deck, put in front of the hand."""
        if n <= 0 or not self.deck:
            return
        dealt = self.deck[:n]
        del self.deck[:n]
        player.cards[:0] = dealt

    def lose_animal(self, player: PlayerState, i: int) -> bool:
        """Board i loses one animal; true if it went extinct (removed, cards handed out)."""
        s = player.boards[i]
        s.population -= 1
        if s.food > s.population:
            s.food = s.population
        if s.population > 0:
            return False
        del player.boards[i]
        self.deal(player, self.extinction_cards)
        return True

    # -- turn order ------------------------------------------------------------------

    def others(self, player: PlayerState) -> list[PlayerState]:
        """The players after `player` in turn order, then those before it (attackable order)."""
        players = self.players
        i = players.index(player)
        return players[i + 1:] + players[:i]

    def remove(self, player: PlayerState) -> None:
        """A misbehaving player leaves for good: its boards vanish, its cards are not returned."""
        if player in self.players:
            self.players.remove(player)

    # -- feeding ---------------------------------------------------------------------

    def feed_species(self, boards: list[Species], s: int) -> None:
        """FEED-SPECIES of spec 3.6: one token (two with foraging), each token taken making
        a cooperating species' right neighbour eat, depth first."""
        b = boards[s]
        if self.hole == 0 or b.food >= b.population:
            return
        self.hole -= 1
        b.food += 1
        traits = b.traits
        if not traits:
            return
        neighbour = s + 1 if COOPERATION in traits and s + 1 < len(boards) else -1
        if FORAGING in traits and self.hole > 0 and b.food < b.population:
            self.hole -= 1
            b.food += 1
            if neighbour >= 0:
                self.feed_species(boards, neighbour)
        if neighbour >= 0:
            self.feed_species(boards, neighbour)

    def pre_feeding(self) -> None:
        """Spec 3.5: fertile, then long-neck, then fat tissue, each over all players."""
        for p in self.players:
            for s in p.boards:
                if FERTILE in s.traits and s.population < MAX_POPULATION:
                    s.population += 1
        for p in self.players:
            boards = p.boards
            for i, s in enumerate(boards):
                if LONG_NECK in s.traits:
                    self.feed_species(boards, i)
        for p in self.players:
            for s in p.boards:
                if FAT_TISSUE in s.traits:
                    moved = min(s.population - s.food, s.fat)
                    if moved > 0:
                        s.fat -= moved
                        s.food += moved

    def possibilities(self, player: PlayerState, others: Sequence[PlayerState], limit: int = 0) -> list[Choice]:
        """The feeding possibilities of spec 3.5 in the spec's order; with ``limit`` > 0 the
        search stops once that many are found (deciding "none / exactly one / more")."""
        found: list[Choice] = []
        boards = player.boards
        for i, s in enumerate(boards):
            if s.food < s.population and CARNIVORE not in s.traits:
                found.append(i)
                if len(found) == limit:
                    return found
        for i, s in enumerate(boards):
            if FAT_TISSUE in s.traits and s.body > s.fat:
                found.append((i, s.body - s.fat))
                if len(found) == limit:
                    return found
        for c, s in enumerate(boards):
            if s.food < s.population and CARNIVORE in s.traits:
                for k, other in enumerate(others):
                    for a in targets_in_row(s, other.boards):
                        found.append((c, k, a))
                        if len(found) == limit:
                            return found
        return found

    def matches(self, player: PlayerState, others: Sequence[PlayerState], choice: Choice) -> bool:
        """Whether an answer matches one of the player's possibilities (spec 3.5)."""
        boards = player.boards
        if isinstance(choice, int) and not isinstance(choice, bool):
            return 0 <= choice < len(boards) and boards[choice].hungry and CARNIVORE not in boards[choice].traits
        if not isinstance(choice, tuple):
            return False
        if len(choice) == 2:
            i, n = choice
            if not 0 <= i < len(boards):
                return False
            s = boards[i]
            return FAT_TISSUE in s.traits and 1 <= n <= s.body - s.fat
        if len(choice) == 3:
            c, k, a = choice
            if not (0 <= c < len(boards) and 0 <= k < len(others)):
                return False
            s = boards[c]
            row = others[k].boards
            if not (s.hungry and CARNIVORE in s.traits and 0 <= a < len(row)):
                return False
            return attackable(row[a], s, row[a - 1] if a > 0 else None, row[a + 1] if a + 1 < len(row) else None)
        return False

    def apply_choice(self, player: PlayerState, others: Sequence[PlayerState], choice: Choice) -> None:
        """Spec 3.5.1 for a matching choice."""
        if choice is None:
            return
        if isinstance(choice, int):
            self.feed_species(player.boards, choice)
        elif len(choice) == 2:
            i, n = choice
            taken = min(n, self.hole)
            self.hole -= taken
            player.boards[i].fat += taken
        else:
            self.attack(player, choice[0], others[choice[1]], choice[2])

    def attack(self, player: PlayerState, c: int, owner: PlayerState, a: int) -> None:
        """The attack sequence of spec 3.8."""
        horns = HORNS in owner.boards[a].traits
        self.lose_animal(owner, a)
        if horns and self.lose_animal(player, c):
            return
        self.feed_species(player.boards, c)
        self.feed_scavengers(player)

    def feed_scavengers(self, player: PlayerState) -> None:
        """Every scavenger eats once: the attacker's owner first, then in turn order after it."""
        players = self.players
        i = players.index(player) if player in players else 0
        for r in players[i:] + players[:i]:
            boards = r.boards
            for j, s in enumerate(boards):
                if SCAVENGER in s.traits:
                    self.feed_species(boards, j)

    # -- cleanup ---------------------------------------------------------------------

    def starve(self) -> None:
        """Spec 3.3 cleanup 1: populations shrink to the food eaten; extinct boards are
        removed at once and hand out their cards."""
        for p in self.players:
            i = 0
            while i < len(p.boards):
                s = p.boards[i]
                s.population = s.food
                if s.population == 0:
                    del p.boards[i]
                    self.deal(p, self.extinction_cards)
                else:
                    i += 1

    def fill_bags(self) -> None:
        """Spec 3.3 cleanup 2: food moves into the bags."""
        for p in self.players:
            for s in p.boards:
                p.bag += s.food
                s.food = 0
