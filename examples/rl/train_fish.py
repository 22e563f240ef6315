"""Train a small policy for 2-player Fish with numpy only, and show what it learned.

The agent plays ``gameroom.rl.single_agent("fish", opponents=["random"])`` on a 4 x 5 board,
moving first in half of the games and second in the others. Its policy scores every legal spot with one shared linear function of that
spot's features — the fish on it, whose penguin stands there, the fish on its six
neighbours — crossed with the kind of decision (placing a penguin, choosing the penguin to
move, choosing where it goes), and draws from the softmax of the scores. REINFORCE with a
running baseline trains the 27 weights on the environment's reward (+1 win, 0 tie, -1
loss). The script prints the win rate against the random player before and after
training, over the same evaluation games; it takes well under two minutes on two cores.
(Fish's random player, spec 9.3, draws among the moves that are *not* the best, so even an
untrained agent wins more than half of its games.)

    python examples/rl/train_fish.py [--seconds 60 | --games N] [--evaluation 400] [--seed 1] [--save FILE]

The trained policy is an ordinary callable (observation dict -> action), so it can be
entered anywhere a bot can: ``gameroom.rl.policy_player("fish", policy, rows=4,
columns=5)``, or a league bots file entry ``policy = "module:callable"``. ``--save FILE``
keeps its weights (a ``.npy`` file); then ``train_fish:trained`` is that policy, playing
its most likely action, for any ``--policy`` (the weights read from ``$FISH_WEIGHTS``,
default ``fish_weights.npy`` beside this file). From this directory, on a server of 4 x 5
boards for two:

    python examples/rl/train_fish.py --games 3000 --save examples/rl/fish_weights.npy
    cd examples/rl && python -m gameroom clients fish --port 45678 --policy agent=train_fish:trained \
        --policy-options '{"players": 2, "rows": 4, "columns": 5}'
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any


def interrupted() -> int:
    """Ctrl-C: one line and the shell's status for an interrupt (130), not a traceback."""
    print("train_fish: interrupted", file=sys.stderr, flush=True)
    return 130


# Ctrl-C while numpy and the environments load (seconds on a busy machine) is held until
# they are loaded: an interrupt inside numpy's import breaks it ("PyCapsule_Import could
# not import module") and numpy reports that, not the interrupt.
_held: list[int] = []
_before = signal.signal(signal.SIGINT, lambda number, frame: _held.append(number)) \
    if __name__ == "__main__" else None
import numpy as np  # noqa: E402

from gameroom import rl  # noqa: E402

if _before is not None:
    signal.signal(signal.SIGINT, _before)
    if _held:
        sys.exit(interrupted())

ROWS, COLUMNS = 4, 5
OPTIONS = {"rows": ROWS, "columns": COLUMNS}
# Observation channels of Fish's encoding for two players (see gameroom.games.fish.learning).
FISH, OWN, OTHER, CHOSEN, PLACING = 0, 1, 2, 3, 4
FEATURES = 9
PHASES = 3   # placing, choosing a penguin, choosing its target


def neighbours(rows: int, columns: int) -> list[list[int]]:
    """The spots one step away from each spot (Fish's hex geometry, spec 2.2)."""
    even = ((-2, 0), (-1, 0), (1, 0), (2, 0), (1, -1), (-1, -1))
    odd = ((-2, 0), (-1, 1), (1, 1), (2, 0), (1, 0), (-1, 0))
    out = []
    for r in range(rows):
        for c in range(columns):
            out.append([(r + dr) * columns + c + dc for dr, dc in (odd if r % 2 else even)
                        if 0 <= r + dr < rows and 0 <= c + dc < columns])
    return out


NEIGHBOURS = neighbours(ROWS, COLUMNS)


