"""The ``gameroom`` command's entry (``python -m gameroom`` and the installed script).

The command line is imported inside :func:`run` so that Ctrl-C while it still loads (a
second or more on a busy machine) ends the command as Ctrl-C later does, with one line and
status 130 (``cli.main.main`` handles it from there on), not a traceback from an import.
"""

import sys


def run() -> int:
    """Load the command line and run it."""
    try:
        from gameroom.cli.main import main
    except KeyboardInterrupt:
        sys.stderr.write("gameroom: interrupted\n")
        return 130
    return main()


if __name__ == "__main__":
    raise SystemExit(run())
