"""The refusal every part of the server raises for a request it will not honour."""

from __future__ import annotations

from protocol.errors import ErrorCode

__all__ = ["Refused"]


class Refused(Exception):
    """A request the server will not honour, with a protocol error code and a sentence for the
    person who sent it (``docs/protocol.md``, "Error codes")."""

    def __init__(self, code: ErrorCode | str, message: str) -> None:
        super().__init__(message)
        self.code = code.value if isinstance(code, ErrorCode) else code
        self.message = message
