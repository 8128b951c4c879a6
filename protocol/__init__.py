"""Lumin's wire protocol, without I/O: messages, the msgpack codec, view deltas, versions and
the connection state machines. Nothing here touches a socket; ``server/`` and ``clients/`` move
the bytes. ``docs/protocol.md`` is the specification this package implements.

The modules: :mod:`protocol.messages` (every message type), :mod:`protocol.codec` (frames),
:mod:`protocol.delta` (RFC 6902 view deltas), :mod:`protocol.errors` (the error codes),
:mod:`protocol.versions` (negotiation), :mod:`protocol.views` (a client's live copy of a view),
:mod:`protocol.connection` (the sans-I/O state machines) and :mod:`protocol.fairness` (the seed
commitment, and seat entropy: every seat's share of a room's seed).
"""

from protocol.codec import CLIENT_FRAME_LIMITS, SERVER_FRAME_LIMITS, Limits, decode, encode
from protocol.connection import ClientConnection, InvalidState, ServerConnection, State
from protocol.delta import AddOp, PatchOp, RemoveOp, ReplaceOp, apply, diff
from protocol.errors import ErrorCode, ProtocolError
from protocol.versions import PROTOCOL_VERSION, SUPPORTED_VERSIONS, choose_version
from protocol.views import RoomView

__all__ = [
    "CLIENT_FRAME_LIMITS",
    "PROTOCOL_VERSION",
    "SERVER_FRAME_LIMITS",
    "SUPPORTED_VERSIONS",
    "AddOp",
    "ClientConnection",
    "ErrorCode",
    "InvalidState",
    "Limits",
    "PatchOp",
    "ProtocolError",
    "RemoveOp",
    "ReplaceOp",
    "RoomView",
    "ServerConnection",
    "State",
    "apply",
    "choose_version",
    "decode",
    "diff",
    "encode",
]
