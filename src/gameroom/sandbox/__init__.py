"""How a bot is contained: untrusted code (a league's or the arena's Python and program
bots, an isolated seat's player, a build) runs here, never in the referee's process.

``policy`` (the sandbox a league or the arena asks for and the resource limits it sets),
``confine`` (a program started in it: bubblewrap's namespaces, or resource limits and a
sweep of what it left), ``bwrap`` (bubblewrap's arguments and what it must let read),
``launcher`` (the script that drops a bot to its own user inside, never imported),
``netns`` (a listening socket made in a bot's network namespace), ``cpuacct`` and
``sweep`` (the CPU-accounting and process groups of the host), ``isolation`` (a player
in a child process: the caller and the seat the referee calls it through).

Built on ``core`` (errors, calls, records, the match's seats); imported by the league, the
arena, the command line and the benchmarks; never a game, ``remote`` or ``server``.
"""
