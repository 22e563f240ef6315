"""Policies for the tests (``module:callable`` targets of league bots): plain functions
from an observation dict to an action index."""

from __future__ import annotations

from typing import Any

import numpy as np


def first_legal(observation: dict[str, Any]) -> int:
    """The first action the mask allows."""
    return int(np.flatnonzero(observation["action_mask"])[0])


def against_the_mask(observation: dict[str, Any]) -> int:
    """The first action the mask forbids."""
    return int(np.flatnonzero(observation["action_mask"] == 0)[0])
