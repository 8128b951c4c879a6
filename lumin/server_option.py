"""``--url``, the server a command reaches, taken before or after any subcommand
(``lumin --url URL admin rooms``, ``lumin admin --url URL rooms``, ``lumin admin rooms --url
URL``: the last one given wins), else from the environment (:mod:`lumin.urls` says in which
order).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

import click

from lumin.urls import DEFAULT, ServerUrl

__all__ = ["server_url", "url_option"]

F = TypeVar("F", bound=Callable[..., Any])

#: Where the last ``--url`` given is kept: ``Context.meta``, which nested contexts share.
_KEY = "lumin.url"

URL_HELP = (
    "The server: ws://HOST:PORT/ws or http://HOST:PORT/ (either; wss:// and https:// too),"
    " here or before the subcommand; default: $LUMIN_URL, else http://127.0.0.1:8700."
)


def _remember(context: click.Context, _: click.Parameter, value: str | None) -> None:
    if value is not None:
        context.meta[_KEY] = value


def url_option(command: F) -> F:
    """Add ``--url`` to a command or group: it sets the server for the whole command line."""
    option = click.option(
        "--url", metavar="URL", expose_value=False, callback=_remember, help=URL_HELP
    )
    return option(command)


def server_url(context: click.Context, given: str | None = None, admin: bool = False) -> ServerUrl:
    """The server this command line names: ``given`` (a URL argument), else the last
    ``--url``, else ``LUMIN_ADMIN_URL`` (with ``admin``), else ``LUMIN_URL``, else the
    default. Raises :class:`~lumin.urls.BadUrl` (naming where it came from) for a URL that
    is not one."""
    choices = [
        ("the URL argument", given),
        ("--url", context.meta.get(_KEY)),
        ("LUMIN_ADMIN_URL", os.environ.get("LUMIN_ADMIN_URL") if admin else None),
        ("LUMIN_URL", os.environ.get("LUMIN_URL")),
        ("the default: no --url or LUMIN_URL", DEFAULT),
    ]
    source, url = next((source, url) for source, url in choices if url)
    return ServerUrl(url, source)
