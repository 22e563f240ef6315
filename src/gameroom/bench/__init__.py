"""Benchmarks, apart from the tests: ``python -m gameroom.bench [GAME|all]``.

The games come from the registry (``gameroom.games.registry``). A game's descriptor may
name a module with ``run(games: int) -> None`` that prints its own figures (games per
second, turns per second, peak memory, remote call latency); any other game gets the
generic figure of :mod:`gameroom.bench.generic`. Benchmarks assert nothing; seeds are
fixed so runs are comparable.
"""
