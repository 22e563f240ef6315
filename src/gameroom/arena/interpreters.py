"""Where each language's interpreter really is on this host, so that its sandbox holds it.

A language's ``build`` and ``run`` argv begin with a program looked up on the arena's
PATH (``python3``, ``node``, ``perl``), unless they begin with ``{main}`` (a command bot:
the program is the bot's own file). The sandbox binds a program's installation read-only
(``X`` for ``X/bin/prog``, as named and as resolved through links: ``core.bwrap``). A
PATH entry may be a *shim*, though: pyenv's ``python3`` is a shell script that runs
``pyenv exec``, which needs ``PYENV_ROOT`` and pyenv's own files, none of which the sandbox
shows, so every Python bot failed its build with status 127.

So the arena asks each such program, once, on the host and with the host's environment,
where its real executable is (:data:`ASK`: Python's ``sys.executable``, Node's
``process.execPath``, Perl's ``$^X``, Ruby's ``RbConfig.ruby``; any other program: its
path with links resolved), and runs that path, whose installation the sandbox then binds.
Only the programs of the arena's own configuration are asked, never a bot's file. A
program that is not found, or does not answer, is :class:`MissingInterpreter`: its
message is the one line a version's build log shows.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
import threading

from gameroom.core.errors import GameroomError

__all__ = ["Interpreters", "MissingInterpreter", "ASK", "ASK_SECONDS"]

ASK = ((re.compile(r"^(python|pypy)[0-9.]*$"), ("-I", "-S", "-c", "import sys; sys.stdout.write(sys.executable)")),
       (re.compile(r"^(node|nodejs)$"), ("-e", "process.stdout.write(process.execPath)")),
       (re.compile(r"^perl[0-9.]*$"), ("-e", "print $^X")),
       (re.compile(r"^ruby[0-9.]*$"), ("-e", "print RbConfig.ruby")))
"""Program names and the arguments that make them print their real executable."""
ASK_SECONDS = 30.0

log = logging.getLogger("gameroom.arena")


class MissingInterpreter(GameroomError, ValueError):
    """A language's program is not on this host (or does not run): the message says which."""


class Interpreters:
    """The real executables of the arena's language programs, found once each (thread-safe).
    ``path``: the PATH to search (the arena's own by default)."""

    def __init__(self, path: str | None = None) -> None:
        self.path = path
        self._found: dict[str, str | MissingInterpreter] = {}
        self._lock = threading.Lock()

    def locate(self, program: str) -> str:
        """The real executable of ``program`` (a name looked up on the PATH and asked; a
        path is only checked); MissingInterpreter when there is none that runs."""
        with self._lock:
            found = self._found.get(program)
            if found is None:
                found = self._found[program] = self._ask(program)
                if isinstance(found, MissingInterpreter):   # the operator hears of it once, not per build
                    log.warning("interpreter missing", extra={"fields": {"program": program, "problem": str(found)}})
                else:
                    log.info("interpreter", extra={"fields": {"program": program, "path": found}})
        if isinstance(found, MissingInterpreter):
            raise found
        return found

    def _ask(self, program: str) -> str | MissingInterpreter:
        if "/" in program:   # a path the staff wrote: run as written, never asked
            if os.path.isfile(program) and os.access(program, os.X_OK):
                return program
            return MissingInterpreter(f"the interpreter {program!r} is not an executable file on this host")
        where = shutil.which(program, path=self.path)
        if where is None:
            return MissingInterpreter(f"the interpreter {program!r} is not found on this arena's PATH: ask the "
                                      "staff to install it or to name its full path in arena.toml's [[languages]]")
        where = os.path.abspath(where)
        question = next((args for pattern, args in ASK if pattern.match(os.path.basename(program))), None)
        if question is None:
            return os.path.realpath(where)
        env = dict(os.environ)
        if self.path is not None:
            env["PATH"] = self.path
        try:
            answer = subprocess.run([where, *question], capture_output=True, stdin=subprocess.DEVNULL,
                                    timeout=ASK_SECONDS, env=env)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return MissingInterpreter(f"the interpreter {program!r} ({where}) does not run here: {exc}")
        text = answer.stdout.decode("utf-8", "replace").strip()
        if answer.returncode != 0 or not os.path.isabs(text) or not os.path.isfile(text):
            said = " ".join(answer.stderr.decode("utf-8", "replace").split())[:200] or f"status {answer.returncode}"
            return MissingInterpreter(f"the interpreter {program!r} ({where}) does not run here: {said}")
        return text

    def command(self, argv: list[str] | tuple[str, ...]) -> list[str]:
        """``argv`` with its program replaced by its real executable when it is a name to
        look up on the PATH (a path, such as a command bot's own file, stays as it is)."""
        if not argv or "{" in argv[0] or "/" in argv[0]:
            return list(argv)
        return [self.locate(argv[0]), *argv[1:]]
