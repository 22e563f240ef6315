"""Benchmarks, apart from the tests: ``python -m gameroom.bench [GAME|all]``.

The games come from the registry (``gameroom.games.registry``). Every game gets the
generic figures of :mod:`gameroom.bench.generic` (in-process games between its built-in
players, the workloads its descriptor declares, and one remote call through
:mod:`gameroom.bench.remote`); the other modules measure the servers, the league and the
lobby for any game. Benchmarks assert nothing; seeds are fixed so runs are comparable.
"""
