"""The training example of ``examples/rl`` runs as documented and its policy improves on
the untrained one against Fish's random player (a fixed budget of games, so the figures
are the same at every run)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.rl.cases import need_extra

need_extra()

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rl" / "train_fish.py"


def test_the_example_trains_a_better_policy() -> None:
    run = subprocess.run([sys.executable, str(EXAMPLE), "--games", "3000", "--evaluation", "200", "--seed", "2"],
                         capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stderr
    before, after = (float(x) for x in re.findall(r"wins ([0-9.]+)% of", run.stdout))
    assert "trained on 3,000 games" in run.stdout
    assert after > before + 10, run.stdout
