"""``lumin admin``: the server's operator at a terminal, through the admin API
(``docs/operating.md``, "Admin API") of a running server or of any node of a cluster.

Every command takes ``--url`` (the server, before or after the subcommand; else
``LUMIN_ADMIN_URL``, else ``LUMIN_URL``: :mod:`lumin.server_option`), ``--token``
(``LUMIN_ADMIN_TOKEN``) and ``--json`` (print the API's JSON answer instead of a table).
A refusal prints the server's sentence and exits 1; a server that cannot be reached, too.
It needs only the standard library's HTTP client: no part of the server is imported.
"""

from __future__ import annotations

import datetime
import functools
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs
import click

from lumin.server_option import server_url, url_option
from lumin.urls import BadUrl, ServerUrl

__all__ = ["admin"]

#: Seconds a request may take (a cluster forwards to the node that plays the room).
TIMEOUT = 15.0


class _Api:
    """The admin API of the server at ``server``. A command printing for a person says on
    standard error which server answered; one printing JSON says so only when that server is
    the default (nobody named one), so a pipe of JSON stays JSON."""

    def __init__(self, server: ServerUrl, token: str | None, as_json: bool) -> None:
        self.server = server
        self.url = server.http
        self.token = token
        self.as_json = as_json
        self._said = False

    def call(self, method: str, path: str, **query: Any) -> dict[str, Any]:
        """One request; the JSON answer, or a :class:`click.ClickException` with why not."""
        if not self.token:
            raise click.ClickException("the admin token is missing: --token or LUMIN_ADMIN_TOKEN")
        if not (self.token.isascii() and self.token.isprintable()):
            raise click.ClickException(
                "the admin token is printable ASCII (as the server's --admin-token must be):"
                " check --token or LUMIN_ADMIN_TOKEN"
            )
        given = {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in query.items()}
        params = urllib.parse.urlencode({k: v for k, v in given.items() if v not in ("", "None")})
        target = f"{self.url}/api/admin/{path}" + (f"?{params}" if params else "")
        request = urllib.request.Request(
            target, method=method, headers={"Authorization": f"Bearer {self.token}"}
        )
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
                body: dict[str, Any] = json.loads(answer.read())
        except ValueError:
            raise click.ClickException(f"{self.url} is not a Lumin admin API (no JSON)") from None
        except urllib.error.HTTPError as error:
            raise click.ClickException(f"{_refusal(error)}, from {self.server.said()}") from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise click.ClickException(f"cannot reach {self.server.said()}: {reason}") from None
        if self.server.source.startswith("the default"):
            self._say()
        return body

    def _say(self) -> None:
        if not self._said:
            click.echo(f"lumin admin: answered by {self.server.said()}", err=True)
            self._said = True

    def show(self, body: Mapping[str, Any], text: str) -> None:
        """Print ``body`` as JSON with ``--json``, else ``text`` (and which server answered)."""
        if not self.as_json:
            self._say()
        click.echo(json.dumps(body, indent=2) if self.as_json else text)


def _refusal(error: urllib.error.HTTPError) -> str:
    try:
        body = json.loads(error.read())
        return f"{body['message']} ({error.code} {body['error']})"
    except (ValueError, KeyError, TypeError):
        return f"the server answered {error.code} {error.reason}"


def _table(rows: Sequence[Sequence[Any]], header: Sequence[str]) -> str:
    """Columns padded to their widest cell."""
    cells = [[str(c) for c in header], *([("-" if c is None else str(c)) for c in r] for r in rows)]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in cells
    )


def _unreachable(body: Mapping[str, Any]) -> str:
    silent = body.get("unreachable")
    return f"\n(no answer from node(s) {', '.join(silent)})" if silent else ""


@attrs.frozen
class _Options:
    """What ``lumin admin`` was given before its subcommand."""

    token: str | None
    as_json: bool


@click.group()
@url_option
@click.option("--token", envvar="LUMIN_ADMIN_TOKEN", help="The admin token (LUMIN_ADMIN_TOKEN).")
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON answer.")
@click.pass_context
def admin(context: click.Context, token: str | None, as_json: bool) -> None:
    """Operate a running Lumin server: rooms, connections, bans, drains. The server is
    --url (before or after the subcommand), else LUMIN_ADMIN_URL, else LUMIN_URL, else
    http://127.0.0.1:8700 (any node of a cluster); either scheme, ws:// or http://.

    \b
    Examples:
      export LUMIN_URL=http://127.0.0.1:8700 LUMIN_ADMIN_TOKEN=...
      lumin admin rooms --state playing
      lumin admin kick r7Kq2 2 --reason "abusive chat" --url https://games.example.org
      lumin admin --json bans | jq .
    """
    context.obj = _Options(token, as_json)


