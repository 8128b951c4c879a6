"""How a ``lumin`` command fails: one line on standard error and an exit status."""

from __future__ import annotations

import sys
from typing import NoReturn

import click

__all__ = ["fail"]


def fail(command: str, message: str, status: int) -> NoReturn:
    """Print ``lumin COMMAND: MESSAGE`` as one line on standard error and exit with
    ``status``."""
    click.echo(f"lumin {command}: {' '.join(message.split())}", err=True)
    sys.exit(status)
