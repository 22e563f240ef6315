"""A plug-in distribution installed into a temporary virtual environment for a test.

The environment sees this interpreter's packages (gameroom, pip, setuptools, wheel) the
way a venv made with ``--system-site-packages`` sees the system's — through a ``.pth``
file — but installs nothing into them, and the install is offline (``--no-index
--no-build-isolation``: the build tools are the ones already installed)."""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
from pathlib import Path
from typing import Any


def install_plugin(source: Path, root: Path, editable: bool = False) -> dict[str, Any]:
    """``source`` (a distribution's tree) copied under ``root`` and installed (``pip install
    -e`` when ``editable``) into a fresh venv there: its python, environment and folder."""
    tree = root / source.name
    if source != tree:
        shutil.copytree(source, tree, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    places = site.getsitepackages() + ([site.getusersitepackages()] if site.ENABLE_USER_SITE else [])
    own = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         capture_output=True, text=True, check=True).stdout.strip()
    Path(own, "_gameroom_host.pth").write_text("".join(f"import site; site.addsitedir({p!r})\n" for p in places))
    install = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                              "--no-index", *(["-e"] if editable else []), str(tree)],
                             capture_output=True, text=True, timeout=300, check=False)
    assert install.returncode == 0, install.stderr
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return {"python": str(python), "env": env, "folder": root, "source": tree}


def run(plugin: dict[str, Any], *args: str, stdin: str = "", timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` in the plug-in's environment, from its folder."""
    return subprocess.run([plugin["python"], *args], input=stdin, capture_output=True, text=True,
                          env=plugin["env"], cwd=plugin["folder"], timeout=timeout, check=False)
