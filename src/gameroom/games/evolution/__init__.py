"""Evolution (spec evolution.md): species boards, traits, a watering hole and a feeding
cycle for 3 to 8 players, refereed by a dealer.

Pure modules: :mod:`pieces` (traits, cards, the deck, species boards), :mod:`rules`
(attackability, feeding a species, feeding possibilities), :mod:`actions` (Action4
validation and application), :mod:`dealer` (the turn engine, asking its players through
a pluggable call), :mod:`players` (the built-in silly player and the baddies), :mod:`codec`
(JSON codecs), :mod:`protocol` (the player interface), :mod:`referee` (the dealer on
``core.match``), :mod:`harness` (the course's test harnesses) and :mod:`render` (SVG).
"""
