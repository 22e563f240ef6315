"""The arena: a season-long bot competition on its own server (``gameroom arena``).

One long-running service hosts competitions, each for one registered game: accounts and
invite codes (the web room's log-in), bot uploads in configured languages built and run in
the sandbox, a continuous ladder on a worker pool recorded through the league's
``record_game``, openskill standings, live pages, a final tournament, and the operation
around it (structured logs, metrics, restart after a crash). Nothing here names a game.
"""
