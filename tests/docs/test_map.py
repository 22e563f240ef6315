"""docs/ARCHITECTURE.md's map of the house ("The house: every module and what it is for")
matches the tree: every module of the game-agnostic packages (and each game's descriptor)
is in it, and every module it names exists. A maintainer looking for "where is X" reads
one table per package instead of the tree."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "gameroom"
HEADING = "## The house: every module and what it is for"


def modules_in_the_tree() -> set[str]:
    """Paths below ``src/gameroom``: every module but a game's own (its descriptor aside:
    the games share one layout, described under "One layout for every game") and
    migrations' revisions."""
    found = set()
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE).as_posix()
        parts = rel.split("/")
        if "versions" in parts or rel.count("/") == 0:
            continue
        if parts[0] == "games" and len(parts) > 2 and parts[-1] != "descriptor.py":
            continue
        found.add(rel)
    return found


def modules_in_the_map() -> set[str]:
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    assert HEADING in text, f"docs/ARCHITECTURE.md has no section {HEADING!r}"
    section = text.split(HEADING, 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `([\w/]+\.py)` \|", section, flags=re.M))


def test_the_map_names_every_module_and_only_modules_that_exist() -> None:
    tree, mapped = modules_in_the_tree(), modules_in_the_map()
    assert not tree - mapped, f"modules missing from the map: {sorted(tree - mapped)}"
    assert not mapped - tree, f"the map names modules that do not exist: {sorted(mapped - tree)}"
