"""The ``gameroom`` command line: play, serve, clients, tournament, harness, bench.

The only layer that reads standard input, prints, and touches files; it may import
everything. Each game contributes a :class:`gameroom.cli.common.GameCommands`.
"""
