"""The games. Each sub-package is pure: no sockets, threads, files or printing.

A game package may import ``gameroom.core`` (game-agnostic referee support) but never
``gameroom.remote``, ``gameroom.server`` or ``gameroom.cli``.
"""
