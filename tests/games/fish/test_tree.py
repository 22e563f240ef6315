"""The game tree (spec 2.7): lazy branches per legal move, skip nodes, final nodes, queries."""

from __future__ import annotations

from hypothesis import given, settings

from gameroom.games.fish.board import Board
from gameroom.games.fish.state import SKIP, Color, GameState, Player
from gameroom.games.fish.tree import GameTree
from tests.games.fish.helpers import example_state, states


def test_branches_follow_canonical_action_order_and_are_lazy() -> None:
    tree = GameTree(example_state())
    assert tree._children == {}
    assert tree.actions() == example_state().legal_moves()
    assert tree._children == {}
    child = tree.child(((0, 0), (2, 0)))
    assert child.state.colors() == [Color.RED, Color.WHITE]
    assert child.state.players[1].score == 5
    assert tree.child(((0, 0), (2, 0))) is child  # cached
    assert len(tree._children) == 1


def test_take_accepts_exactly_the_branch_labels() -> None:
    tree = GameTree(example_state())
    assert tree.take(((2, 1), (3, 0))) is not None
    assert tree.take([[2, 1], [3, 0]]) is not None  # list-shaped, compared structurally
    assert tree.take(((2, 1), (3, 1))) is None  # occupied target
    assert tree.take(((1, 2), (1, 3))) is None  # not the active player's penguin
    assert tree.take(((2, 1), (2, 1))) is None
    assert tree.take(SKIP) is None
    assert tree.take("garbage") is None
    assert tree.take([[1, [2]], [3, 0]]) is None


def test_skip_node_has_one_branch_and_final_node_none() -> None:
    board = Board.from_rows([[1, 0, 0], [0, 0, 2], [0, 3, 3]])
    state = GameState(board, [Player(Color.RED, 0, [(0, 0)]), Player(Color.WHITE, 0, [(1, 2)])])
    tree = GameTree(state)
    assert tree.is_skip() and not tree.is_final()
    assert tree.actions() == [SKIP] and tree.moves() == []
    after = tree.take(SKIP)
    assert after is not None and after.state.colors() == [Color.WHITE, Color.RED]
    final = after.take(((1, 2), (2, 2)))
    assert final is not None
    assert final.state.colors() == [Color.RED, Color.WHITE]
    assert final.is_final() and list(final.children()) == []
    assert final.take(SKIP) is None


def test_map_children_applies_a_query_to_every_successor() -> None:
    tree = GameTree(example_state())
    scores = tree.map_children(lambda s: s.score(Color.WHITE))
    assert scores == [(((0, 0), (1, 0)), 5), (((0, 0), (2, 0)), 5), (((2, 1), (0, 1)), 4),
                      (((2, 1), (3, 0)), 4), (((2, 1), (1, 0)), 4)]


@settings(max_examples=150)
@given(states(min_players=1))
def test_children_are_the_states_after_each_action(state: GameState) -> None:
    tree = GameTree(state.copy())
    for action, child in tree.children():
        expected = state.copy()
        expected.apply(action)
        assert child.state == expected
    assert tree.state == state  # building children never touches the parent
