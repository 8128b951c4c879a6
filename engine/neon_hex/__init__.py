"""Neon Hex Strategy: race rival factions to 12 hexes on a 37-hex grid (``rules.GAME``)."""
