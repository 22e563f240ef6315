"""The game-agnostic referee core: safe calls to players, ejection, observers, results,
the tournament manager, and the JSON validation helpers every game's wire codec uses.

May import only the standard library; never a game, ``sandbox`` (how a bot is contained, built
on the core), ``remote``, ``server`` or ``cli``.
"""
