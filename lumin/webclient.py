"""Where this install keeps the browser client that ``lumin serve`` serves when ``--static``
is not given.

A wheel or sdist install carries the built client inside the package, as ``lumin/web/``
(setup.py puts it there). A checkout installed for development (``pip install -e``, ``make
setup``) has no such folder: it serves its own build, ``clients/web/dist`` (``make
web-build``), when there is one.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["folder"]

_PACKAGE = Path(__file__).resolve().parent


def folder() -> Path | None:
    """The folder of the browser client's built files (its ``index.html`` and assets): the
    packaged one, else a checkout's ``clients/web/dist``; ``None`` when neither is built."""
    packaged = _PACKAGE / "web"
    if (packaged / "index.html").is_file():
        return packaged
    checkout = _PACKAGE.parent / "clients" / "web"
    if (checkout / "package.json").is_file() and (checkout / "dist" / "index.html").is_file():
        return checkout / "dist"
    return None
