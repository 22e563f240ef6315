"""Fish ("Hey, that's my fish"): penguins on a hexagonal board of fish tiles (spec fish.md).

Pure game package (no I/O): board geometry (``board``), game state and rules (``state``),
game tree (``tree``), strategies (``strategies``), a trusted in-process game runner
(``game``), JSON codecs (``wire``), the player interface and remote calls (``protocol``),
configuration files (``config``), misbehaving players as data (``baddies``), tournament
allocation (``tournament``), SVG pictures (``render``) and the test harnesses (``harness``).
"""
