"""gameroom: a platform that hosts competitive turn-based games between automated players.

Layers (each may import only the ones below it):

    cli            command line: play, serve, clients, tournament, harness
    server         sign-up, running games for remote players (asyncio, TCP)
    remote         JSON stream codec, proxy player, proxy referee (game-agnostic)
    core           safe calls, referee driver, ejection, observers, results (game-agnostic)
    games/<name>   pieces, rules, scoring, strategies, wire codecs (pure, no I/O)
"""

import logging

__version__ = "0.1.0"

# A library logs through module loggers (logging.getLogger(__name__)) and never prints them
# itself: without this, Python's last-resort handler would write warnings to standard error of
# every program that imports gameroom. The command line installs the real handler (cli/main.py).
logging.getLogger(__name__).addHandler(logging.NullHandler())
