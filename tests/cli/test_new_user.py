"""The command line as a new user (or a careless script) meets it (issue 8): one error line
and status 2 for any bad input, pictures that tell the game, help that lists the choices,
and a server that runs without a configuration."""

from __future__ import annotations

import json
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import read_json_values
from driver import free_port, run_gameroom, spawn
from gameroom.games import registry

DEEP = b"[" * 100_000
NS = "{http://www.w3.org/2000/svg}"

COMMANDS = ([["serve", game, "--port", "40000"] for game in ("q", "bazaar", "fish")]
            + [["clients", game, "--port", "40000"] for game in ("q", "bazaar", "fish")]
            + [["harness", name, harness] for name, game in registry.games().items()
               for harness in sorted(game.harnesses())])


def one_error_line(run, status: int = 2) -> str:
    assert run.returncode == status, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gameroom: error: "), run.stderr
    return lines[0]


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_deep_nesting_on_standard_input_is_one_error_line(args: list[str]) -> None:
    """Issue 8, item 2: not a RecursionError traceback with status 1."""
    assert "nests deeper than 64 levels" in one_error_line(run_gameroom(args, DEEP))


def test_a_number_of_5000_digits_is_one_error_line() -> None:
    line = one_error_line(run_gameroom(["harness", "q", "xmap"], b"[" + b"7" * 5000 + b"]"))
    assert "unreadable JSON value" in line


def test_observe_refuses_a_file_and_an_impossible_folder(tmp_path: Path) -> None:
    """Issue 8, item 4."""
    file = tmp_path / "file"
    file.write_text("x")
    for game in ("q", "bazaar", "fish"):
        assert "it is a file, not a folder" in one_error_line(run_gameroom(["play", game, "--observe", str(file)], b""))
        line = one_error_line(run_gameroom(["play", game, "--observe", str(file / "pictures")], b""))
        assert "cannot create the picture folder" in line


