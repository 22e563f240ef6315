"""The games. Each sub-package is pure: no sockets, threads, files, clocks or printing.

A game package may import ``gameroom.core`` but never ``gameroom.remote``, ``server``,
``league``, ``web``, ``cli`` or another game. ``registry`` finds every game registered
under the ``gameroom.games`` entry points, these five and any installed plug-in.
"""
