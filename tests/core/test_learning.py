"""The learning contract's plain parts (no numpy): rank rewards and option checking."""

from __future__ import annotations

import pytest

from gameroom.core.learning import (
    Learning,
    LearningTable,
    Option,
    OptionError,
    rank_rewards,
)


def test_rank_rewards_are_zero_sum_with_ties_shared_and_ejections_last() -> None:
    a, b, c, d = range(4)   # seats, not names: two players may share a name
    assert rank_rewards(2, [[a], [b]], []) == [1.0, -1.0]
    assert rank_rewards(2, [[a, b]], []) == [0.0, 0.0]
    assert rank_rewards(4, [[b], [a, c], [d]], []) == [0.0, 1.0, 0.0, -1.0]
    assert rank_rewards(4, [[c], [a], [b, d]], []) == pytest.approx([1 / 3, -2 / 3, 1.0, -2 / 3])
    # An ejected seat ranks below every survivor with -1, whatever the game ranked.
    assert rank_rewards(3, [[a], [b]], [c]) == [1.0, 0.0, -1.0]
    assert rank_rewards(2, [[a]], [a]) == [-1.0, 1.0]
    assert rank_rewards(1, [[a]], []) == [0.0]


def test_options_have_defaults_and_clear_errors() -> None:
    def positive(value: object) -> int:
        if not isinstance(value, int) or value < 1:
            raise ValueError("must be a positive integer")
        return value

    made: list[dict[str, int]] = []
    learning = Learning({"players": Option(2, positive, "seats"), "size": Option(3, positive, "a size")},
                        lambda **options: made.append(options) or _check(options))
    learning.table("toy")
    learning.table("toy", size=5)
    assert made == [{"players": 2, "size": 3}, {"players": 2, "size": 5}]
    with pytest.raises(OptionError, match="toy has no option 'colour'; its options are players, size"):
        learning.table("toy", colour=1)
    with pytest.raises(OptionError, match="toy option players=0: must be a positive integer"):
        learning.table("toy", players=0)
    with pytest.raises(OptionError, match="toy: size and players do not go together"):
        learning.table("toy", players=4, size=3)


def _check(options: dict[str, int]) -> LearningTable:
    if options["size"] < options["players"]:
        raise ValueError("size and players do not go together")
    return None  # type: ignore[return-value]
