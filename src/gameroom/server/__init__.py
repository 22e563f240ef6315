"""Hosting games for remote players: the asyncio sign-up server and the clients runner.

Game-agnostic: a game hands over a ``gameroom.core.hosting.ServerPlan`` or a list of
``ClientSpec``. May import ``core`` and ``remote``; never a game or ``cli``.
"""
