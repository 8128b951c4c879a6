"""Neon Flip: card-driven tile flipping on a 6 x 6 grid, 2-4 players or solo against
PROTO-ZERO. The rules object is :data:`engine.neon_flip.rules.GAME`, its bots
:data:`engine.neon_flip.bots.BOTS` (attached by :func:`engine.registry.get_game`)."""
