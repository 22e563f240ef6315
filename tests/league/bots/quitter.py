"""A ``python`` bot whose module exits as it is imported (``sys.exit(1)`` at its top): the
league must not run it in its own process (it would end the league, silently, with
status 1), only in the bot's sandbox, where the player is never made."""

import sys

print("quitter: refusing to play", file=sys.stderr)
sys.exit(1)


class Bot:
    def __init__(self, name: str, seed: int) -> None:
        self.name = name
