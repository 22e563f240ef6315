"""The code blocks of a documentation page, read with markdown-it (the CommonMark parser), and
the rules that say what the suite does with each (docs/CONVENTIONS.md, "Examples that run").

A fenced block is *run* (``sh``/``bash``/``console`` by bash, ``python`` by this interpreter),
*written* as a file for the blocks after it (an HTML comment ``<!-- file: PATH -->`` right
before it), or *illustrative* (``<!-- illustrative: why -->`` right before it: never run, and
the reason is required). Any other block is a mistake the collector reports: an unmarked
``toml`` block, an indented code block (the guides use fences, so each says what it is), an
illustrative marker without a reason. Ports: every number a page's blocks use as a port
(after ``--port`` or ``127.0.0.1:``/``localhost:``) is replaced, wherever it appears in the
page's blocks, by a free port of 127.0.0.1, so pages run beside each other and beside the
rest of the suite.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt

RUN = {"sh": "sh", "bash": "sh", "console": "sh", "shell": "sh", "python": "python", "py": "python"}
MARKER = re.compile(r"^<!--\s*(illustrative|file)\b\s*:?\s*(.*?)\s*-->\s*$", re.DOTALL)
PORT = re.compile(r"(?:--port[ =]|(?:127\.0\.0\.1|localhost):)(\d{2,5})\b")


@dataclass(frozen=True)
class Block:
    """One code block: what to do with it (``run``, ``file`` or ``illustrative``), its
    language (``sh`` or ``python`` for a run), the text, its first line in the page and, for
    a file, its path (for an illustrative block, the reason)."""

    action: str
    language: str
    text: str
    line: int
    argument: str = ""


class PageError(ValueError):
    """A block the rules cannot place (unmarked data, an indented block, a bare marker)."""


def blocks(page: Path) -> list[Block]:
    """Every code block of ``page`` in order, each with its action; PageError names the
    first block that breaks the rules, by line."""
    tokens = MarkdownIt("commonmark").parse(page.read_text(encoding="utf-8"))
    found: list[Block] = []
    marker: tuple[str, str] | None = None   # a marker applies to the token right after it
    for token in tokens:
        line = token.map[0] + 1 if token.map else 0
        if token.type == "html_block":
            match = MARKER.match(token.content.strip())
            marker = (match.group(1), match.group(2)) if match else None
            continue
        if token.type == "code_block":
            raise PageError(f"{page.name}:{line}: an indented code block; write a fenced block "
                            "(```sh, ```python, ...) so it says what it is")
        if token.type != "fence":
            if marker is not None:
                raise PageError(f"{page.name}:{line}: a <!-- {marker[0]} --> marker not followed by a fenced block")
            marker = None
            continue
        language = token.info.split()[0] if token.info.strip() else ""
        kind, argument = marker or ("", "")
        marker = None
        if kind == "illustrative":
            if not argument:
                raise PageError(f"{page.name}:{line}: say why the block is illustrative "
                                "(<!-- illustrative: the reason -->)")
            found.append(Block("illustrative", language, token.content, line, argument))
        elif kind == "file":
            if not argument or Path(argument).is_absolute() or ".." in Path(argument).parts:
                raise PageError(f"{page.name}:{line}: a file block names a relative path inside the page's folder")
            found.append(Block("file", language, token.content, line, argument))
        elif language in RUN:
            found.append(Block("run", RUN[language], token.content, line))
        else:
            raise PageError(f"{page.name}:{line}: a ```{language or '(no language)'} block is neither run nor "
                            "marked: put <!-- file: PATH --> or <!-- illustrative: why --> before it")
    return found


def ports(found: list[Block]) -> list[int]:
    """The port numbers the page's run and file blocks use, each once, in order."""
    seen: dict[int, None] = {}
    for block in found:
        if block.action != "illustrative":
            for number in PORT.findall(block.text):
                seen[int(number)] = None
    return list(seen)


def with_ports(text: str, mapping: dict[int, int]) -> str:
    """``text`` with every documented port replaced by its free port."""
    for documented, free in mapping.items():
        text = re.sub(rf"(?<![\d.]){documented}(?!\d)", str(free), text)
    return text


def background_ports(line: str, mapping: dict[int, int], named: str) -> list[int]:
    """The free ports to wait for after ``line`` when it starts a background job (ends in a
    single ``&``): those ``named`` holds (the line, and the page's files the line names)."""
    stripped = line.rstrip()
    if not stripped.endswith("&") or stripped.endswith("&&"):
        return []
    return [free for free in mapping.values() if re.search(rf"(?<!\d){free}(?!\d)", named)]
