"""A Lumin server's addresses: its websocket endpoint (``ws://HOST:PORT/ws``, what ``lumin
play`` and ``lumin bot`` connect to) and its HTTP address (``http://HOST:PORT/``: the browser
client, the admin API), either derived from the other, and the one line ``lumin serve`` prints
to say where to point a browser.

One server URL reaches every command: ``--url`` (before or after the subcommand), else
``LUMIN_URL``, else (``lumin admin`` only) ``LUMIN_ADMIN_URL``, else the default,
``http://127.0.0.1:8700``, the address of a ``lumin serve`` started without flags. Any of
ws://, wss://, http:// and https:// is accepted: ws pairs with http, wss with https, and the
websocket path is the HTTP path with ``ws`` appended (``https://example.org/games/`` is
``wss://example.org/games/ws``).
"""

from __future__ import annotations

import socket
import urllib.parse

import attrs

__all__ = ["DEFAULT", "BadUrl", "ServerUrl", "browser_line"]

#: The server a command reaches when it is told of none: ``lumin serve``'s own default.
DEFAULT = "http://127.0.0.1:8700"

_PAIRS = {"ws": "http", "wss": "https", "http": "ws", "https": "wss"}
#: The hosts that mean "every address of this machine" when listened on.
_EVERYWHERE = ("", "0.0.0.0", "::", "[::]")


class BadUrl(ValueError):
    """A server URL that is not ws://, wss://, http:// or https:// with a host."""


@attrs.frozen
class ServerUrl:
    """One server's address as given (``given``), with where it came from (``source``:
    ``--url``, ``LUMIN_URL``, ``LUMIN_ADMIN_URL`` or ``the default``)."""

    given: str
    source: str = "--url"

    def __attrs_post_init__(self) -> None:
        parts = urllib.parse.urlsplit(self.given.strip())
        if parts.scheme not in _PAIRS or not parts.hostname:
            raise BadUrl(
                f"{self.given!r} ({self.source}) is not a Lumin server's URL: give"
                " ws://HOST:PORT/ws or http://HOST:PORT/ (wss:// and https:// too)"
            )
        try:
            parts.port  # noqa: B018 (raises on a port that is no number)
        except ValueError:
            raise BadUrl(f"{self.given!r} ({self.source}) has a port that is no number") from None

    @property
    def websocket(self) -> str:
        """The websocket endpoint: ``ws://HOST:PORT/ws`` (a ws:// URL as given)."""
        parts = urllib.parse.urlsplit(self.given.strip())
        if parts.scheme in ("ws", "wss"):
            return urllib.parse.urlunsplit(parts._replace(path=parts.path or "/ws"))
        path = parts.path if parts.path.endswith("/") else parts.path + "/"
        scheme = _PAIRS[parts.scheme]
        return urllib.parse.urlunsplit((scheme, parts.netloc, path + "ws", parts.query, ""))

    @property
    def http(self) -> str:
        """The HTTP address, without a trailing slash: ``http://HOST:PORT`` (the websocket
        path's last ``/ws`` dropped)."""
        parts = urllib.parse.urlsplit(self.given.strip())
        path = parts.path
        if parts.scheme in ("ws", "wss"):
            path = path.removesuffix("/ws")
            scheme = _PAIRS[parts.scheme]
        else:
            scheme = parts.scheme
        return urllib.parse.urlunsplit((scheme, parts.netloc, path.rstrip("/"), "", ""))

    def said(self) -> str:
        """The address and where it came from, for a line that says which server answered."""
        return f"{self.http} ({self.source})"


def browser_line(host: str, port: int, public_url: str | None, serves_client: bool) -> str:
    """The line ``lumin serve`` prints once it listens on ``host``:``port``: where to point a
    browser (from ``public_url``, this node's websocket URL as clients reach it, when set);
    ``serves_client`` False says that no browser client is served there."""
    if public_url is not None:
        address = ServerUrl(public_url.replace("{port}", str(port)), "--public-url").http + "/"
        others = ""
    elif host in _EVERYWHERE:
        address = f"http://127.0.0.1:{port}/"
        others = (
            f" (it listens on every address: from elsewhere, http://{socket.gethostname()}:{port}/)"
        )
    else:
        shown = f"[{host}]" if ":" in host else host
        address, others = f"http://{shown}:{port}/", ""
    if not serves_client:
        return (
            f"Lumin is serving {address} without the browser client (this install has no"
            " build of it: --static names one, make web-build makes one)"
        )
    return f"Lumin is serving: point a browser at {address}{others}"
