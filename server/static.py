"""The browser client's built files (``--static``, Vite's ``dist/``), answered from memory.

:class:`StaticFiles` reads the whole folder once, when the server is built, and never touches
the disk again: no request waits on a file read, and nothing blocks the event loop while
players are connected. A build is a few hundred kilobytes and does not change under a running
server (a deploy replaces it and restarts Lumin), so holding it costs little and a rebuild is
seen after a restart. Reading it per request with ``asyncio.to_thread`` would keep a thread
hop and a cache to invalidate for no gain.

Each file is answered with:

- ``Cache-Control: public, max-age=31536000, immutable`` for Vite's hashed assets
  (``assets/<name>-<hash>.<ext>``: a new build gives them new names), ``no-cache`` for
  everything else (``index.html`` above all, which names the current assets), so a browser
  revalidates it and picks up a new build at once;
- a strong ``ETag`` (a digest of the content), and ``304 Not Modified`` for an
  ``If-None-Match`` naming it;
- gzip, compressed once at load with the standard library, for compressible types when the
  request's ``Accept-Encoding`` allows it and it is smaller, with ``Vary: Accept-Encoding``.

Paths the client routes itself (``/rooms/<id>``...) get ``index.html``; a missing file under
``assets/`` gets 404 (a stale or mistyped asset, never HTML in place of a script). A path
with a ``..`` segment is refused (404); only files inside the folder are loaded, so a symbolic
link out of it is never served, nor a dot-named file or anything in a dot-named folder
(``.env``, ``.git/``). A missing or non-directory folder loads nothing:
:attr:`StaticFiles.missing` says so (the server logs ``static_folder_missing`` at start) and
``/`` answers 404 with a sentence saying the browser client is not built.
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
import os
import posixpath
import re
import urllib.parse
from collections.abc import Mapping
from http import HTTPStatus
from pathlib import Path

import attrs
from websockets.datastructures import Headers
from websockets.http11 import Response

__all__ = ["IMMUTABLE", "StaticFiles", "accepts_gzip", "is_hashed_asset"]

#: The caching of a hashed asset: its name changes with its content.
IMMUTABLE = "public, max-age=31536000, immutable"
#: Vite's output names: assets/<name>-<8 characters of hash>.<extension>.
_HASHED = re.compile(r"assets/(?:.+/)?[^/]+-[A-Za-z0-9_-]{8}\.[A-Za-z0-9]+")
#: Types worth compressing (images and fonts other than SVG are compressed already).
_COMPRESSIBLE = re.compile(
    r"text/.*|application/(?:javascript|json|manifest\+json|xml|wasm)|image/svg\+xml"
)


def is_hashed_asset(name: str) -> bool:
    """Whether ``name`` (relative to the folder, ``/``-separated) is a content-hashed asset."""
    return _HASHED.fullmatch(name) is not None


def accepts_gzip(accept_encoding: str | None) -> bool:
    """Whether an ``Accept-Encoding`` value allows gzip (RFC 9110 12.5.3): ``gzip`` (or
    ``x-gzip``) or ``*`` with a non-zero quality, unless gzip itself is given ``q=0``."""
    if not accept_encoding:
        return False
    qualities: dict[str, float] = {}
    for item in accept_encoding.split(","):
        coding, _, params = item.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        qualities[coding.strip().lower()] = quality
    for coding in ("gzip", "x-gzip"):
        if coding in qualities:
            return qualities[coding] > 0
    return qualities.get("*", 0.0) > 0


@attrs.frozen
class _File:
    """One file as answered: its type, caching, content and ETag, and gzip when it pays."""

    kind: str
    cache: str
    body: bytes
    etag: str
    gzipped: bytes | None
    #: Whether answers depend on Accept-Encoding (a compressible type).
    varies: bool

    @classmethod
    def of(cls, name: str, body: bytes) -> _File:
        kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
        cache = IMMUTABLE if is_hashed_asset(name) else "no-cache"
        etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
        varies = _COMPRESSIBLE.fullmatch(kind) is not None
        gzipped = gzip.compress(body, compresslevel=9, mtime=0) if varies else None
        if gzipped is not None and len(gzipped) >= len(body):
            gzipped = None
        return cls(kind, cache, body, etag, gzipped, varies)

    def answer(self, headers: Mapping[str, str]) -> Response:
        """The answer to a GET with these request headers."""
        use_gzip = self.gzipped is not None and accepts_gzip(headers.get("Accept-Encoding"))
        # Each encoding is its own representation, with its own strong ETag.
        etag = self.etag[:-1] + '-gzip"' if use_gzip else self.etag
        fields = [("Cache-Control", self.cache), ("ETag", etag)]
        if self.varies:
            fields.append(("Vary", "Accept-Encoding"))
        if _matches(headers.get("If-None-Match"), etag):
            status = HTTPStatus.NOT_MODIFIED
            return Response(status.value, status.phrase, Headers(fields), b"")
        body = self.gzipped if use_gzip and self.gzipped is not None else self.body
        fields += [("Content-Type", self.kind), ("Content-Length", str(len(body)))]
        if use_gzip:
            fields.append(("Content-Encoding", "gzip"))
        return Response(HTTPStatus.OK.value, HTTPStatus.OK.phrase, Headers(fields), body)


def _matches(if_none_match: str | None, etag: str) -> bool:
    """Whether ``If-None-Match`` names ``etag`` (weak comparison, RFC 9110 13.1.2) or is ``*``."""
    if not if_none_match:
        return False
    tags = [tag.strip().removeprefix("W/") for tag in if_none_match.split(",")]
    return "*" in tags or etag in tags


def _refusal(body: str) -> Response:
    data = body.encode()
    headers = Headers(
        [
            ("Content-Type", "text/plain; charset=utf-8"),
            ("Content-Length", str(len(data))),
            ("Cache-Control", "no-cache"),
        ]
    )
    return Response(HTTPStatus.NOT_FOUND.value, HTTPStatus.NOT_FOUND.phrase, headers, data)


class StaticFiles:
    """The files of ``root`` (the ``--static`` folder, by default the browser client the
    install carries; ``None`` when it carries none and none was named), loaded into memory
    now."""

    def __init__(self, root: Path | None) -> None:
        self.root = root
        #: Each file by its ``/``-separated path in the folder.
        self.files: dict[str, _File] = {}
        #: Whether a folder was named but is missing or is not a directory.
        self.missing = root is not None and not root.is_dir()
        if root is not None and not self.missing:
            self.files = _load(root)

    def answer(self, path: str, headers: Mapping[str, str]) -> Response:
        """The answer to a GET of ``path`` (without its query) with these request headers."""
        if self.root is None:
            return _refusal(
                "The browser client is not served here: this Lumin install carries no browser"
                " client and none was named with --static (LUMIN_STATIC).\n"
            )
        if self.missing:  # the folder's path is in the server's log, not for the client
            return _refusal(
                "The browser client is not built: the server's static folder is missing or"
                " is not a folder (make web-build builds clients/web/dist).\n"
            )
        name = urllib.parse.unquote(path).lstrip("/")
        if _hidden(name) or "\\" in name or "\0" in name:
            return _refusal("Not found.\n")
        name = posixpath.normpath(name) if name else ""
        name = "" if name == "." else name
        found = self.files.get(name) or self.files.get(posixpath.join(name, "index.html"))
        if found is None and not name.startswith("assets/"):
            found = self.files.get("index.html")  # the browser client routes its own paths
        if found is None:
            return _refusal("Not found.\n")
        return found.answer(headers)


def _hidden(name: str) -> bool:
    """Whether a ``/``-separated path goes through a dot-named file or folder (``.env``,
    ``.git/config``, ``..``): never served, whatever the folder holds."""
    return any(part.startswith(".") for part in name.split("/"))


def _load(root: Path) -> dict[str, _File]:
    """Every regular file under ``root`` whose real path is inside it, by relative path, but
    hidden ones (a dot-named file, or anything in a dot-named folder)."""
    base = root.resolve()
    files: dict[str, _File] = {}
    for folder, _, names in os.walk(base):
        for filename in names:
            target = Path(folder, filename)
            name = target.relative_to(base).as_posix()
            real = target.resolve()
            if _hidden(name) or not real.is_relative_to(base) or not real.is_file():
                continue
            files[name] = _File.of(name, real.read_bytes())
    return files