def features(observation: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """The legal actions and their feature rows (phase x spot features)."""
    grid = observation["observation"].reshape(ROWS * COLUMNS, -1)
    legal = np.flatnonzero(observation["action_mask"])
    fish = np.rint(grid[:, FISH] * 5).astype(int)
    phase = 0 if grid[0, PLACING] else (2 if grid[:, CHOSEN].any() else 1)
    rows = np.zeros((len(legal), PHASES * FEATURES))
    for i, spot in enumerate(legal):
        spot_features = np.zeros(FEATURES)
        spot_features[fish[spot]] = 1.0   # 0 (a hole) .. 5 fish: one-hot
        spot_features[6] = grid[spot, OWN]
        spot_features[7] = grid[spot, OTHER]
        spot_features[8] = sum(fish[n] for n in NEIGHBOURS[spot]) / 30
        rows[i, phase * FEATURES:(phase + 1) * FEATURES] = spot_features
    return legal, rows


class Policy:
    """Softmax over the legal actions of a shared linear score."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.weights = np.zeros(PHASES * FEATURES)
        self.rng = rng

    def distribution(self, rows: np.ndarray) -> np.ndarray:
        scores = rows @ self.weights
        scores -= scores.max()
        p = np.exp(scores)
        return p / p.sum()

    def __call__(self, observation: dict[str, Any]) -> int:
        legal, rows = features(observation)
        return int(legal[self.rng.choice(len(legal), p=self.distribution(rows))])


_TRAINED: list[np.ndarray] = []


def trained(observation: dict[str, Any]) -> int:
    """The saved policy (``--save``) as a deterministic player: the legal action its
    weights score highest. Its weights are read once, from ``$FISH_WEIGHTS`` or
    ``fish_weights.npy`` beside this file."""
    if not _TRAINED:
        _TRAINED.append(np.load(os.environ.get("FISH_WEIGHTS") or Path(__file__).with_name("fish_weights.npy")))
    legal, rows = features(observation)
    return int(legal[int(np.argmax(rows @ _TRAINED[0]))])


def environments(seed: int) -> list[Any]:
    """The agent first, and the agent second, against the random player."""
    return [rl.single_agent("fish", opponents=["random"], seat=seat, seed=seed + seat, **OPTIONS) for seat in (0, 1)]


def win_rate(policy: Policy, games: int, seed: int) -> float:
    """The share of games won against the random player (ties count half)."""
    envs = environments(seed)
    score = 0.0
    for game in range(games):
        env = envs[game % 2]
        observation, _ = env.reset(seed=seed + game)
        done = False
        while not done:
            observation, reward, done, _truncated, _info = env.step(policy(observation))
        score += (reward + 1) / 2
    return score / games


def train(policy: Policy, seconds: float, seed: int, budget: int | None = None, rate: float = 0.05) -> int:
    """REINFORCE with a running baseline for ``seconds`` (or ``budget`` games); the number
    of games played."""
    envs = environments(seed)
    baseline, games = 0.0, 0
    deadline = time.perf_counter() + seconds
    while (games < budget) if budget is not None else (time.perf_counter() < deadline):
        env = envs[games % 2]
        observation, _ = env.reset()
        gradient = np.zeros_like(policy.weights)
        done = False
        while not done:
            legal, rows = features(observation)
            p = policy.distribution(rows)
            choice = policy.rng.choice(len(legal), p=p)
            gradient += rows[choice] - p @ rows    # the gradient of log p(choice)
            observation, reward, done, _truncated, _info = env.step(int(legal[choice]))
        policy.weights += rate * (reward - baseline) * gradient
        baseline += 0.01 * (reward - baseline)
        games += 1
    return games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="training time (default 60)")
    parser.add_argument("--games", type=int, default=None, help="train on this many games instead (reproducible)")
    parser.add_argument("--evaluation", type=int, default=400, help="evaluation games before and after (default 400)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--save", type=Path, default=None, metavar="FILE",
                        help="write the trained weights to FILE (.npy): train_fish:trained then plays them")
    args = parser.parse_args()
    policy = Policy(np.random.default_rng(args.seed))
    evaluation_seed = 1_000_000 + args.seed
    before = win_rate(policy, args.evaluation, evaluation_seed)
    print(f"before training: wins {before:.1%} of {args.evaluation} games against the random player")
    started = time.perf_counter()
    games = train(policy, args.seconds, args.seed, args.games)
    print(f"trained on {games:,} games in {time.perf_counter() - started:.0f} s")
    after = win_rate(policy, args.evaluation, evaluation_seed)
    print(f"after training:  wins {after:.1%} of the same {args.evaluation} games against the random player")
    print("weights (placing / choosing a penguin / its target; 0-5 fish, own, other, neighbours' fish):")
    print(np.array2string(policy.weights.reshape(PHASES, FEATURES), precision=2, suppress_small=True))
    if args.save is not None:
        with open(args.save, "wb") as out:   # exactly this name (np.save would append .npy)
            np.save(out, policy.weights)
        print(f"weights saved to {args.save}")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(interrupted())
