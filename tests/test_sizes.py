"""No class over 400 lines and no function over 80 in the services (``server/``, ``web/``,
``arena/``): a reader holds one in their head. The few still over are listed with the size
they may not grow past, and leave the list as they are split (a listed one that fits is an
error too, so the list only shrinks)."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "gameroom"
PACKAGES = ("server", "web", "arena")
MAX_CLASS = 400
MAX_FUNCTION = 80

STILL_OVER: dict[str, int] = {   # "package/module.py:Name" -> lines it may not grow past
}


def sizes() -> dict[str, tuple[str, int]]:
    """``package/module.py:Name`` -> ("class" or "function", lines) of every class and function
    (methods and nested functions included) of the services."""
    found: dict[str, tuple[str, int]] = {}
    for package in PACKAGES:
        for path in sorted((SRC / package).rglob("*.py")):
            where = path.relative_to(SRC).as_posix()
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                    kind = "class" if isinstance(node, ast.ClassDef) else "function"
                    lines = (node.end_lineno or node.lineno) - node.lineno + 1
                    key = f"{where}:{node.name}"
                    if lines > found.get(key, ("", 0))[1]:
                        found[key] = (kind, lines)
    return found


def test_no_class_or_function_of_the_services_grows_past_its_bound() -> None:
    over = {key: (kind, lines) for key, (kind, lines) in sizes().items()
            if lines > (MAX_CLASS if kind == "class" else MAX_FUNCTION)}
    new = {key: found for key, found in over.items() if key not in STILL_OVER}
    assert not new, f"split these (a class at most {MAX_CLASS} lines, a function {MAX_FUNCTION}): {new}"
    grown = {key: (over[key][1], STILL_OVER[key]) for key in over if key in STILL_OVER and over[key][1] > STILL_OVER[key]}
    assert not grown, f"grown past their listed size (lines now, listed): {grown}"
    fits = sorted(set(STILL_OVER) - set(over))
    assert not fits, f"these fit now: take them off STILL_OVER: {fits}"
