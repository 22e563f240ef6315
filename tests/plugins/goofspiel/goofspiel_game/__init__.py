"""Goofspiel for gameroom: ``game`` (rules, codecs, players, the referee in simultaneous
rounds, views, picture), ``learning`` (the encoding for agents), ``bots`` (a league's
Python and policy bots) and ``descriptor`` (``GAME``, what gameroom sees)."""
