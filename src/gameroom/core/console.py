"""Lines on standard error written whole, whichever thread writes them.

``print(text, file=sys.stderr)`` writes the text and its newline in two writes; referees
on several threads log at once, so two lines could run together (``...bytesfza dropped
out on setup``) and a reader of the log (the fuzz benchmark, a person) miss one — the
fuzz benchmark's varying "offenders not ejected" (issue 17, finding 9: every ejection had
happened). :func:`log_line` writes a line in one write under a lock; :func:`last_line`
writes a command's last word (Ctrl-C's "interrupted") and keeps every thread quiet after it:
a referee thread that sees its connections close as the loop is torn down would otherwise
log a drop-out below the last line.
"""

from __future__ import annotations

import sys
import threading

__all__ = ["last_line", "log_line"]

_LOCK = threading.Lock()
_closed = False   # set by last_line: nothing more is written


def log_line(text: str) -> None:
    """``text`` and its newline on standard error, in one write, flushed (nothing once
    :func:`last_line` has been written)."""
    with _LOCK:
        if not _closed:
            sys.stderr.write(text + "\n")
            sys.stderr.flush()


def last_line(text: str) -> None:
    """``text`` as the last line on standard error: later :func:`log_line` calls, from any
    thread, write nothing. A closed or broken standard error is not an error here (the
    command is ending)."""
    global _closed
    with _LOCK:
        if _closed:
            return
        _closed = True
        try:
            sys.stderr.write(text + "\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
