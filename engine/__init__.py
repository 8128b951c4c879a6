"""Lumin's games as pure rules: no network, no clock, no global randomness."""
