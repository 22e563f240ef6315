"""Pictures of learning environments show one viewer's view: the spectator's by default
(a single agent's: its own seat's), an agent's when named, the whole state, secrets
included, only with ``render_view="all"``."""

from __future__ import annotations

import pytest

pytest.importorskip("pettingzoo")
import numpy as np

from gameroom import rl
from gameroom.games import registry


def _played(**given: object) -> object:
    env = rl.env("q", render_mode="svg", **given)
    env.reset(seed=2)
    for _ in range(3):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    return env


def test_pictures_keep_the_secrets_unless_everything_is_asked_for() -> None:
    q = registry.game("q")
    shown = {view: _played(render_view=view) for view in (None, "player_1", "all")}
    state, caption = shown[None]._driver.picture, shown[None]._driver.caption
    assert shown[None].render() == q.picture(state, None, caption)           # the spectator's
    assert shown["player_1"].render() == q.picture(state, "player1", caption)   # that seat's own
    assert shown["all"].render() == q.render(state, caption)                 # everything
    assert len({shown[view].render() for view in shown}) == 3
    text = rl.env("q", render_mode="ansi")
    text.reset(seed=2)
    assert text.render().startswith("{") and q.text_view is None   # the spectator's view, as JSON
    single = rl.single_agent("q", seat=1, render_mode="svg")
    single.reset(seed=2)
    assert single.render() == q.picture(single._driver.picture, "player1", single._driver.caption)


def test_a_view_that_names_no_agent_is_refused() -> None:
    with pytest.raises(ValueError, match="render_view 'player_9': choose from 'spectator', 'all' or an agent"):
        rl.env("q", render_mode="svg", render_view="player_9")
