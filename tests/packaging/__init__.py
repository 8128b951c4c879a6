"""Lumin's distribution as a newcomer installs it."""
