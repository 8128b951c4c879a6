"""``lumin ratings``: download every rated game's log from a server, and recompute every
rating from such logs into an empty store (SQLite in a data folder, or PostgreSQL)."""

from __future__ import annotations

import asyncio
import json
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import click

from lumin.server_option import server_url, url_option
from lumin.urls import BadUrl

__all__ = ["ratings"]


def _get(url: str, token: str | None) -> Any:
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as answer:
        return json.load(answer)


def rated_rooms(base: str, token: str | None) -> list[str]:
    """Every rated game's room id on the server at ``base``, page by page (``GET /rated``,
    then ``?after=`` each page's ``next``): public games', or every game's with the admin
    ``token``."""
    rooms: list[str] = []
    query: dict[str, str] = {"limit": "200"}
    while True:
        page = _get(f"{base}/rated?{urllib.parse.urlencode(query)}", token)
        rooms += page["rooms"]
        if not page.get("next"):
            return rooms
        query["after"] = page["next"]


@click.group()
def ratings() -> None:
    """Players' ratings: download rated games' logs, recompute ratings from them."""


@ratings.command("download")
@click.argument("where", nargs=-1, required=True, metavar="[SERVER] FOLDER")
@url_option
@click.option(
    "--admin-token",
    envvar="LUMIN_ADMIN_TOKEN",
    help="The server's admin token: private rooms' rated games too (without it, public ones).",
)
def download(where: tuple[str, ...], admin_token: str | None) -> None:
    """Save the log of every rated game on SERVER (http://HOST:PORT or ws://HOST:PORT/ws;
    without it, --url or LUMIN_URL) in FOLDER, one <room>.json each (GET /rated page by page,
    then GET /rooms/<room>/log): the public rooms' games, or with --admin-token every room's
    (private ones too).

    \b
    Example:
      lumin ratings download https://games.example.org logs/
    """
    context = click.get_current_context()
    if len(where) > 2:
        raise click.UsageError("give [SERVER] FOLDER: at most two arguments", context)
    try:
        server = server_url(context, where[0] if len(where) == 2 else None)
    except BadUrl as error:
        raise click.UsageError(str(error), context) from None
    base, folder = server.http, Path(where[-1])
    folder.mkdir(parents=True, exist_ok=True)
    try:
        rooms = rated_rooms(base, admin_token)
        for room in rooms:
            document = _get(f"{base}/rooms/{urllib.parse.quote(room)}/log", admin_token)
            (folder / f"{room}.json").write_text(json.dumps(document))
    except OSError as error:
        raise click.ClickException(f"cannot download from {server.said()}: {error}") from None
    which = "every room's" if admin_token else "public rooms' (private ones need --admin-token)"
    click.echo(f"{len(rooms)} rated game logs of {server.said()} saved in {folder}: {which}")


@ratings.command("recompute")
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--data", type=click.Path(path_type=Path), help="Data folder of a SQLite store.")
@click.option("--store", "url", help="A postgresql:// URL instead of --data.")
def recompute_command(folder: Path, data: Path | None, url: str | None) -> None:
    """Recompute every rating from the logs in FOLDER (lumin ratings download) into an empty
    store, and print how many, and from which games: a download without the admin token holds
    public rooms' rated games only, so ratings moved by private rooms' games come out
    without them."""
    from server.recompute import RecomputeError, recompute_into

    if (data is None) == (url is None):
        raise click.UsageError("name the store to fill: --data FOLDER or --store postgresql://")
    documents = [json.loads(path.read_text()) for path in sorted(folder.glob("*.json"))]

    async def run() -> int:
        if url is not None:
            from server.pgstore import PostgresStore

            store: Any = PostgresStore(url)
        else:
            from server.store import EventStore

            assert data is not None
            store = EventStore(data / "lumin.sqlite3")
        await store.open()
        try:
            return await recompute_into(store, documents)
        finally:
            await store.aclose()

    try:
        count = asyncio.run(run())
    except RecomputeError as error:
        raise click.ClickException(str(error)) from None
    private = sum(1 for document in documents if document.get("private"))
    click.echo(
        f"{count} ratings recomputed from {len(documents)} logs"
        f" ({len(documents) - private} of public rooms, {private} of private rooms)"
    )
