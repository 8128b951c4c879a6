"""Neon Hex Strategy: race rival factions to 12 hexes on a 37-hex grid (``rules.GAME``; its bots
in ``bots.BOTS``, attached by :func:`engine.registry.get_game`)."""
