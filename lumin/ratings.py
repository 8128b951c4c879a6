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

__all__ = ["ratings"]


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as answer:
        return json.load(answer)


@click.group()
def ratings() -> None:
    """Players' ratings: download rated games' logs, recompute ratings from them."""


@ratings.command("download")
@click.argument("server")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
def download(server: str, folder: Path) -> None:
    """Save the log of every rated game on SERVER (http://host:port) in FOLDER, one
    <room>.json each (GET /rated, then GET /rooms/<room>/log)."""
    base = server.rstrip("/")
    folder.mkdir(parents=True, exist_ok=True)
    try:
        rooms = _get(f"{base}/rated")["rooms"]
        for room in rooms:
            document = _get(f"{base}/rooms/{urllib.parse.quote(room)}/log")
            (folder / f"{room}.json").write_text(json.dumps(document))
    except OSError as error:
        raise click.ClickException(f"cannot download from {base}: {error}") from None
    click.echo(f"{len(rooms)} rated game logs saved in {folder}")


@ratings.command("recompute")
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--data", type=click.Path(path_type=Path), help="Data folder of a SQLite store.")
@click.option("--store", "url", help="A postgresql:// URL instead of --data.")
def recompute_command(folder: Path, data: Path | None, url: str | None) -> None:
    """Recompute every rating from the logs in FOLDER (lumin ratings download) into an empty
    store, and print how many."""
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
    click.echo(f"{count} ratings recomputed from {len(documents)} logs")
