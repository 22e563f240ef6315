"""A digest chain over JSON Lines: every line carries the SHA-256 of the previous line's
digest and its own text, so an edit, a deletion, an insertion or a reorder is found with
its line number.

A sealed line is the line's JSON object with one more member at its end,
``"digest": "<64 hex digits>"``, where the digest is
``sha256(previous digest + "\\n" + the line's text without that member)`` and the previous
digest of a file's first line is empty. The digest covers the exact text written, so a
writer seals each line as it writes it (:meth:`DigestChain.seal`) and never goes back:
a file grows by appending, and the last line's digest (the chain's *head*) stands for
everything before it. A chain alone cannot show that lines were cut off the end; a head
kept elsewhere (the results database keeps one per stored game) can.

:func:`check_chain` walks a file's lines and reports each line whose digest does not
follow from the line before it; after a report it goes on from the line's own digest, so
one edit is reported once (a swap of two lines twice). A file without any digest was
written before chains existed: it is reported as unchained, not as altered.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Container, Iterable
from dataclasses import dataclass, field

__all__ = ["GENESIS", "UNCHAINED", "ChainBreak", "ChainCheck", "DigestChain", "check_chain", "head_of", "link",
           "seal", "unseal"]

GENESIS = ""   # the previous digest of a file's first line

UNCHAINED = "no digest chain (recorded before replays carried digest chains, gameroom 0.1.0)"

# The member a sealed line ends with. A line whose JSON ends otherwise has no digest.
_SEALED = re.compile(r'(, )?"digest": "([0-9a-f]{64})"\}$')


def link(previous: str, body: str) -> str:
    """The digest of a line's text ``body`` after a line whose digest was ``previous``."""
    return hashlib.sha256(f"{previous}\n{body}".encode()).hexdigest()


def seal(body: str, digest: str) -> str:
    """``body`` (a JSON object's text) with ``"digest": digest`` as its last member."""
    if not body.endswith("}"):
        raise ValueError("only a JSON object's text can carry a digest")
    separator = "" if body == "{}" else ", "
    return f'{body[:-1]}{separator}"digest": "{digest}"}}'


def unseal(line: str) -> tuple[str, str | None]:
    """A line's text without its digest member, and the digest (None when it has none)."""
    text = line.rstrip("\r\n")
    found = _SEALED.search(text)
    if found is None:
        return text, None
    return text[:found.start()] + "}", found.group(2)


class DigestChain:
    """Seals lines one after the other; ``head`` is the digest of the last line sealed."""

    def __init__(self, head: str = GENESIS) -> None:
        self.head = head

    def seal(self, body: str) -> str:
        self.head = link(self.head, body)
        return seal(body, self.head)


@dataclass(frozen=True)
class ChainBreak:
    """A line whose digest does not follow from the lines before it (1-based number)."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass
class ChainCheck:
    """What :func:`check_chain` found: the breaks, whether the text carries a chain at all,
    and the head (the last line's digest as recorded, or None without a chain)."""

    breaks: list[ChainBreak] = field(default_factory=list)
    chained: bool = False
    head: str | None = None
    lines: int = 0

    @property
    def intact(self) -> bool:
        return self.chained and not self.breaks


CHANGED = "digest does not match: the line was changed, or a line before it removed/reordered"
MISSING = "no digest: the line was inserted, or its digest removed"


def check_chain(lines: Iterable[str], first: int = 1, start: str = GENESIS,
                restarts: Container[int] = ()) -> ChainCheck:
    """Check the chain of ``lines`` (numbered from ``first``; blank lines are skipped but
    counted) from the previous digest ``start``. At a line of ``restarts`` (a replay's
    header) a chain may also begin anew, as a file's first line does: files written apart
    and put one after the other (downloads of stored games) each check from their start,
    while a part cut out of one file still breaks the chain (the next header follows
    neither the line before it nor nothing)."""
    check = ChainCheck()
    previous = start
    unsealed: list[int] = []
    for number, line in enumerate(lines, first):
        if not line.strip():
            continue
        check.lines += 1
        body, digest = unseal(line)
        if digest is None:
            unsealed.append(number)
            continue
        check.chained = True
        if link(previous, body) != digest and not (number in restarts and link(GENESIS, body) == digest):
            check.breaks.append(ChainBreak(number, CHANGED))
        previous = digest    # go on from the line's own digest: one edit, one report
        check.head = digest
    if check.chained:
        check.breaks.extend(ChainBreak(number, MISSING) for number in unsealed)
        check.breaks.sort(key=lambda b: b.line)
    return check


def head_of(text: str) -> str | None:
    """The digest on the last non-blank line of ``text`` (a chain's head), or None."""
    for line in reversed(text.splitlines()):
        if line.strip():
            return unseal(line)[1]
    return None
