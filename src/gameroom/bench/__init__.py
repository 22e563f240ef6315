"""Benchmarks, apart from the tests: ``python -m gameroom.bench [q|bazaar|fish|evolution|all]``.

Each game has a module here with ``run(games: int) -> None`` that prints figures (games
per second, turns per second, peak memory, remote call latency) and asserts nothing.
Seeds are fixed so runs are comparable.
"""

GAMES = {"q": "gameroom.bench.q", "bazaar": "gameroom.bench.bazaar", "fish": "gameroom.bench.fish",
         "evolution": "gameroom.bench.evolution"}