def _api(command: Callable[..., None]) -> Callable[..., None]:
    """Hand ``command`` the admin API of this command line's server as its first argument,
    and take ``--url`` after the subcommand too."""

    def call(*args: Any, **kwargs: Any) -> None:
        context = click.get_current_context()
        options = context.find_object(_Options)
        assert options is not None  # the group made it
        try:
            server = server_url(context, admin=True)
        except BadUrl as error:
            raise click.ClickException(str(error)) from None
        command(_Api(server, options.token, options.as_json), *args, **kwargs)

    return url_option(functools.update_wrapper(call, command))


@admin.command()
@click.option("--game", help="Only rooms of this game (flip_over_frog, neon_hex, ...).")
@click.option("--state", type=click.Choice(["waiting", "playing", "finished"]))
@_api
def rooms(api: _Api, game: str | None, state: str | None) -> None:
    """The rooms in memory on every node, oldest first."""
    body = api.call("GET", "rooms", game=game, state=state)
    rows = [
        (r["id"], r["game"], r["state"], r["players"], r["spectators"], r["bots"],
         f"{r['age_seconds']:.0f}s", r["node"] + (" !" if r.get("held_without_lease") else ""),
         _lease(r.get("lease")))
        for r in body["rooms"]
    ]  # fmt: skip
    header = ("ROOM", "GAME", "STATE", "PLAYERS", "SPECTATORS", "BOTS", "AGE", "NODE", "LEASE")
    stale = any(r.get("held_without_lease") for r in body["rooms"])
    api.show(body, _table(rows, header) + (f"\n{_STALE}" if stale else "") + _unreachable(body))


#: What a node marked ``!`` means.
_STALE = (
    "! the node holds the room in memory without a live lease of its own: it was paused or cut"
    " off and lets the room go at its next lease round; the lease's node plays it"
)


def _lease(lease: Mapping[str, Any] | None) -> str | None:
    """A room's lease in a few words: node, epoch and how long until it lapses (or since)."""
    if lease is None:
        return None
    return f"{lease['node']} epoch {lease['epoch']} {_when(lease)}"


def _when(lease: Mapping[str, Any]) -> str:
    """How long until a lease lapses, or since it did."""
    left = float(lease["expires_in"])
    return f"{left:.1f}s left" if lease["live"] else f"lapsed {-left:.1f}s ago"


@admin.command()
@click.argument("room")
@_api
def room(api: _Api, room: str) -> None:
    """One live room: its seats, who is connected, whose move it is."""
    body = api.call("GET", f"rooms/{urllib.parse.quote(room)}")
    seats = [
        (s["seat"], s["kind"], s["name"], s["user"], s["bot"],
         "yes" if s["connected"] else "no", "yes" if s["bot_playing"] else "no")
        for s in body["seats"]
    ]  # fmt: skip
    lines = [
        f"{body['id']}  {body['game']}  {body['status']}  seq {body['seq']}  node {body['node']}"
        f"  age {body['age_seconds']:.0f}s  spectators {body['spectators']}",
        f"options {json.dumps(body['options'])}  to move {body['to_move']}"
        + (f"  muted {body['muted']}" if body["muted"] else ""),
        *_lease_lines(body.get("lease"), body["node"], bool(body.get("held_without_lease"))),
        "",
        _table(seats, ("SEAT", "KIND", "NAME", "USER", "BOT", "CONNECTED", "BOT PLAYING")),
    ]
    api.show(body, "\n".join(lines))


def _lease_lines(lease: Mapping[str, Any] | None, node: str, stale: bool) -> list[str]:
    """A room's lease as ``lumin admin room`` shows it: its node, epoch and expiry (the
    database's clock, UTC), and a warning when the node that answered holds the room without
    a live lease of its own."""
    if lease is None:
        return [] if not stale else [f"lease: none; {node} holds the room without one"]
    expires = datetime.datetime.fromtimestamp(float(lease["expires"]), datetime.UTC)
    lines = [
        f"lease {lease['node']} epoch {lease['epoch']} expires"
        f" {expires:%Y-%m-%d %H:%M:%S} UTC ({_when(lease)})"
    ]
    if stale:
        lines.append(
            f"! {node} holds this room in memory without a live lease of its own: it was paused"
            f" or cut off and lets the room go at its next lease round; {lease['node']} plays it"
        )
    return lines


@admin.command()
@click.argument("room")
@_api
def log(api: _Api, room: str) -> None:
    """A room's whole log so far (JSON, as ``lumin verify`` reads it)."""
    body = api.call("GET", f"rooms/{urllib.parse.quote(room)}/log")
    click.echo(json.dumps(body, indent=2 if api.as_json else None))


