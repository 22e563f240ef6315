"""The command's stderr handler (core.console): a command's lines keep their exact bytes and
stay off until the command opens them; warnings speak in the command's voice; DEBUG names
the logger; install() starts every command from the same state."""

from __future__ import annotations

import logging
from typing import Iterator

import pytest

from gameroom.core import console


class _Stderr:
    """What the handler wrote to standard error (pytest's capture, which the handler
    reaches because it looks ``sys.stderr`` up at each record)."""

    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self.capsys = capsys
        self.text = ""

    def getvalue(self) -> str:
        self.text += self.capsys.readouterr().err
        return self.text


@pytest.fixture
def stderr(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Iterator[_Stderr]:
    """Standard error, the handler installed as the command installs it; the loggers'
    levels restored afterwards (other tests of this process log too)."""
    monkeypatch.delenv(console.LEVEL_VARIABLE, raising=False)
    root = logging.getLogger("gameroom")
    before = root.level, list(root.handlers)
    console.install()
    capsys.readouterr()
    yield _Stderr(capsys)
    console.install()   # closes what the test opened
    root.setLevel(before[0])
    root.handlers[:] = before[1]


def test_a_line_is_its_bare_message_once_its_logger_is_opened(stderr: _Stderr) -> None:
    signup = logging.getLogger("gameroom.server.signup")
    signup.info("signed up %s (1)", "ann")           # not opened: nothing
    console.show_lines("gameroom.server")
    signup.info("signed up bob (2) 100%")             # a % without arguments stays as it is
    assert stderr.getvalue() == "signed up bob (2) 100%\n"


def test_a_quiet_command_leaves_its_lines_off(stderr: _Stderr) -> None:
    console.show_lines("gameroom.server", shown=False)
    logging.getLogger("gameroom.server.host").info("too few players signed up (1 < 2)")
    assert stderr.getvalue() == ""


def test_warnings_speak_in_the_commands_voice_with_their_traceback(stderr: _Stderr) -> None:
    logger = logging.getLogger("gameroom.sandbox.policy")
    logger.warning("bubblewrap (bwrap) is not installed")
    try:
        raise RuntimeError("observer bug")
    except RuntimeError:
        logging.getLogger("gameroom.core.match").warning("observer Broken dropped", exc_info=True)
    lines = stderr.getvalue().splitlines()
    assert lines[0] == "gameroom: warning: bubblewrap (bwrap) is not installed"
    assert lines[1] == "gameroom: warning: observer Broken dropped"
    assert lines[2] == "Traceback (most recent call last):" and lines[-1] == "RuntimeError: observer bug"


def test_debug_records_appear_only_at_debug_and_name_their_logger(stderr: _Stderr,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    logger = logging.getLogger("gameroom.server.signup")
    logger.debug("improper sign-up from %s", "peer")
    assert stderr.getvalue() == ""
    monkeypatch.setenv(console.LEVEL_VARIABLE, "debug")
    console.install()
    console.show_lines("gameroom.server")
    logger.debug("improper sign-up from %s", "peer")
    assert stderr.getvalue() == "gameroom: debug: gameroom.server.signup: improper sign-up from peer\n"


def test_install_closes_what_the_previous_command_opened(stderr: _Stderr) -> None:
    console.show_lines("gameroom.server")
    console.install()
    logging.getLogger("gameroom.server.signup").info("signed up ann (1)")
    assert stderr.getvalue() == ""
    assert sum(isinstance(h, console.StderrHandler) for h in logging.getLogger("gameroom").handlers) == 1

