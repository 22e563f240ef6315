"""A policy module whose top level fails (``clients --policy`` must say so in one line)."""

raise RuntimeError("this module breaks as it is imported")
