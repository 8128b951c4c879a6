"""Lumin's protocol error codes, one stable list, and the exception that carries them.

Every ``error`` message the server sends carries one of these codes; the codec and the
connection state machines raise :class:`ProtocolError` with them. Codes are stable snake_case
strings: clients may switch on them, and a code never changes meaning once published. Refusals
of game commands by the rules are *not* protocol errors: they arrive as ``rejected`` messages
with the game's own codes (``not_your_turn``...).

The table in ``docs/protocol.md`` ("Error codes") lists the same codes with the same meanings.
"""

from __future__ import annotations

import enum

__all__ = ["ErrorCode", "ProtocolError"]


class ErrorCode(enum.StrEnum):
    """Every protocol error code; the comment above each member states its meaning.

    Grouped by who detects them: the codec (a frame that is not a valid message), the
    handshake, the server's handling of a valid request, and the client's own checks of
    what the server sent (those never travel on the wire).
    """

    # --- the codec: the frame is not a valid Lumin message -----------------------------------
    #: The frame is not one well-formed msgpack value (bad bytes, truncated, trailing data,
    #: invalid UTF-8 in a string, or a msgpack extension type, which Lumin never uses).
    NOT_MSGPACK = "not_msgpack"
    #: The frame is msgpack but its top-level value is not a map.
    NOT_A_MAP = "not_a_map"
    #: The map has no string ``type``, or that type is not a message this peer may send.
    UNKNOWN_TYPE = "unknown_type"
    #: A field the message type requires is absent.
    MISSING_FIELD = "missing_field"
    #: A field has the wrong type or an out-of-range value, the message has a field its type
    #: does not define, or a map inside it has a key that is not a string.
    BAD_FIELD = "bad_field"
    #: Values are nested deeper than the receiver's limit.
    TOO_DEEP = "too_deep"
    #: The frame, or a string, binary, list or map inside it, is larger than the receiver's
    #: limit.
    TOO_LARGE = "too_large"

    # --- the handshake -----------------------------------------------------------------------
    #: The client and server share no protocol version; the connection closes.
    UNSUPPORTED_VERSION = "unsupported_version"
    #: A message other than ``hello`` arrived before ``hello``.
    HELLO_FIRST = "hello_first"
    #: A second ``hello`` arrived on a connection that already sent one.
    ALREADY_GREETED = "already_greeted"

    # --- the server: a well-formed request it cannot honour ----------------------------------
    #: The person (or their address) sends messages faster than the server's rate limits
    #: allow (``welcome.limits``); the message was not executed.
    RATE_LIMITED = "rate_limited"
    #: The identity (or its address) already has as many open rooms as the server allows
    #: (``welcome.limits.rooms``); finish or leave one first.
    TOO_MANY_ROOMS = "too_many_rooms"
    #: The ``token`` in ``hello`` is unknown, forged or expired; a fresh guest identity is used.
    BAD_TOKEN = "bad_token"
    #: The game id in ``create_room`` is not a game this server hosts.
    UNKNOWN_GAME = "unknown_game"
    #: A room option or per-seat choice is unknown or out of range (the message names it).
    BAD_OPTION = "bad_option"
    #: The seat list has a number of seats the game does not allow with these options.
    BAD_SEATS = "bad_seats"
    #: No room (or replay) with that id exists, or it is private and the code is missing.
    NO_SUCH_ROOM = "no_such_room"
    #: The private room's code is wrong.
    BAD_CODE = "bad_code"
    #: The seat number does not exist in that room.
    NO_SUCH_SEAT = "no_such_seat"
    #: The seat is held by another person.
    SEAT_TAKEN = "seat_taken"
    #: The request needs a seat in the room and this connection's identity holds none
    #: (spectators cannot act, ready or start).
    NOT_SEATED = "not_seated"
    #: The request needs the connection to be in the room (seated or watching) and it is not.
    NOT_IN_ROOM = "not_in_room"
    #: Only the room's host may do this (start, kick).
    NOT_HOST = "not_host"
    #: The room is not waiting for players any more (join an open seat, kick, ready, start).
    ALREADY_STARTED = "already_started"
    #: The game has not started yet (act before start).
    NOT_STARTED = "not_started"
    #: Start was asked while a seated human is not ready or a seat is still open.
    NOT_READY = "not_ready"
    #: The game is not over (rematch, or open a replay of a running game).
    NOT_FINISHED = "not_finished"
    #: An ``act`` named a ``seq`` older than the last change of the seat's legal commands:
    #: the client acted on legal commands it no longer has. Refresh and decide again.
    STALE = "stale"
    #: A chat text is empty or longer than the server's limit.
    CHAT_TOO_LONG = "chat_too_long"
    #: The server failed while handling the request (an engine exception is isolated to its
    #: room); the room may be closed. Nothing the client did is known to be wrong.
    INTERNAL = "internal"
    #: The server is shutting down and accepts no new requests.
    SHUTTING_DOWN = "shutting_down"
    #: The server's operator banned this identity (or its address): ``hello`` is refused and
    #: the connection closes (1008).
    BANNED = "banned"
    #: The server's operator muted this identity in the room's chat.
    MUTED = "muted"
    #: The server's operator removed this identity from the room's seats: it may watch the
    #: room, not sit in it again.
    REMOVED = "removed"
    #: The request could not be served now, for a reason that passes: its room is changing
    #: node, or the node that owns it cannot be found at the moment. Retry in a second or so.
    TRY_AGAIN = "try_again"
    #: The name is claimed by another account (names are compared folded: case and
    #: look-alike forms count as the same name).
    NAME_TAKEN = "name_taken"
    #: The name and password do not match an account, or an outside provider's identity
    #: token (``hello``'s ``jwt``) fails verification: forged, expired, from another issuer
    #: or audience, or signed with a key or algorithm the server does not accept.
    BAD_CREDENTIALS = "bad_credentials"
    #: The request needs an account (claim a name or sign in first).
    NOT_SIGNED_IN = "not_signed_in"
    #: Not a refusal but news, sent without ``ref`` right after a ``welcome`` or an
    #: ``account``: the account's name looked like one claimed before it, so the server
    #: renamed it (the message says from what to what).
    RENAMED = "renamed"

    # --- the client: checks of what the server sent (never on the wire) ----------------------
    #: A delta's patch cannot be applied to the client's copy of the view.
    BAD_PATCH = "bad_patch"
    #: A delta's ``base`` is not the ``seq`` of the client's copy: a delta was missed.
    OUT_OF_SYNC = "out_of_sync"


class ProtocolError(Exception):
    """A frame or message that breaks the protocol.

    ``code`` is an :class:`ErrorCode`; ``message`` is a sentence for a person naming what was
    wrong (the field path, the limit...); ``ref`` is the request id of the offending message
    when it could be read, so the answering ``error`` message can point at it.
    """

    def __init__(self, code: ErrorCode, message: str, ref: int | None = None) -> None:
        super().__init__(f"{code.value}: {message}")
        self.code = code
        self.message = message
        self.ref = ref

    def __repr__(self) -> str:
        return f"ProtocolError({self.code.value!r}, {self.message!r}, ref={self.ref!r})"
