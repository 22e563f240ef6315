"""Every example of the README and the guides runs as written (docs/CONVENTIONS.md,
"Examples that run"): the blocks are read from the markdown files at collection, so a
changed guide is a changed test.

One test per page: its blocks run in order in a folder of their own (holding a copy of the
checkout's ``examples/`` and ``src/``, which the guides name as paths of a clone), shell
blocks with bash under ``set -e``, Python blocks with this interpreter, file blocks written
for the blocks after them. A line that starts a server in the background (ends in ``&``)
is followed by a wait until its port listens. Every process a page started is killed at its
end. ``pip install`` commands are not run: the suite runs where gameroom and its extras are
installed, as .ci/run installs them. A failure names the page's line.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from driver import free_port

from tests.docs.blocks import Block, PageError, background_ports, blocks, ports, with_ports

REPOSITORY = Path(__file__).resolve().parents[2]
PAGES = [REPOSITORY / "README.md", *sorted((REPOSITORY / "docs" / "guides").glob("*.md"))]
LISTENING = Path(__file__).resolve().with_name("listening.py")
BLOCK_SECONDS = 600   # generous: the suite runs on a loaded 2-core machine
INSTALL = ("pip install", "pip3 install", "python -m pip install", "python3 -m pip install")


def page_id(page: Path) -> str:
    return str(page.relative_to(REPOSITORY))


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_every_block_is_run_written_or_marked(page: Path) -> None:
    """The rules hold on every page: no unmarked data block, no indented block, every
    illustrative block says why."""
    try:
        found = blocks(page)
    except PageError as error:
        pytest.fail(str(error))
    assert found, f"{page_id(page)} has no code block"


def without_installs(text: str) -> str:
    """The shell text with ``pip install ...`` commands left out (a ``pip install X &&`` prefix
    drops the install and keeps the rest)."""
    kept = []
    for line in text.splitlines():
        stripped = line.strip()
        for install in INSTALL:
            if stripped.startswith(install):
                _, _, rest = stripped.partition("&&")
                line = rest.strip() if "&&" in stripped else ""
                break
        kept.append(line)
    return "\n".join(kept) + "\n"


def shell_script(block: Block, mapping: dict[int, int], files: dict[str, str]) -> str:
    """The block as a bash script: installs left out, ports replaced, a wait after each
    background server for the ports its line names, or the page's file it names holds
    (``gameroom arena --config arena.toml &`` listens where arena.toml says)."""
    lines = ["set -eo pipefail"]
    for line in with_ports(without_installs(block.text), mapping).splitlines():
        lines.append(line)
        named = " ".join([line, *(text for path, text in files.items() if path in line)])
        for port in background_ports(line, mapping, named):
            lines.append(f"{shlex.quote(sys.executable)} {shlex.quote(str(LISTENING))} {port} $! 300")
    return "\n".join(lines) + "\n"


def run_block(block: Block, folder: Path, mapping: dict[int, int], files: dict[str, str], groups: list[int],
              page: Path) -> None:
    script = folder / f".block-{block.line}"
    if block.language == "sh":
        script.write_text(shell_script(block, mapping, files), encoding="utf-8")
        command = ["bash", str(script)]
    else:
        script.write_text(with_ports(block.text, mapping), encoding="utf-8")
        command = [sys.executable, str(script)]
    environment = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    environment.pop("PYTHONPATH", None)   # as a reader's shell: nothing on the path but what the page says
    process = subprocess.Popen(command, cwd=folder, env=environment, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    groups.append(process.pid)
    try:
        output, _ = process.communicate(timeout=BLOCK_SECONDS)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        pytest.fail(f"{page_id(page)}:{block.line}: still running after {BLOCK_SECONDS} s\n"
                    f"{output.decode('utf-8', 'replace')[-4000:]}")
    if process.returncode != 0:
        pytest.fail(f"{page_id(page)}:{block.line}: exit status {process.returncode}\n"
                    f"{output.decode('utf-8', 'replace')[-4000:]}")


def end_groups(groups: list[int]) -> None:
    """Stop every process a page's blocks started (their background servers included):
    SIGTERM, a few seconds to end, then SIGKILL."""
    def signal_all(sig: int) -> bool:
        alive = False
        for group in groups:
            try:
                os.killpg(group, sig)
                alive = True
            except ProcessLookupError:
                pass
        return alive

    signal_all(signal.SIGTERM)
    deadline = time.monotonic() + 10
    while signal_all(0) and time.monotonic() < deadline:
        time.sleep(0.1)
    signal_all(signal.SIGKILL)


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_the_examples_run(page: Path, tmp_path: Path) -> None:
    try:
        found = blocks(page)
    except PageError as error:
        pytest.fail(str(error))
    runnable = [block for block in found if block.action != "illustrative"]
    if not any(block.action == "run" for block in runnable):
        pytest.skip(f"{page_id(page)} has no block to run")
    for part in ("examples", "src"):
        shutil.copytree(REPOSITORY / part, tmp_path / part,
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.npy"))
    mapping = {documented: free_port() for documented in ports(runnable)}
    groups: list[int] = []
    files: dict[str, str] = {}
    try:
        for block in runnable:
            if block.action == "file":
                target = tmp_path / block.argument
                target.parent.mkdir(parents=True, exist_ok=True)
                files[block.argument] = with_ports(block.text, mapping)
                target.write_text(files[block.argument], encoding="utf-8")
            else:
                run_block(block, tmp_path, mapping, files, groups, page)
    finally:
        end_groups(groups)
