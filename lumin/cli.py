"""The ``lumin`` command. Its subcommands live in the modules named in :data:`COMMANDS`, each
imported only when it is used (or when ``lumin --help`` lists it), so the client's commands
(``lumin bot``, ``lumin play``, ``lumin admin``) run from a client-only install
(``pip install lumin``), and the server's (``lumin serve``, ``backup``, ``verify``...) say in
one line that they need ``lumin[server]`` when it is missing."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import click

from lumin.admin import admin
from lumin.errors import fail
from lumin.server_option import server_url, url_option
from lumin.urls import BadUrl

__all__ = ["COMMANDS", "main"]

#: Each lazily loaded subcommand: ``module:attribute`` of its click command, and the modules
#: it needs (imported first, so a client-only install names what it lacks).
COMMANDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "serve": ("lumin.serve:serve", ("server.app",)),
    "selfplay": ("lumin.arena:selfplay", ()),
    "arena": ("lumin.arena:arena", ()),
    "bench": ("lumin.bench:bench", ("clients.load",)),
    "backup": ("lumin.backups:backup_command", ("server.backup",)),
    "restore": ("lumin.backups:restore_command", ("server.backup",)),
    "verify": ("lumin.verify:verify", ("server.verify",)),
    "ratings": ("lumin.ratings:ratings", ("server.recompute",)),
}


class _LazyGroup(click.Group):
    """A click group that imports the commands of ``lazy`` (see :data:`COMMANDS`) on first
    use; a command whose modules cannot be imported becomes one that says so."""

    def __init__(self, *args: Any, lazy: Mapping[str, tuple[str, tuple[str, ...]]], **kw: Any):
        super().__init__(*args, **kw)
        self.lazy = dict(lazy)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.lazy or cmd_name in self.commands:
            return super().get_command(ctx, cmd_name)
        target, needs = self.lazy[cmd_name]
        module_name, attribute = target.split(":")
        try:
            for needed in (*needs, module_name):
                importlib.import_module(needed)
        except ModuleNotFoundError as error:
            return _unavailable(cmd_name, error)
        command = getattr(importlib.import_module(module_name), attribute)
        assert isinstance(command, click.Command)
        self.add_command(command, cmd_name)
        return command


def _unavailable(name: str, error: ModuleNotFoundError) -> click.Command:
    """A stand-in for ``lumin NAME`` in an install without what it needs."""
    missing = error.name or str(error)
    what = "Lumin's rules engine" if missing.split(".")[0] == "engine" else "Lumin's server"
    message = (
        f"this install has no {missing!r}, and lumin {name} needs {what}: install"
        " 'lumin[server]' (pip install 'lumin[server]')"
    )

    def unavailable(args: Sequence[str]) -> None:
        fail(name, message, 2)

    return click.Command(
        name,
        callback=unavailable,
        params=[click.Argument(["args"], nargs=-1, type=click.UNPROCESSED)],
        help=f"(not in this install: needs {what}, lumin[server])",
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
        add_help_option=False,
    )


@click.group(cls=_LazyGroup, lazy=COMMANDS)
@click.version_option(package_name="lumin", prog_name="lumin", message="%(prog)s %(version)s")
@url_option
def main() -> None:
    """Lumin: a real-time server for neon tabletop games.

    \b
    Examples:
      lumin serve --data ~/lumin            # then open the address it prints
      lumin play --name Ada                 # play in this terminal
      lumin bot r7Kq2 --seat 1              # a bot plays seat 1 of room r7Kq2
      lumin --url https://games.example.org admin rooms

    The server of play, bot and admin is --url (here or after the subcommand), else
    LUMIN_URL, else http://127.0.0.1:8700; ws:// and http:// both work. Each says which
    server answered. Tab completion: docs/install.md ("Shell completion").
    """


main.add_command(admin)


# The client's own commands (``bot``, ``play``, and any other that a client-only install runs) are
# defined here and import what they need inside their function, never at module level.


@main.command("bot")
@click.argument("where", nargs=-1, required=True, metavar="[URL] ROOM")
@url_option
@click.option("--seat", type=int, required=True, help="The seat to play.")
@click.option(
    "--kind",
    default=None,
    help="One of the game's bots (default: its default bot; random in a client-only install),"
    " or MODULE:CALLABLE, a bot of your own (docs/bots.md).",
)
@click.option("--name", default="Lumin bot", show_default=True)
@click.option("--token", envvar="LUMIN_TOKEN", default=None, help="Reclaim a seat held before.")
@click.option("--code", default=None, help="A private room's code.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option(
    "--give-up",
    type=click.FloatRange(min=0),
    default=60.0,
    show_default=True,
    help="Seconds to keep reconnecting once the server goes away, then exit 1.",
)
def bot_command(where: tuple[str, ...], **options: Any) -> None:
    """Play a seat of ROOM on the server at URL (ws://HOST:PORT/ws or http://HOST:PORT/;
    without it, --url or LUMIN_URL) with one of Lumin's bots or your own (--kind
    MODULE:CALLABLE); print the outcome as JSON. Standard error says which server it plays
    on once seated. Exits 2 when it cannot take the seat (server unreachable, token, room,
    seat or code refused, no such bot kind for the room's game), 1 when the game cannot go on
    (the server stayed away longer than --give-up, or refused a request).

    \b
    Examples:
      lumin bot ws://127.0.0.1:8700/ws r7Kq2 --seat 1
      LUMIN_URL=https://games.example.org lumin bot r7Kq2 --seat 1 --kind my_bot:make_bot
    """
    from clients.sdk import ServerError
    from lumin.netbot import CannotPlay
    from lumin.netbot import run as run_bot

    context = click.get_current_context()
    if len(where) > 2:
        raise click.UsageError("give [URL] ROOM: at most two arguments", context)
    try:
        server = server_url(context, where[0] if len(where) == 2 else None)
    except BadUrl as error:
        fail("bot", str(error), 2)
    room = where[-1]

    def seated() -> None:
        click.echo(f"lumin bot: playing seat {seat} of {room} on {server.said()}", err=True)

    seat = options.pop("seat")
    try:
        result = run_bot(server.websocket, room, seat, seated=seated, **options)
    except CannotPlay as error:
        fail("bot", str(error), 2)
    except ServerError as error:
        fail("bot", str(error), 1)
    except KeyboardInterrupt:
        fail("bot", "interrupted", 130)
    click.echo(json.dumps(result))


@main.command("play")
@click.argument("address", required=False, metavar="[URL]")
@url_option
@click.option("--name", default="player", show_default=True, help="The name others see.")
@click.option("--token", envvar="LUMIN_TOKEN", default=None, help="Come back as this identity.")
def play_command(address: str | None, name: str, token: str | None) -> None:
    """Play in this terminal on the server at URL (ws://HOST:PORT/ws or http://HOST:PORT/;
    without it, --url or LUMIN_URL, else http://127.0.0.1:8700): lobby, rooms, every game by
    keyboard (docs/terminal.md). On leaving, it says which server it played on.

    \b
    Examples:
      lumin play --name Ada
      lumin play https://games.example.org --name Ada
    """
    from clients.terminal import run

    try:
        server = server_url(click.get_current_context(), address)
    except BadUrl as error:
        fail("play", str(error), 2)
    status = run(server.websocket, name, token)
    click.echo(f"lumin play: played on {server.said()}", err=True)
    sys.exit(status)


if __name__ == "__main__":
    main()
