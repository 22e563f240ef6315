"""A table's fixed spaces and the numpy arrays of one decision.

Every seat of a table has the same spaces: actions ``Discrete(len(table.actions))`` and
observations ``Dict(observation=Box(low, high, shape, float32), action_mask=Box(0, 1,
(n,), int8))``, PettingZoo's convention for games with action masks. :class:`Encoder`
turns a game's plain-Python observation and legal indices into those arrays.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from gameroom.core.learning import LearningTable

__all__ = ["Encoder"]


class Encoder:
    """The spaces of one table and the arrays of its decisions."""

    def __init__(self, table: LearningTable) -> None:
        self.table = table
        self.n = len(table.actions)
        low = np.asarray(table.low, dtype=np.float32).reshape(table.shape)
        high = np.asarray(table.high, dtype=np.float32).reshape(table.shape)
        self.low, self.high = low, high
        self.box = spaces.Box(low, high, table.shape, np.float32)
        self.mask_box = spaces.Box(0, 1, (self.n,), np.int8)

    def observation_space(self) -> spaces.Dict:
        """A fresh observation space (each agent gets its own, so each can be seeded)."""
        return spaces.Dict({"observation": spaces.Box(self.low, self.high, self.table.shape, np.float32),
                            "action_mask": spaces.Box(0, 1, (self.n,), np.int8)})

    def action_space(self) -> spaces.Discrete:
        return spaces.Discrete(self.n)

    def observation(self, values: Sequence[float]) -> np.ndarray:
        """The observation array of a game's numbers (a list, or an ``array`` copied at
        once through the buffer protocol)."""
        return np.array(values, dtype=np.float32).reshape(self.table.shape)

    def mask(self, legal: Iterable[int]) -> np.ndarray:
        mask = np.zeros(self.n, dtype=np.int8)
        mask[list(legal)] = 1
        return mask

    def blank(self) -> dict[str, Any]:
        """The observation of a seat that has not been asked anything yet."""
        return {"observation": np.clip(np.zeros(self.table.shape, np.float32), self.low, self.high),
                "action_mask": np.zeros(self.n, dtype=np.int8)}
