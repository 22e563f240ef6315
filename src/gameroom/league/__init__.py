"""Leagues: many games between bots, scheduled, played on a process pool or a Ray cluster,
stored in a results database and rated (``gameroom league``; docs/ARCHITECTURE.md, "Leagues")."""
