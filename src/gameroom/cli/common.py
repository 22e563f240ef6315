"""Plumbing every command shares: reading JSON from stdin, printing JSON, exiting with one
clear error line or one line for Ctrl-C, counts checked as arguments, the end of a local
game's account."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from typing import Any, Callable, NoReturn

from gameroom.core.console import last_line, log_line
from gameroom.core.errors import UsageError
from gameroom.core.wire import PlainText

__all__ = ["UsageError", "INTERRUPTED", "at_least", "positive_seconds", "read_stdin_values", "parse_json_values", "fail",
           "interrupted", "print_json", "print_value", "stderr_log", "print_outcome"]

INTERRUPTED = 130   # the shell's status for a program ended by SIGINT (128 + 2)


def at_least(minimum: int) -> Callable[[str], int]:
    """An argparse type: an integer of at least ``minimum`` (anything else gets argparse's
    one-line usage error, never a traceback further on)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected an integer of at least {minimum}, got {value}")
        return value

    return parse


def positive_seconds(text: str) -> float:
    """An argparse type: a number of seconds greater than 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds greater than 0, got {text}")
    return value


def fail(message: str, status: int = 2) -> NoReturn:
    print(f"gameroom: error: {message}", file=sys.stderr)
    raise SystemExit(status)


def interrupted(program: str = "gameroom") -> int:
    """Ctrl-C ends a command with one line, ``PROGRAM: interrupted``, and status 130 (never
    a traceback); the status to return."""
    # A task that an interrupt ended (a terminal prompt's) is logged by asyncio with its
    # traceback when it is collected on the way out ("Task exception was never retrieved"):
    # the one line below says everything.
    logging.getLogger("asyncio").disabled = True
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass   # a closed or broken pipe: the line on stderr still says what happened
    # One write, and the last: a thread still running (a referee whose connections the
    # interrupt closed) logs nothing after it.
    last_line(f"{program}: interrupted")
    return INTERRUPTED


def stderr_log(text: str) -> None:
    """One line on standard error, written whole (``core.console.log_line``: referees on
    several threads log at once)."""
    log_line(text)


def parse_json_values(text: str, source: str = "standard input") -> list[Any]:
    """Every JSON value of ``text`` (white space between values, any layout)."""
    from gameroom.remote.jsonstream import ValueTooDeep, check_depth

    try:
        check_depth(text)
    except ValueTooDeep as exc:
        raise UsageError(f"{source} is not a sequence of JSON values: {exc}") from None
    decoder = json.JSONDecoder()
    values: list[Any] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            return values
        try:
            value, i = decoder.raw_decode(text, i)
        except json.JSONDecodeError as exc:
            raise UsageError(f"{source} is not a sequence of JSON values: {exc.msg} "
                             f"at line {exc.lineno} column {exc.colno}") from None
        except ValueError as exc:   # an integer of more than 4300 digits
            raise UsageError(f"{source} holds an unreadable JSON value: {exc}") from None
        values.append(value)


def read_stdin_values() -> list[Any]:
    """Every JSON value on standard input; none when it is a terminal (nothing was piped)."""
    if sys.stdin is None or sys.stdin.isatty():
        return []
    try:
        text = sys.stdin.buffer.read().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"standard input is not UTF-8: {exc}") from None
    return parse_json_values(text)


def print_json(value: Any) -> None:
    text = json.dumps(value, ensure_ascii=False)
    try:
        print(text, flush=True)
    except UnicodeEncodeError:
        # A lone surrogate ("\ud800" in a player's name) has no UTF-8 form: escape it.
        print(json.dumps(value), flush=True)


def print_value(value: Any) -> None:
    """A result as JSON, or as it is when it is ``PlainText`` (e.g. result lines)."""
    if isinstance(value, PlainText):
        print(value, flush=True)
    else:
        print_json(value)


def print_outcome(outcome: Any, pictures: Any = None, directory: Any = None, dropped: str | None = "ejected") -> None:
    """The end of a ``play`` account: final scores, the winner(s), who dropped out (called
    ``dropped``; None: no such summary), how many pictures were written, and the result
    as JSON on the last line."""
    if dropped is not None:
        print("final scores: " + (", ".join(f"{n} {s}" for n, s in outcome.named_scores()) or "none"))
        label = "winner" if len(outcome.winners) == 1 else "winners"
        print(f"{label}: {', '.join(outcome.winners) or 'none'}")
        if outcome.misbehaved:
            print(f"{dropped}: {', '.join(outcome.misbehaved)}")
    if pictures is not None:
        print(f"pictures: {pictures.count} SVG files in {directory}")
    print_json(outcome.to_json())
