"""``lumin verify``: a game recomputed from its log, every draw from the revealed seed
(:mod:`server.verify`); a game not over yet is checked as far as its log goes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from engine.registry import game_ids
from lumin.errors import fail
from server.verify import LIVE, STOPPED

__all__ = ["verify"]


class _BadLog(Exception):
    """The source of ``lumin verify`` cannot be read, or holds no Lumin game log."""


#: The fields ``lumin verify`` needs in a log document, with their JSON types.
_LOG_FIELDS: dict[str, type | tuple[type, ...]] = {
    "game": str,
    "options": dict,
    "seats": list,
    "seed": (str, type(None)),  # null only while a live game keeps it secret
    "salt": (str, type(None)),
    "commitment": str,
    "records": list,
}
_RECORD_FIELDS: dict[str, type | tuple[type, ...]] = {
    "seq": int,
    "position": int,
    "seat": (int, type(None)),
    "command": (dict, type(None)),
    "at": (int, float),
    "events": list,
}


def _read_source(source: str) -> bytes:
    """The bytes at SOURCE: an http(s) URL, else a file; :class:`_BadLog` when unreadable."""
    import http.client
    import urllib.error
    import urllib.request

    if not source.startswith(("http://", "https://")):
        try:
            return Path(source).read_bytes()
        except OSError as error:
            raise _BadLog(f"cannot read {source}: {error.strerror or error}") from None
    try:
        with urllib.request.urlopen(source, timeout=30) as answer:
            return bytes(answer.read())
    except urllib.error.HTTPError as error:
        raise _BadLog(f"{source} answered HTTP {error.code} {error.reason}") from None
    except urllib.error.URLError as error:
        raise _BadLog(f"cannot fetch {source}: {error.reason}") from None
    except (OSError, ValueError, http.client.HTTPException) as error:
        raise _BadLog(f"cannot fetch {source}: {error}") from None


def _fields_problem(item: Any, fields: dict[str, type | tuple[type, ...]], what: str) -> str | None:
    """What is wrong with ``item`` as a JSON object holding ``fields``, or ``None``."""
    if not isinstance(item, dict):
        return f"{what} is not a JSON object"
    for name, kind in fields.items():
        if name not in item:
            return f"{what} has no {name!r} field"
        value = item[name]
        if isinstance(value, bool) or not isinstance(value, kind):
            return f"{what}'s {name!r} has the wrong type"
    return None


def _log_problem(document: Any) -> str | None:
    """Why ``document`` is not a log document ``lumin verify`` can replay, or ``None``."""
    problem = _fields_problem(document, _LOG_FIELDS, "the document")
    if problem is not None:
        return problem
    if document["game"] not in game_ids():
        return f"its game {document['game']!r} is not one Lumin hosts"
    status = document.get("status")
    if status is not None and not isinstance(status, str):
        return "the document's 'status' has the wrong type"
    for name in ("seed", "salt"):
        if document[name] is None:
            if status not in LIVE:
                return f"its {name!r} is null, but the game is not under way"
            continue
        try:
            bytes.fromhex(document[name])
        except ValueError:
            return f"its {name!r} is not hexadecimal"
    if not all(isinstance(seat, dict) for seat in document["seats"]):
        return "a seat is not a JSON object"
    for n, record in enumerate(document["records"]):
        problem = _fields_problem(record, _RECORD_FIELDS, f"record {n}")
        if problem is not None:
            return problem
    return None


def _load_log(source: str) -> dict[str, Any]:
    """The log document at SOURCE, checked for every field verification reads."""
    try:
        document = json.loads(_read_source(source))
    except ValueError as error:  # not JSON, or not UTF-8
        raise _BadLog(f"{source} is not JSON ({error})") from None
    problem = _log_problem(document)
    if problem is not None:
        raise _BadLog(f"{source} is not a Lumin game log: {problem}")
    assert isinstance(document, dict)
    return document


@click.command()
@click.argument("source")
def verify(source: str) -> None:
    """Recompute a game from its log: SOURCE is a downloaded log file or the server's URL for
    it (http://HOST:PORT/rooms/ROOM/log), or what lumin admin log ROOM wrote.

    \b
    Exit status:
      0  the whole game follows from the revealed seed
      1  something does not match (each MISMATCH is printed)
      2  SOURCE cannot be read or holds no Lumin game log
      3  all the log holds checks, but the game is not over: a game
         under way (the operator's log), or one stopped before its end
    """
    from engine.core import Rejected
    from server.verify import verify_document

    try:
        document = _load_log(source)
    except _BadLog as error:
        fail("verify", str(error), 2)
    try:
        report = verify_document(document)
    except Rejected as refusal:
        click.echo(
            f"MISMATCH: the rules refuse the game's setup ({refusal.code}: {refusal.message})"
        )
        sys.exit(1)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        fail("verify", f"{source} cannot be replayed ({type(error).__name__}: {error})", 2)
    click.echo(
        f"{report.game} room {document.get('room')}: {report.records} records, "
        f"{report.events} events, commitment {document['commitment'][:16]}..."
    )
    if not report.ok:
        for problem in report.problems:
            click.echo(f"MISMATCH: {problem}")
        sys.exit(1)
    if report.over:
        click.echo("verified: every deal, shuffle and die follows from the revealed seed")
        return
    click.echo(_unfinished(report.status or "", report.sealed))
    sys.exit(3)


def _unfinished(status: str, sealed: bool) -> str:
    """What ``lumin verify`` says of a log that checks as far as it goes, of a game not over."""
    if sealed:
        return (
            f"not over yet (the room is {status}): its seed stays secret until the game ends,"
            " so nothing can be recomputed yet; its commitment is published above"
        )
    checked = "every record so far follows from the revealed seed, which matches the commitment"
    if status in STOPPED:
        return f"stopped before its end (the room is {status}): {checked}; it has no outcome"
    return f"not over yet (the room is {status}): {checked}; verify again once it has ended"
