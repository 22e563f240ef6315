"""What a sandbox binds for Python and programs: packages where an import hook puts them,
directories only their owner may search, and what a bot's own user cannot reach."""

from __future__ import annotations

import importlib.machinery
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from gameroom.core import bwrap


class _Hook:
    """An import hook like an editable install's finder: ``hooked_pkg`` lives in a folder
    that is on no ``sys.path`` entry."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != "hooked_pkg":
            return None
        return importlib.machinery.PathFinder.find_spec(name, [str(self.folder)])


def test_import_paths_follow_import_hooks_without_importing(tmp_path: Path) -> None:
    package = tmp_path / "src" / "hooked_pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("raise SystemExit('imported')\n")
    (tmp_path / "lone.py").write_text("")
    hook = _Hook(tmp_path / "src")
    sys.meta_path.insert(0, hook)
    sys.path.insert(0, str(tmp_path))
    try:
        assert bwrap.import_paths(["hooked_pkg.bots", "lone", "no_such_module_here"]) == [
            str(package), str(tmp_path / "lone.py")]
        assert "hooked_pkg" not in sys.modules   # found, never run
    finally:
        sys.meta_path.remove(hook)
        sys.path.remove(str(tmp_path))


def test_a_directory_only_its_owner_may_search_is_made_empty_for_a_bots_own_user(tmp_path: Path) -> None:
    private = tmp_path / "private"
    (private / "venv" / "bin").mkdir(parents=True)
    private.chmod(0o700)
    as_own_user = bwrap._binds([str(private), str(private / "venv")], own_user=True)
    assert ["--perms", "0755", "--dir", str(private)] == as_own_user[-7:-3]
    assert as_own_user[-3:] == ["--ro-bind", str(private / "venv"), str(private / "venv")]
    as_caller = bwrap._binds([str(private), str(private / "venv")], own_user=False)
    assert as_caller[-3:] == ["--ro-bind", str(private), str(private)]   # the venv is inside it


@pytest.mark.skipif(os.geteuid() != 0, reason="modes do not stop root's own tests otherwise")
def test_what_a_bots_own_user_cannot_reach_is_named(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    program = venv / "bin" / "prog"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    venv.chmod(0o700)
    problem = bwrap.unreachable([str(program)], str(tmp_path))
    assert problem == f"{venv} is not searchable by other users (mode drwx------)"
    venv.chmod(0o755)
    assert bwrap.unreachable([str(program)], str(tmp_path)) is None
    program.chmod(0o700)
    assert bwrap.unreachable([str(program)], str(tmp_path)) == (f"{program} is not executable by other users "
                                                               "(mode -rwx------)")
