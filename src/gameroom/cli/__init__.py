"""The ``gameroom`` command line: play, tournament, serve, clients, harness, league,
ratings, replay, web and connect.

The only layer that reads standard input, prints, and touches files for a game. Every
game's commands are written once (``commands.py``) and driven by the game's descriptor:
its hosting's options become arguments (``arguments.py``), its plans and narrator do the
rest. No module here belongs to a game.
"""
