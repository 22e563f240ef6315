"""Lines on standard error written whole, whichever thread writes them.

``print(text, file=sys.stderr)`` writes the text and its newline in two writes; referees
on several threads log at once, so two lines could run together (``...bytesfza dropped
out on setup``) and a reader of the log (the fuzz benchmark, a person) miss one — the
fuzz benchmark's varying "offenders not ejected" (issue 17, finding 9: every ejection had
happened). :func:`log_line` writes a line in one write under a lock; :func:`last_line`
writes a command's last word (Ctrl-C's "interrupted") and keeps every thread quiet after it:
a referee thread that sees its connections close as the loop is torn down would otherwise
log a drop-out below the last line.

Modules log through their own ``logging.getLogger(__name__)``; :func:`install` (the
``gameroom`` command calls it first) puts one :class:`StderrHandler` on the ``gameroom``
logger. Two kinds of records reach it:

* a command's **lines** (a server's sign-ups and drop-outs, a lobby's rooms, a client's
  failures): INFO records, written as their bare message, so the bytes the specs and the
  tests compare stay what they were. They are off unless the command opens their package
  with :func:`show_lines` (``serve`` opens ``gameroom.server``, ``serve --quiet`` does not),
  which is how quiet configurations stay quiet and a league's program seats sign up
  silently;
* **diagnostics** (a warning, a failure with its traceback) in the command's own voice,
  ``gameroom: warning: message`` (``gameroom: error: ...``; at DEBUG the logger's name
  too: ``gameroom: debug: gameroom.server.signup: ...``), at the level
  ``GAMEROOM_LOG_LEVEL`` names (WARNING unless set; DEBUG shows the tracebacks of the
  failures that are routine for a server, such as a client's bad sign-up, and every line).

Outside the command (a library, a test) the ``gameroom`` logger has only a NullHandler:
nothing is written unless the embedding program configures ``logging``.
"""

from __future__ import annotations

import logging
import os
import sys
import threading

__all__ = ["LEVEL_VARIABLE", "StderrHandler", "install", "last_line", "log_line", "show_lines"]

LEVEL_VARIABLE = "GAMEROOM_LOG_LEVEL"

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


class _Voice(logging.Formatter):
    """``gameroom: warning: message`` (the command's own form for warnings and errors);
    at DEBUG, the logger's name before the message."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        level = record.levelname.lower()
        if record.levelno < logging.INFO:
            return f"gameroom: {level}: {record.name}: {record.message}"
        return f"gameroom: {level}: {record.message}"


class StderrHandler(logging.Handler):
    """Writes each record as one whole write (:func:`log_line`) to whatever ``sys.stderr``
    is at the time (tests swap it): an INFO record without a traceback is a command's line
    and is written as its bare message; any other record in the command's voice
    (``gameroom: warning: ...``), its traceback below it."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(_Voice())

    def emit(self, record: logging.LogRecord) -> None:
        try:
            log_line(record.getMessage() if record.levelno == logging.INFO and not record.exc_info
                     else self.format(record))
        except Exception:   # noqa: BLE001 -- logging's own rule: report through handleError, never raise
            self.handleError(record)


_opened: set[str] = set()   # the loggers show_lines opened, closed again by install


def _configured_level() -> int:
    named = os.environ.get(LEVEL_VARIABLE, "WARNING").upper()
    level = logging.getLevelNamesMapping().get(named)
    return level if level is not None else logging.WARNING


def install() -> None:
    """Send gameroom's records to standard error through one :class:`StderrHandler`, the
    diagnostics at the level ``GAMEROOM_LOG_LEVEL`` names, every command's lines off (a
    command opens its own with :func:`show_lines`). Calling it again (a test running
    several commands in one process) starts from the same state."""
    root = logging.getLogger("gameroom")
    if not any(isinstance(h, StderrHandler) for h in root.handlers):
        root.addHandler(StderrHandler())
    root.setLevel(_configured_level())
    for name in _opened:
        logging.getLogger(name).setLevel(logging.NOTSET)
    _opened.clear()


def show_lines(name: str, shown: bool = True) -> None:
    """Let the INFO lines of logger ``name`` and its children through (``shown`` False,
    e.g. a quiet configuration: leave them off). Diagnostics keep their own level."""
    if not shown:
        return
    logging.getLogger(name).setLevel(min(logging.INFO, _configured_level()))
    _opened.add(name)
