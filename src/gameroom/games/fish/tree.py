"""The rules of Fish as a lazily generated game tree (spec 2.7).

A :class:`GameTree` node holds a state and its branches: one per legal move of the active
player in canonical action order (each leading to the state after the move and the
rotation), a single ``SKIP`` branch when the active player cannot move but someone else can,
and none for a final state. Children are built only when asked for and then cached.

The referee uses :meth:`GameTree.take` to check a turn; players use the queries to plan.
A node owns its state: do not mutate ``node.state`` after building the node.
"""

from __future__ import annotations

from typing import Callable, Iterator, TypeVar

from gameroom.games.fish.state import SKIP, Action, GameState, Move

T = TypeVar("T")


class GameTree:
    """A node of the game tree; children are generated lazily."""

    __slots__ = ("state", "_actions", "_children")

    def __init__(self, state: GameState) -> None:
        self.state = state
        self._actions: list[Action] | None = None
        self._children: dict[Action, GameTree] = {}

    def actions(self) -> list[Action]:
        """The branch labels: the legal moves in canonical order, ``[SKIP]``, or ``[]``."""
        if self._actions is None:
            self._actions = self.state.actions()
        return self._actions

    def is_final(self) -> bool:
        """Whether nobody can move (no branches)."""
        return not self.actions()

    def is_skip(self) -> bool:
        """Whether the active player cannot move but someone else can."""
        return self.actions() == [SKIP]

    def moves(self) -> list[Move]:
        """The active player's legal moves (empty for skip and final nodes)."""
        return [a for a in self.actions() if a is not SKIP]

    def child(self, action: Action) -> "GameTree":
        """The node reached by a branch label of this node (raises KeyError otherwise)."""
        node = self._children.get(action)
        if node is None:
            if action not in self.actions():
                raise KeyError(action)
            node = GameTree(self.state.after(action))
            self._children[action] = node
        return node

    def take(self, action: object) -> "GameTree | None":
        """The node after `action`, or None if it is not a branch of this node.

        Any skip succeeds in a skip node. The action may also be a list-shaped move (as
        decoded loosely from JSON); it is compared structurally.
        """
        if isinstance(action, list) and len(action) == 2:
            try:
                action = (tuple(action[0]), tuple(action[1]))
            except TypeError:
                return None
        try:
            if action not in self.actions():
                return None
        except TypeError:
            return None
        return self.child(action)

    def children(self) -> Iterator[tuple[Action, "GameTree"]]:
        """Every branch with its node, in canonical order (nodes built on demand)."""
        for action in self.actions():
            yield action, self.child(action)

    def map_children(self, query: Callable[[GameState], T]) -> list[tuple[Action, T]]:
        """Apply `query` to the state of every directly reachable node (spec's
        "apply a function to all successor states")."""
        return [(a, query(node.state)) for a, node in self.children()]

    def __repr__(self) -> str:
        return f"GameTree({self.state!r})"
