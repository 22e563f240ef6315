"""``core.layout.package_parts``: the descriptor fields a conventionally laid-out game
package fills, read from a real package written to disk (the heavy modules imported only
when used; a game's own ``render``/``narrator`` taking the convention's place)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Iterator

import pytest

from gameroom.core.hosting import Hosting
from gameroom.core.layout import package_parts

MODULES = {
    "__init__.py": "",
    "hosting.py": "from gameroom.core.hosting import Hosting\nHOSTING = Hosting()\n",
    "workloads.py": "WORKLOADS = ('w',)\nLINEUPS = ('l1', 'l2')\n",
    "render.py": "def render_svg(state, caption=''):\n    return f'<svg><title>{caption}</title>{state}</svg>'\n",
    "harness.py": "HARNESSES = {'xtoy': len}\n",
    "learning.py": "LEARNING = 'the learning'\n",
    "narrator.py": "def narrator(seed, names):\n    return (seed, list(names))\n",
    "descriptor.py": "",
    "board.js": "export function play(ui) {}\n",
}


@pytest.fixture
def toy_package(tmp_path: Path) -> Iterator[str]:
    folder = tmp_path / "toy_layout_game"
    folder.mkdir()
    for name, text in MODULES.items():
        (folder / name).write_text(text, encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        importlib.import_module("toy_layout_game.descriptor")
        yield "toy_layout_game"
    finally:
        sys.path.remove(str(tmp_path))
        for module in [m for m in sys.modules if m.split(".")[0] == "toy_layout_game"]:
            del sys.modules[module]


def test_the_parts_come_from_the_package_and_load_on_use(toy_package: str) -> None:
    parts = package_parts(f"{toy_package}.descriptor")
    assert isinstance(parts["hosting"], Hosting)
    assert (parts["workloads"], parts["lineups"]) == (("w",), ("l1", "l2"))
    assert parts["board"] == Path(sys.modules[toy_package].__file__ or "").parent / "board.js"
    assert parts["board"].is_file()
    lazy = ("render", "harness", "learning", "narrator")
    assert not [m for m in lazy if f"{toy_package}.{m}" in sys.modules]   # nothing heavy imported yet
    assert parts["render"]("S", "a caption") == "<svg><title>a caption</title>S</svg>"
    assert parts["harnesses"]() == {"xtoy": len}
    assert parts["harnesses"]() is not sys.modules[f"{toy_package}.harness"].HARNESSES   # a copy
    assert parts["learning"]() == "the learning"
    assert parts["narrator"](7, ("a", "b")) == (7, ["a", "b"])


def test_the_package_itself_may_be_named(toy_package: str) -> None:
    assert package_parts(toy_package)["learning"]() == "the learning"


def test_a_game_s_own_render_and_narrator_replace_the_convention(toy_package: str) -> None:
    def render(state: object, caption: str) -> str:
        return "own picture"

    def narrator(seed: int, names: object) -> str:
        return "own narrator"

    parts = package_parts(f"{toy_package}.descriptor", render=render, narrator=narrator)
    assert parts["render"] is render and parts["narrator"] is narrator
    assert f"{toy_package}.render" not in sys.modules and f"{toy_package}.narrator" not in sys.modules
