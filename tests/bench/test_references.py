"""The reference figures come from the documented file (or --reference), never from code."""

import subprocess
import sys

import pytest

from gameroom.bench import references
from gameroom.games import registry


def test_the_recorded_file_holds_the_figures_of_issue_19s_table():
    figures = references.load()
    assert figures["q"] == {"q-dag-dag-ldasg-ldasg": 46.4, "q-dag-dag": 91.3}
    assert figures["bazaar"]["bazaar-4-reference"] == 25.2
    assert figures["fish"]["fish-4-greedy-5x5"] == 138.4
    assert figures["evolution"]["evolution-8-silly-sorted"] == 12.4


def test_every_key_a_game_names_has_a_recorded_figure():
    figures = references.load()
    for name, game in registry.games().items():
        keys = [w.reference for w in game.workloads] + [lineup.key for lineup in game.lineups]
        for key in filter(None, keys):
            assert key in figures.get(name, {}), (name, key)


def test_reference_option_overrides_one_figure_or_adds_a_file(tmp_path):
    assert references.load(["q-dag-dag=100"], "q")["q"]["q-dag-dag"] == 100.0
    extra = tmp_path / "mine.toml"
    extra.write_text('[fish.fish-4-greedy-5x5]\nper_s = 150\ndate = "today"\n')
    assert references.load([str(extra)])["fish"]["fish-4-greedy-5x5"] == 150.0


@pytest.mark.parametrize("bad, message", [
    ("q-dag-dag=fast", "is not a number"),
    ("q-dag-dag=-3", "positive rate"),
    ("no-such-file.toml", "cannot read it"),
])
def test_a_bad_reference_is_one_clear_error(bad, message):
    with pytest.raises(ValueError, match=message):
        references.load([bad], "q")


def test_a_file_without_a_rate_is_refused(tmp_path):
    extra = tmp_path / "bad.toml"
    extra.write_text('[q.q-dag-dag]\ndate = "today"\n')
    with pytest.raises(ValueError, match=r"\[q.q-dag-dag\] needs per_s"):
        references.load([str(extra)])


def test_the_command_line_says_what_was_wrong_and_exits_non_zero():
    done = subprocess.run([sys.executable, "-m", "gameroom.bench", "q", "--reference", "q-dag-dag=fast"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 2 and "is not a number" in done.stderr
