"""Lines on standard error written whole, whichever thread writes them.

``print(text, file=sys.stderr)`` writes the text and its newline in two writes; referees
on several threads log at once, so two lines could run together (``...bytesfza dropped
out on setup``) and a reader of the log (the fuzz benchmark, a person) miss one — the
fuzz benchmark's varying "offenders not ejected" (issue 17, finding 9: every ejection had
happened). :func:`log_line` writes a line in one write under a lock.
"""

from __future__ import annotations

import sys
import threading

__all__ = ["log_line"]

_LOCK = threading.Lock()


def log_line(text: str) -> None:
    """``text`` and its newline on standard error, in one write, flushed."""
    with _LOCK:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()