def test_observe_into_a_used_folder_holds_only_the_new_game(tmp_path: Path) -> None:
    """Issue 8, item 4: the pictures of an earlier game are removed; other files are kept."""
    (tmp_path / "0999.svg").write_text("<svg/>")
    (tmp_path / "notes.txt").write_text("mine")
    run = run_gameroom(["play", "fish", "--players", "2", "--observe", str(tmp_path)], b"")
    assert run.returncode == 0, run.stderr
    count = int(run.stdout.split("pictures: ")[1].split()[0])
    assert sorted(p.name for p in tmp_path.glob("*.svg")) == [f"{i:04d}.svg" for i in range(count)]
    assert (tmp_path / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("column", ["1e+308", "100000000"])
def test_xref_board_sizes_are_bounded(column: str) -> None:
    """Issue 8, item 5: not an OverflowError, not 6 GB of memory."""
    stdin = f'{{"row": 2, "column": {column}, "players": [["a", 1], ["b", 1]], "fish": 1}}'.encode()
    assert "$.column" in one_error_line(run_gameroom(["harness", "fish", "xref"], stdin))


def test_a_name_with_a_lone_surrogate_is_printed_escaped() -> None:
    """Issue 8, item 5: not a UnicodeEncodeError."""
    stdin = b'{"row": 2, "column": 3, "players": [["\\ud800", 1], ["\\ud800", 1]], "fish": 1}'
    run = run_gameroom(["harness", "fish", "xref"], stdin)
    assert run.returncode == 0 and not run.stderr, run.stderr
    assert '"\\ud800"' in run.stdout


@pytest.mark.parametrize("args, message", [
    (["tournament", "q", "--players", "4"], "q has no tournament mode; tournaments: fish"),
    (["play", "q", "--q-bonus", "-100"], "--q-bonus must lie in 0..10"),
    (["play", "q", "--finish-bonus", "11"], "--finish-bonus must lie in 0..10"),
    (["clients", "fish", "--port", "40000", "--depth", "99"], "--depth must lie in 1..4"),
])
def test_confusing_command_lines_get_a_clear_answer(args: list[str], message: str) -> None:
    assert message in one_error_line(run_gameroom(args, b""))


def test_unknown_baddie_lists_each_choice_once() -> None:
    line = one_error_line(run_gameroom(["clients", "fish", "--port", "40000", "--baddie", "zzz"], b""))
    choices = line.split("choose from ")[1].split(", ")
    assert len(choices) == len(set(choices)) and "no-name" in choices


def test_version_and_help_that_lists_the_choices() -> None:
    version = run_gameroom(["--version"], b"")
    assert version.returncode == 0 and version.stdout.startswith("gameroom ")
    help_text = " ".join(run_gameroom(["play", "q", "--help"], b"").stdout.split())
    assert "dag, ldasg" in help_text and "completing a Q" in help_text and "whole hand" in help_text
    assert "patient" in run_gameroom(["play", "bazaar", "--help"], b"").stdout


def test_serve_without_standard_input_uses_the_spec_defaults_and_says_so() -> None:
    """`gameroom serve q --port P` with nothing piped in: not an error but the spec's defaults
    (and where the example configuration is); likewise Bazaar, Fish and Evolution."""
    for game, what in (("q", "2 periods of 20 s"), ("bazaar", "game from scratch"), ("fish", "5..10 players"),
                       ("evolution", "3..8 players")):
        server = spawn(["serve", game, "--port", str(free_port())], stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            first = server.stderr.readline().decode()
        finally:
            server.kill()
            server.communicate()
        assert first.startswith("no configuration on standard input: the spec's defaults") and what in first, first
        example = Path(first.rsplit("an example configuration: ", 1)[1].strip())
        assert example.is_file() and example.parent.name == "configs"
        assert read_json_values(example.read_text())


def test_q_pictures_tell_the_game(tmp_path: Path) -> None:
    run = run_gameroom(["play", "q", "--players", "2", "--seed", "3", "--observe", str(tmp_path)], b"")
    assert run.returncode == 0, run.stderr
    pictures = sorted(tmp_path.glob("*.svg"))
    first_turn = ET.parse(pictures[1]).getroot()
    caption = first_turn.find(f"{NS}title").text
    assert caption.startswith("Ada places")   # who did what (the line says "turn   1: Ada places ...")
    assert f"turn   1: {caption}  [" in run.stdout
    marked = first_turn.findall(f".//{NS}g[@class='placed']/{NS}rect")
    assert len(marked) == int(caption.split("places ")[1].split()[0])
    last = ET.parse(pictures[-1]).getroot().find(f"{NS}title").text
    winners = read_json_values(run.stdout.splitlines()[-1])[0][0]
    assert last.startswith("game over: winner") and all(w in last for w in winners)


def test_fish_pictures_tell_the_game(tmp_path: Path) -> None:
    run = run_gameroom(["play", "fish", "--players", "2", "--seed", "2", "--observe", str(tmp_path)], b"")
    assert run.returncode == 0, run.stderr
    pictures = sorted(tmp_path.glob("*.svg"))
    # the dealt board, a picture per penguin placed (2 players place 4 each), then one after placement
    assert ET.parse(pictures[0]).getroot().find(f"{NS}title").text == "the board is dealt"
    placed = [ET.parse(p).getroot().find(f"{NS}title").text for p in pictures[1:9]]
    assert all(" places a penguin on [" in c for c in placed) and placed[0].startswith("Astrid (red) places")
    turn = ET.parse(pictures[10]).getroot()
    assert float(turn.get("width")) >= 480
    caption = turn.find(f"{NS}title").text
    assert caption.startswith("Astrid (red) moves [") and "->" in caption
    assert turn.findall(f".//{NS}g[@class='last-move']")
    scores = [t.text for t in turn.iter(f"{NS}text") if t.get("class") == "score"]
    assert any(s.startswith("Astrid (red): ") for s in scores)
    penguins = [g for g in turn.iter(f"{NS}g") if g.get("class") == "penguin"]
    assert penguins and all(g.find(f"{NS}text").text.isdigit() for g in penguins)   # fish shown on penguins
    last = ET.parse(pictures[-1]).getroot().find(f"{NS}title").text
    assert last.startswith("game over: winner")


def test_bazaar_reference_players_are_explained_and_patient_players_score() -> None:
    reference = run_gameroom(["play", "bazaar", "--seed", "1"], b"")
    assert "note: nobody scored" in reference.stdout
    patient = run_gameroom(["play", "bazaar", "--seed", "1", "--strategy", "patient"], b"")
    scores = json.loads(json.dumps(patient.stdout.split("final scores: ")[1].splitlines()[0]))
    assert any(int(part.split()[1]) > 0 for part in scores.split(", ")), patient.stdout
    assert "note: nobody scored" not in patient.stdout


def test_every_game_ends_its_pictures_with_the_winners(tmp_path: Path) -> None:
    """Issue 8 (pictures): the last picture of every game names the winners."""
    for game in registry.games():
        folder = tmp_path / game
        run = run_gameroom(["play", game, "--observe", str(folder)], b"")
        assert run.returncode == 0, run.stderr
        winners = read_json_values(run.stdout.splitlines()[-1])[0][0]
        last = max(folder.glob("*.svg")).read_text()
        assert "game over" in last and all(w in last for w in winners), game
