"""The refusal every part of the server raises for a request it will not honour."""

from __future__ import annotations

from protocol.errors import ErrorCode

__all__ = ["Moved", "Refused"]


class Refused(Exception):
    """A request the server will not honour, with a protocol error code and a sentence for the
    person who sent it (``docs/protocol.md``, "Error codes")."""

    def __init__(self, code: ErrorCode | str, message: str) -> None:
        super().__init__(message)
        self.code = code.value if isinstance(code, ErrorCode) else code
        self.message = message


class Moved(Exception):
    """The request needs a room (or a new room) that another node of the cluster plays: the
    client goes on at ``url``. ``room`` is ``None`` for a room still to be created."""

    def __init__(self, room: str | None, url: str) -> None:
        super().__init__(f"{room or 'a new room'} is played at {url}")
        self.room = room
        self.url = url
