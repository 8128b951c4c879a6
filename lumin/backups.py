"""``lumin backup`` and ``lumin restore``: the SQLite store of a data folder, copied out and put
back (:mod:`server.backup`)."""

from __future__ import annotations

from pathlib import Path

import click

from lumin.errors import fail

__all__ = ["backup_command", "restore_command"]


_data_option = click.option(
    "--data",
    envvar="LUMIN_DATA",
    type=click.Path(path_type=Path),
    default=Path("data"),
    show_default=True,
    help="The server's data folder (as lumin serve --data).",
)


@click.command("backup")
@click.argument("dest", type=click.Path(path_type=Path))
@_data_option
def backup_command(dest: Path, data: Path) -> None:
    """Copy the data folder's SQLite store to DEST (a file, or a folder to put a dated file
    in), consistently, even while a server runs on it; the copy is checked before it replaces
    DEST. Exits 1 when it cannot be made."""
    from server.backup import BackupError, backup

    try:
        copied = backup(data, dest)
    except BackupError as error:
        fail("backup", str(error), 1)
    click.echo(f"backed up {data} to {copied.path}: {copied.describe()}; integrity ok")


@click.command("restore")
@click.argument("src", type=click.Path(path_type=Path))
@_data_option
def restore_command(src: Path, data: Path) -> None:
    """Put the SQLite store SRC (a lumin backup) in place as the data folder's store, keeping
    the one it replaces as lumin.sqlite3.before-restore. Refused (exit 1) while a server runs
    on the folder, and for a file that is not a whole Lumin store this Lumin can open."""
    from server.backup import BackupError, restore

    try:
        restored, kept = restore(data, src)
    except BackupError as error:
        fail("restore", str(error), 1)
    click.echo(f"restored {src} into {data}: {restored.describe()}")
    if kept is not None:
        click.echo(f"the store it replaced is kept as {kept}")
