"""The layer rules of docs/CONVENTIONS.md, checked on the source: every import (at the top
of a module, inside a function or under ``TYPE_CHECKING``) read with ``ast``.

* No import runs up a layer: core < games, sandbox < remote < server < league, rl < web <
  arena < cli < bench (a layer imports its own and the lower ones; games and sandbox, side
  by side, never import each other; of league and rl, side by side, only league imports rl).
* No module outside ``gameroom/games/`` imports a specific game (only the registry), and
  no game imports another game.
* No import circles between modules.
* Every package has its layer, and the conventions document lists every layer.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "src"
PACKAGE = SOURCE / "gameroom"

LAYERS = {"core": 0, "games": 1, "sandbox": 1, "remote": 2, "server": 3, "league": 4, "rl": 4, "web": 5, "arena": 6,
          "cli": 7, "bench": 8}
"""Each package's level; ``gameroom/__main__.py`` runs the command line (cli's level)."""
TOP = {"gameroom": -1, "gameroom.__main__": LAYERS["cli"]}
SIDEWAYS = {("league", "rl")}
"""Imports between packages of one level that are allowed, one way only: a league seats
trained agents (``rl.policy_player``); ``rl`` never imports the league."""
GAME_AGNOSTIC_GAMES_MODULES = {"gameroom.games", "gameroom.games.registry"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SOURCE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


MODULES = _modules()


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(module: str) -> set[str]:
    """The gameroom modules ``module`` imports (a name imported from a package counts as
    the submodule when it is one)."""
    path = MODULES[module]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, path, node)
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base)
    return {name for name in found if name.startswith("gameroom") and name in MODULES and name != module}


GRAPH = {module: imports_of(module) for module in MODULES}


def layer(module: str) -> int:
    if module in TOP:
        return TOP[module]
    return LAYERS[module.split(".")[1]]


def test_every_package_has_a_layer() -> None:
    packages = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages <= set(LAYERS), f"give {sorted(packages - set(LAYERS))} a layer (here and in CONVENTIONS.md)"
    assert set(MODULES) - {m for m in MODULES if m.split(".")[1:2] and m.split(".")[1] in LAYERS} <= set(TOP)


def test_the_conventions_list_every_layer() -> None:
    text = (ROOT / "docs" / "CONVENTIONS.md").read_text(encoding="utf-8")
    for package in LAYERS:
        assert f"`{package}/`" in text, f"docs/CONVENTIONS.md does not list the layer {package}/"


def test_no_import_runs_up_a_layer() -> None:
    def sideways(module: str, target: str) -> bool:
        if module in TOP or layer(target) != layer(module):
            return False
        return module.split(".")[1] != target.split(".")[1] and (module.split(".")[1], target.split(".")[1]) not in SIDEWAYS

    upward = sorted(f"{module} -> {target}" for module, targets in GRAPH.items() for target in targets
                    if layer(target) > layer(module) or sideways(module, target))
    assert not upward, "imports from a lower layer to a higher one:\n" + "\n".join(upward)


def _game_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "games" and module not in GAME_AGNOSTIC_GAMES_MODULES else None


def test_nothing_outside_a_game_imports_it() -> None:
    """Only the registry reaches a game, through its entry point; games do not import
    each other."""
    wrong = sorted(f"{module} -> {target}" for module, targets in GRAPH.items() for target in targets
                   if _game_of(target) is not None and _game_of(target) != _game_of(module))
    assert not wrong, "imports of a specific game from outside it:\n" + "\n".join(wrong)


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(start: str) -> None:   # iterative, so a deep chain cannot exhaust the stack
        nonlocal counter
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def test_no_import_circles() -> None:
    circles = _circles(GRAPH)
    assert not circles, "import circles:\n" + "\n".join(" <-> ".join(c) for c in circles)


@pytest.mark.parametrize("graph, expected", [
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ({"a": {"b"}, "b": set()}, []),
])
def test_the_circle_finder_finds_circles(graph: dict[str, set[str]], expected: list[list[str]]) -> None:
    assert _circles(graph) == expected


def test_the_import_reader_sees_imports_inside_functions() -> None:
    """A lazy import counts like one at the top (the circles of issue 18 were lazy)."""
    assert "gameroom.remote.jsonstream" in GRAPH["gameroom.cli.common"]   # imported inside a function