@admin.command()
@_api
def connections(api: _Api) -> None:
    """Every open connection on every node, oldest first."""
    body = api.call("GET", "connections")
    rows = [
        (c["id"], c["user"], c["name"], c["address"], c["version"], f"{c['age_seconds']:.0f}s",
         " ".join(f"{r['room']}:{'-' if r['seat'] is None else r['seat']}" for r in c["rooms"]),
         c["node"])
        for c in body["connections"]
    ]  # fmt: skip
    header = ("CONNECTION", "USER", "NAME", "ADDRESS", "VERSION", "AGE", "ROOMS", "NODE")
    api.show(body, _table(rows, header) + _unreachable(body))


@admin.command()
@click.argument("room")
@click.option("--reason", default="", help="Told to the room's players and spectators.")
@_api
def close(api: _Api, room: str, reason: str) -> None:
    """Close a live room: its members are told why; the game is recorded as aborted."""
    body = api.call("POST", f"rooms/{urllib.parse.quote(room)}/close", reason=reason)
    api.show(body, f"closed {body['room']} (aborted)")


@admin.command()
@click.argument("room")
@click.argument("seat", type=click.IntRange(min=0))
@click.option("--reason", default="", help="Told to the person removed.")
@_api
def kick(api: _Api, room: str, seat: int, reason: str) -> None:
    """Remove the person at SEAT of ROOM; during a game a bot plays on for them."""
    body = api.call("POST", f"rooms/{urllib.parse.quote(room)}/kick", seat=seat, reason=reason)
    then = f"bot {body['bot']} plays seat {seat}" if body["bot"] else f"seat {seat} is open"
    api.show(body, f"removed {body['user']} from {body['room']}; {then}")


def _who(identity: str | None, address: str | None) -> dict[str, str]:
    if (identity is None) == (address is None):
        raise click.UsageError("give exactly one of --identity ID or --address ADDR")
    return {"identity": identity} if identity is not None else {"address": str(address)}


@admin.command()
@click.option("--identity", help="A user id (u + 16 hex digits, as rooms and connections show).")
@click.option("--address", help="An IP address or network (203.0.113.7, 203.0.113.0/24).")
@click.option("--reason", default="", help="Told to the person banned.")
@_api
def ban(api: _Api, identity: str | None, address: str | None, reason: str) -> None:
    """Ban an identity or an address on every node; their connections close now."""
    body = api.call("POST", "bans", reason=reason, **_who(identity, address))
    banned = body["banned"]
    closed = f"closed {body['closed']} connection(s)"
    api.show(body, f"banned {banned['kind']} {banned['value']}; {closed}")


@admin.command()
@click.option("--identity", help="The banned user id.")
@click.option("--address", help="The banned address or network.")
@_api
def unban(api: _Api, identity: str | None, address: str | None) -> None:
    """Lift a ban."""
    body = api.call("DELETE", "bans", **_who(identity, address))
    api.show(body, f"unbanned {body['unbanned']['kind']} {body['unbanned']['value']}")


@admin.command()
@_api
def bans(api: _Api) -> None:
    """Every ban in force, oldest first."""
    body = api.call("GET", "bans")
    rows = [(b["kind"], b["value"], b["reason"]) for b in body["bans"]]
    api.show(body, _table(rows, ("KIND", "VALUE", "REASON")))


@admin.command()
@click.argument("room")
@click.argument("user")
@click.option("--unmute", is_flag=True, help="Let USER talk again.")
@_api
def mute(api: _Api, room: str, user: str, unmute: bool) -> None:
    """Stop USER (a user id) saying anything in ROOM's chat."""
    body = api.call("POST", f"rooms/{urllib.parse.quote(room)}/mute", user=user, muted=not unmute)
    api.show(body, f"{'muted' if body['muted'] else 'unmuted'} {body['user']} in {body['room']}")


@admin.command()
@_api
def nodes(api: _Api) -> None:
    """The live nodes (one, for a single server) and their load."""
    body = api.call("GET", "nodes")
    rows = [(n["node"], n["url"], n["rooms"], n["connections"]) for n in body["nodes"]]
    api.show(body, _table(rows, ("NODE", "URL", "ROOMS", "CONNECTIONS")))


@admin.command()
@click.argument("node")
@_api
def drain(api: _Api, node: str) -> None:
    """Drain NODE: it takes no new rooms and fails /readyz; on a cluster it hands its rooms
    to the other nodes now. Stop it afterwards."""
    body = api.call("POST", f"nodes/{urllib.parse.quote(node)}/drain")
    then = "hands them to the other nodes now" if body["handing_over"] else "they play on here"
    api.show(body, f"{body['node']} is draining: it takes no new rooms; of its {body['rooms']}"
                   f" room(s) it {then}")  # fmt: skip
