"""Every game's learning environments against the APIs' own contract tests:
PettingZoo's ``api_test`` and ``seed_test`` for ``gameroom.rl.env`` and Gymnasium's
``check_env`` for ``gameroom.rl.single_agent``, at every option set of ``cases``; and the
environments' own promises (options, replays, pictures)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from tests.rl.cases import CASES, OPTIONS, need_extra

need_extra()

import numpy as np
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from gameroom import rl
from gameroom.core.learning import OptionError
from gameroom.games import registry


@pytest.fixture(autouse=True)
def _quiet() -> Any:
    # PettingZoo warns that a dict observation "is not a NumPy array" (its classic games
    # with action masks get the same warnings); nothing else is expected.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def test_every_game_has_an_encoding() -> None:
    assert set(OPTIONS) <= set(rl.games()) <= set(registry.names())


@pytest.mark.parametrize("game", rl.games())
def test_every_encoding_passes_the_api_tests_at_its_defaults(game: str) -> None:
    """Any game that declares an encoding (a plug-in too) is held to the contract tests."""
    api_test(rl.env(game), num_cycles=100)
    seed_test(lambda: rl.env(game), num_cycles=50)
    check_env(rl.single_agent(game))


@pytest.mark.parametrize("game,options", CASES)
def test_pettingzoo_api_test(game: str, options: dict[str, Any]) -> None:
    api_test(rl.env(game, **options), num_cycles=300)


@pytest.mark.parametrize("game,options", CASES)
def test_pettingzoo_seed_test(game: str, options: dict[str, Any]) -> None:
    seed_test(lambda: rl.env(game, **options), num_cycles=200)


@pytest.mark.parametrize("game,options", CASES)
def test_gymnasium_check_env(game: str, options: dict[str, Any]) -> None:
    players = rl.table(game, **options).players
    check_env(rl.single_agent(game, seat=players - 1, **options), skip_render_check=False)


@pytest.mark.parametrize("game", sorted(OPTIONS))
def test_the_game_name_alone_is_enough(game: str) -> None:
    env, single = rl.env(game), rl.single_agent(game)
    env.reset(seed=3)
    observation, _info = single.reset(seed=3)
    assert observation["action_mask"].any() and env.observe(env.agent_selection)["action_mask"].any()
    table = rl.table(game)
    assert env.action_space(env.agent_selection).n == len(table.actions) == single.action_space.n
    assert observation["observation"].shape == table.shape


def play(env: Any, seed: int | None, chooser: np.random.Generator) -> list[Any]:
    """A whole game of random masked actions; the trajectory."""
    env.reset(seed=seed)
    seen = []
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _info = env.last()
        seen.append((agent, observation["observation"].tobytes(), observation["action_mask"].tobytes(), reward))
        if terminated or truncated:
            env.step(None)
            continue
        env.step(int(chooser.choice(np.flatnonzero(observation["action_mask"]))))
    return seen


@pytest.mark.parametrize("game", sorted(OPTIONS))
def test_reset_replays_a_game_exactly(game: str) -> None:
    env = rl.env(game, seed=11)
    first = play(env, 5, np.random.default_rng(1))
    assert play(env, 5, np.random.default_rng(1)) == first
    # Unseeded resets draw their games from the environment's own seeded sequence.
    again = rl.env(game, seed=11)
    assert play(env, None, np.random.default_rng(2)) != first or len(first) < 3
    assert [play(again, None, np.random.default_rng(3)) for _ in range(2)] == [
        play(rl.env(game, seed=11), None, np.random.default_rng(3)), play_second(game)]


def play_second(game: str) -> list[Any]:
    env = rl.env(game, seed=11)
    play(env, None, np.random.default_rng(3))
    return play(env, None, np.random.default_rng(3))


@pytest.mark.parametrize("game", sorted(OPTIONS))
def test_render_gives_the_text_and_the_svg_picture(game: str) -> None:
    for mode in ("ansi", "svg"):
        env = rl.env(game, render_mode=mode)
        env.reset(seed=2)
        for _ in range(5):
            observation = env.observe(env.agent_selection)
            env.step(int(np.flatnonzero(observation["action_mask"])[0]))
        picture = env.render()
        assert isinstance(picture, str) and picture
        if mode == "svg":
            assert picture.lstrip().startswith("<svg") or picture.lstrip().startswith("<?xml")
        else:
            assert "<svg" not in picture
    single = rl.single_agent(game, render_mode="ansi")
    single.reset(seed=1)
    assert single.render()
    assert rl.env(game).render() is None   # no render mode: a warning and nothing


def test_options_are_checked_with_clear_errors() -> None:
    with pytest.raises(OptionError, match="fish has no option 'size'; its options are players, rows, columns, fish"):
        rl.env("fish", size=3)
    with pytest.raises(OptionError, match="players must be an integer from 2 to 4"):
        rl.env("q", players=5)
    with pytest.raises(OptionError, match="too few tiles"):
        rl.env("fish", players=4, rows=2, columns=3)
    with pytest.raises(OptionError, match="window must be an odd integer"):
        rl.single_agent("q", window=8)
    with pytest.raises(ValueError, match="needs 2 opponent"):
        rl.single_agent("bazaar", opponents=["purchase-points"], players=3)
    with pytest.raises(ValueError, match="no built-in strategy 'best'"):
        rl.single_agent("fish", opponents=["best"])
    with pytest.raises(OptionError, match="no simultaneous decision rounds"):
        rl.parallel_env("evolution")
    env = rl.env("fish")
    env.reset(seed=1)
    with pytest.raises(ValueError, match="an action is an integer in 0..24"):
        env.step(25)


def test_a_remote_player_can_be_the_opponent() -> None:
    """The opponent is the example client of docs/bots.md, a separate process speaking
    Fish's protocol over TCP through the league's program seats."""
    import sys
    from pathlib import Path

    from gameroom.league.programs import ProgramLimits, seat_programs

    client = Path(__file__).resolve().parents[2] / "examples" / "bots" / "python_bot.py"
    fish = registry.game("fish")
    with seat_programs(fish, [("remote", [sys.executable, str(client), "{port}"], ProgramLimits())]) as programs:
        env = rl.single_agent("fish", opponents=[programs.seats["remote"]])
        observation, _ = env.reset(seed=5)
        done = False
        while not done:
            observation, reward, done, _truncated, info = env.step(first_legal(observation))
        result = info["result"]
        assert "remote" in result.scores and not result.misbehaved
        expected = 0.0 if len(result.winners) == 2 else (1.0 if result.winners == ["player0"] else -1.0)
        assert reward == expected


def first_legal(observation: dict[str, Any]) -> int:
    return int(np.flatnonzero(observation["action_mask"])[0])


def test_single_agent_plays_against_any_player_and_seat() -> None:
    from gameroom.core.match import trusted_seat

    fish = registry.game("fish")
    seat = trusted_seat("other", fish.strategies["greedy"]("other", 1))
    for opponents in (["random"], [fish.strategies["maximin"]("x", 2)], [seat]):
        env = rl.single_agent("fish", opponents=opponents, seat=1)
        for seed in range(3):
            observation, _ = env.reset(seed=seed)
            done = False
            while not done:
                action = int(np.flatnonzero(observation["action_mask"])[0])
                observation, reward, done, _truncated, info = env.step(action)
            assert reward in (-1.0, 0.0, 1.0) and "result" in info


@pytest.mark.parametrize("game", sorted(OPTIONS))
def test_rgb_array_draws_the_svg_picture(game: str) -> None:
    from gameroom.rl import raster

    if not raster.available():
        pytest.skip(f"rgb_array is not offered here: {raster.missing()}")
    env = rl.env(game, render_mode="rgb_array")
    assert "rgb_array" in env.metadata["render_modes"]
    env.reset(seed=2)
    for _ in range(5):
        observation = env.observe(env.agent_selection)
        env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    image = env.render()
    assert isinstance(image, np.ndarray) and image.dtype == np.uint8
    assert image.ndim == 3 and image.shape[2] == 3 and image.shape[0] > 20 and image.shape[1] > 20
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 2   # a drawing, not a blank page
    svg = rl.env(game, render_mode="svg")
    svg.reset(seed=2)
    for _ in range(5):
        observation = svg.observe(svg.agent_selection)
        svg.step(int(np.flatnonzero(observation["action_mask"])[0]))
    assert np.array_equal(raster.rgb_array(svg.render()), image)   # the same picture, rasterised
    single = rl.single_agent(game, render_mode="rgb_array")
    single.reset(seed=1)
    assert single.render().shape[2] == 3


def test_rgb_array_is_refused_with_the_reason_where_it_cannot_be_drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    from gameroom.rl import raster

    reason = "the rgb_array render mode needs cairosvg and the system's libcairo (test)"
    monkeypatch.setattr(raster, "missing", lambda: reason)
    with pytest.raises(ValueError, match=r"needs cairosvg and the system's libcairo \(test\)"):
        rl.env("fish", render_mode="rgb_array")
    with pytest.raises(ValueError, match="needs cairosvg"):
        rl.single_agent("fish", render_mode="rgb_array")
