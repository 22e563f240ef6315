"""Remote play, game-agnostic: the JSON stream reader and writer, the server-side proxy
player and the client-side proxy referee, both derived from a game's declared protocol.

May import ``gameroom.core``; never a game, ``server`` or ``cli``.
"""
