"""The msgpack codec: messages to frames and back, with limits and clear errors.

A frame is one msgpack value: a map ``{"type": TYPE, field: value, ...}``. Fields whose value
equals their default are left out when encoding and filled in when decoding. Decoding is
strict, and every failure is a :class:`~protocol.errors.ProtocolError` with a stable code:

- ``too_large``: the frame, or a string, binary, array or map in it, exceeds :class:`Limits`
  (checked by msgpack itself while unpacking, before anything big is built);
- ``not_msgpack``: not exactly one msgpack value, invalid UTF-8, or an extension type;
- ``too_deep``: maps and arrays nested deeper than ``max_depth`` (the top-level map is depth 1);
- ``not_a_map``: the value is not a map;
- ``unknown_type``: no string ``type``, or not a type the ``sender`` may send;
- ``missing_field`` / ``bad_field``: the fields do not fit the message class. Types are
  checked strictly: an int field takes an int (never a bool, a float or a numeric string), a
  float field takes an int or a float, a string field a string, a list field a list; every map
  key anywhere in the frame is a string; unknown fields are refused.

Structuring and unstructuring go through a cattrs converter configured for this strictness.
"""

from __future__ import annotations

import contextlib
import re
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import attrs
import cattrs
import msgpack
from cattrs.errors import ClassValidationError, ForbiddenExtraKeysError, IterableValidationError
from cattrs.gen import make_dict_unstructure_fn

from protocol.delta import AddOp, PatchOp, RemoveOp, ReplaceOp, op_from_wire, op_to_wire
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import MAX_ID, MESSAGES, Act, Message, Sender

__all__ = [
    "CLIENT_FRAME_LIMITS",
    "CONTROL",
    "SERVER_FRAME_LIMITS",
    "Limits",
    "Peek",
    "decode",
    "encode",
    "encode_accepted",
    "encode_delta",
    "encode_refusal",
    "from_map",
    "peek",
    "to_map",
]


def _positive(instance: Any, attribute: attrs.Attribute[Any], value: int) -> None:
    if value < 1:
        raise ValueError(f"{attribute.name} must be at least 1")


@attrs.frozen(kw_only=True)
class Limits:
    """What a receiver accepts: the frame size in bytes, the nesting depth of maps and arrays,
    the length of any string or binary (bytes), and the number of elements of any array or map.
    """

    max_frame: int = attrs.field(default=64 * 1024, validator=_positive)
    max_depth: int = attrs.field(default=16, validator=_positive)
    max_str: int = attrs.field(default=8 * 1024, validator=_positive)
    max_bin: int = attrs.field(default=8 * 1024, validator=_positive)
    max_array: int = attrs.field(default=4096, validator=_positive)
    max_map: int = attrs.field(default=1024, validator=_positive)


#: The default limits a server applies to the frames clients send.
CLIENT_FRAME_LIMITS = Limits()
#: The default limits a client applies to the frames the server sends (views can be large).
SERVER_FRAME_LIMITS = Limits(
    max_frame=16 * 1024 * 1024,
    max_depth=64,
    max_str=1024 * 1024,
    max_bin=1024 * 1024,
    max_array=1024 * 1024,
    max_map=1024 * 1024,
)


# --- the converter ----------------------------------------------------------------------------


def _kind(value: Any) -> str:
    return "nil" if value is None else type(value).__name__


def _short(value: Any) -> str:
    """A value for an error message, cut short: messages echo client input."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _int(value: Any, _: Any) -> int:
    if type(value) is not int:
        raise ValueError(f"expected an integer, got {_kind(value)}")
    return value


def _float(value: Any, _: Any) -> float:
    if type(value) not in (int, float):
        raise ValueError(f"expected a number, got {_kind(value)}")
    return float(value)


def _str(value: Any, _: Any) -> str:
    if type(value) is not str:
        raise ValueError(f"expected a string, got {_kind(value)}")
    return value


#: Control characters (C0, DEL and C1): never in a text a client sends.
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def _client_str(value: Any, _: Any) -> str:
    """A text field of a message a client sent: a string without control characters, so no
    name, id or line the server keeps, logs or shows others can carry a NUL, an escape
    sequence or a line break."""
    text = _str(value, _)
    if CONTROL.search(text) is not None:
        raise ValueError(
            "expected a text without control characters (U+0000-U+001F, U+007F-U+009F)"
        )
    return text


def _bool(value: Any, _: Any) -> bool:
    if type(value) is not bool:
        raise ValueError(f"expected true or false, got {_kind(value)}")
    return value


def _is_data(kind: Any) -> bool:
    """Plain maps of Lumin data: ``Mapping[str, Any]`` (views, options, commands...)."""
    origin = typing.get_origin(kind)
    return origin in (Mapping, dict) and typing.get_args(kind) == (str, Any)


def _data(value: Any, _: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"expected a map, got {_kind(value)}")
    return value


def _is_list(kind: Any) -> bool:
    args = typing.get_args(kind)
    return typing.get_origin(kind) is tuple and len(args) == 2 and args[1] is Ellipsis


def _is_literal(kind: Any) -> bool:
    return typing.get_origin(kind) is typing.Literal


def _literal(value: Any, kind: Any) -> Any:
    choices = typing.get_args(kind)
    if type(value) is not str or value not in choices:
        allowed = ", ".join(repr(choice) for choice in choices)
        raise ValueError(f"expected one of {allowed}, got {_short(value)}")
    return value


def _is_patch_op(kind: Any) -> bool:
    return bool(kind == PatchOp)


def _patch_op(value: Any, _: Any) -> PatchOp:
    return op_from_wire(value)


def _make_converter(text: Callable[[Any, Any], str] = _str) -> cattrs.Converter:
    """A converter of messages whose text fields are structured by ``text``."""
    converter = cattrs.Converter(forbid_extra_keys=True)
    converter.register_structure_hook(int, _int)
    converter.register_structure_hook(float, _float)
    converter.register_structure_hook(str, text)
    converter.register_structure_hook(bool, _bool)
    converter.register_structure_hook_func(_is_data, _data)
    converter.register_unstructure_hook_func(_is_data, lambda value: value)
    converter.register_structure_hook_func(_is_literal, _literal)
    converter.register_structure_hook_func(_is_patch_op, _patch_op)

    def list_hook(kind: Any) -> Any:
        element = typing.get_args(kind)[0]

        def structure(value: Any, _: Any) -> tuple[Any, ...]:
            if not isinstance(value, list | tuple):
                raise ValueError(f"expected a list, got {_kind(value)}")
            out: list[Any] = []
            errors: list[Exception] = []
            for index, item in enumerate(value):
                try:
                    out.append(converter.structure(item, element))
                except Exception as error:
                    error.__notes__ = [
                        *getattr(error, "__notes__", []),
                        cattrs.errors.IterableValidationNote(
                            f"Structuring {element} @ index {index}", index, element
                        ),
                    ]
                    errors.append(error)
            if errors:
                raise IterableValidationError(f"While structuring {kind}", errors, kind)
            return tuple(out)

        return structure

    converter.register_structure_hook_factory(_is_list, list_hook)
    converter.register_unstructure_hook_factory(
        attrs.has,
        lambda cls: make_dict_unstructure_fn(cls, converter, _cattrs_omit_if_default=True),
    )
    for op_class in (AddOp, RemoveOp, ReplaceOp):
        converter.register_unstructure_hook(op_class, op_to_wire)
    return converter


_converter = _make_converter()
#: What reads the messages clients send: no control characters in their texts.
_client_converter = _make_converter(_client_str)
#: Each message class's cattrs structure function, looked up once (per converter).
_STRUCTURE: dict[tuple[type[Message], bool], Callable[[Any, Any], Any]] = {}


def _leaves(error: BaseException, path: str) -> Iterator[tuple[str, BaseException]]:
    """The innermost errors of a cattrs validation error, with the field path of each."""
    if isinstance(error, ClassValidationError):
        named, others = error.group_exceptions()
        for inner, note in named:
            yield from _leaves(inner, f"{path}.{note.name}")
        for inner in others:
            yield from _leaves(inner, path)
    elif isinstance(error, IterableValidationError):
        indexed, others = error.group_exceptions()
        for inner, item in indexed:
            yield from _leaves(inner, f"{path}[{item.index}]")
        for inner in others:
            yield from _leaves(inner, path)
    else:
        yield path, error


def _field_error(error: Exception, tag: str, ref: int | None) -> ProtocolError:
    for path, leaf in _leaves(error, tag):
        if isinstance(leaf, KeyError):
            return ProtocolError(ErrorCode.MISSING_FIELD, f"{path}: required field missing.", ref)
        if isinstance(leaf, ForbiddenExtraKeysError):
            extra = _short(", ".join(sorted(map(str, leaf.extra_fields))))
            return ProtocolError(ErrorCode.BAD_FIELD, f"{path}: unknown field(s) {extra}.", ref)
        if isinstance(leaf, ProtocolError):
            return ProtocolError(leaf.code, f"{path}: {leaf.message}", ref)
        return ProtocolError(ErrorCode.BAD_FIELD, f"{path}: {leaf}.", ref)
    return ProtocolError(ErrorCode.BAD_FIELD, f"{tag}: {error}.", ref)  # pragma: no cover


# --- maps -------------------------------------------------------------------------------------


def to_map(message: Message) -> dict[str, Any]:
    """A message as its wire map: ``type`` first, then the fields that differ from defaults."""
    data = _converter.unstructure(message)
    return {"type": message.TYPE, **data}


def _ref(data: Mapping[str, Any]) -> int | None:
    """The request id a bad frame's answer can carry: only one a valid request could have
    (0 … ``MAX_ID``); any other is left out of the answer, which names the bad ``id``."""
    ref = data.get("id")
    return ref if type(ref) is int and 0 <= ref <= MAX_ID else None


def from_map(data: Any, *, sender: Sender | None = None) -> Message:
    """The message a decoded map describes; ``sender`` restricts which types are accepted.

    Assumes :func:`decode`'s size, depth and key checks already passed when the map comes
    from the network.
    """
    if not isinstance(data, dict):
        raise ProtocolError(ErrorCode.NOT_A_MAP, f"A message is a map, not {_kind(data)}.")
    tag = data.get("type")
    ref = _ref(data)
    if not isinstance(tag, str):
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, "A message has a string 'type' field.", ref)
    cls = MESSAGES.get(tag)
    if cls is None:
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"No message has type {_short(tag)}.", ref)
    if sender is not None and sender not in cls.SENDERS:
        raise ProtocolError(
            ErrorCode.UNKNOWN_TYPE, f"A {sender} does not send {tag!r} messages.", ref
        )
    strict = sender == "client"
    if cls is Act:
        act = _plain_act(data, strict)
        if act is not None:
            return act
    fields = {key: value for key, value in data.items() if key != "type"}
    structure = _STRUCTURE.get((cls, strict))
    if structure is None:
        converter = _client_converter if strict else _converter
        structure = _STRUCTURE[(cls, strict)] = converter.get_structure_hook(cls)
    try:
        message: Message = structure(fields, cls)
    except Exception as error:  # cattrs groups field errors; validators raise plain ones
        raise _field_error(error, tag, ref) from None
    return message


_ACT_KEYS = frozenset({"type", "room", "command", "seq", "id"})


def _plain_act(data: dict[str, Any], strict: bool) -> Act | None:
    """A well-formed ``act`` (the message every move arrives in) built directly, or ``None``
    for anything else, which the converter then structures and explains (``strict``: a
    client's, whose room id has no control characters)."""
    room, command, seq, ref = data.get("room"), data.get("command"), data.get("seq"), data.get("id")
    if (
        type(room) is not str
        or (strict and CONTROL.search(room) is not None)
        or type(command) is not dict
        or not (seq is None or type(seq) is int)
        or not (ref is None or type(ref) is int)
        or not data.keys() <= _ACT_KEYS
    ):
        return None
    try:
        return Act(room=room, command=command, seq=seq, id=ref)
    except ValueError:  # out of range: the converter's path names the field
        return None


# --- frames -----------------------------------------------------------------------------------


def encode_delta(
    room: str, base: int, seq: int, ops: Sequence[Any], legal: Sequence[Any] | None
) -> bytes:
    """Exactly ``encode(Delta(room=..., base=..., seq=..., ops=..., legal=...))`` for ``ops``
    already in wire form (``protocol.delta.op_to_wire``), without building the message: the
    server sends one of these per viewer per committed batch."""
    data: dict[str, Any] = {"type": "delta", "room": room, "base": base, "seq": seq}
    if ops:
        data["ops"] = ops
    if legal is not None:
        data["legal"] = legal
    frame: bytes = msgpack.packb(data, use_bin_type=True)
    return frame


def encode_accepted(ref: int | None, room: str, seq: int) -> bytes:
    """Exactly ``encode(CommandAccepted(ref=ref, room=room, seq=seq))``, without building the
    message: the server sends one per accepted command."""
    data: dict[str, Any] = {"type": "accepted", "room": room, "seq": seq}
    if ref is not None:
        data["ref"] = ref
    frame: bytes = msgpack.packb(data, use_bin_type=True)
    return frame


def encode_refusal(code: str, message: str, ref: int | None, room: str | None = None) -> bytes:
    """Exactly ``encode(CommandRejected(ref=ref, room=room, code=code, message=message))``
    when ``room`` is given, else ``encode(Error(code=code, message=message, ref=ref))``,
    without building the message: the server answers a flood with one of these per frame."""
    data: dict[str, Any]
    if room is None:
        data = {"type": "error", "code": code, "message": message}
    else:
        data = {"type": "rejected", "room": room, "code": code, "message": message}
    if ref is not None:
        data["ref"] = ref
    frame: bytes = msgpack.packb(data, use_bin_type=True)
    return frame


def encode(message: Message) -> bytes:
    """One frame holding ``message``.

    Raises :class:`ProtocolError` (``bad_field``) when a value cannot be packed (a set, an
    integer beyond 64 bits...); field types are otherwise trusted, as the type checker sees them.
    """
    try:
        frame: bytes = msgpack.packb(to_map(message), use_bin_type=True)
    except (TypeError, ValueError, OverflowError) as error:
        raise ProtocolError(
            ErrorCode.BAD_FIELD, f"{message.TYPE!r} cannot be encoded: {error}."
        ) from None
    return frame


def _unpack(frame: bytes, limits: Limits) -> Any:
    try:
        return msgpack.unpackb(
            frame,
            raw=False,
            use_list=True,
            strict_map_key=True,
            max_str_len=limits.max_str,
            max_bin_len=limits.max_bin,
            max_array_len=limits.max_array,
            max_map_len=limits.max_map,
            max_ext_len=0,
        )
    except msgpack.ExtraData:
        raise ProtocolError(ErrorCode.NOT_MSGPACK, "The frame holds more than one value.") from None
    except msgpack.StackError:
        raise ProtocolError(ErrorCode.TOO_DEEP, "The frame is nested too deeply.") from None
    except UnicodeDecodeError:
        raise ProtocolError(ErrorCode.NOT_MSGPACK, "A string is not valid UTF-8.") from None
    except Exception as error:
        text = str(error)
        if "not allowed for map key" in text:  # valid msgpack, but not Lumin's shape
            raise ProtocolError(ErrorCode.BAD_FIELD, "Map keys are strings.") from None
        if "max_ext_len" in text:
            raise ProtocolError(
                ErrorCode.NOT_MSGPACK, "msgpack extension types are not used by Lumin."
            ) from None
        if "exceeds max_" in text:
            raise ProtocolError(ErrorCode.TOO_LARGE, f"A value is too large: {text}.") from None
        raise ProtocolError(ErrorCode.NOT_MSGPACK, "The frame is not valid msgpack.") from None


_CONTAINERS = (dict, list)


def _check_tree(value: Any, limits: Limits) -> None:
    """Nesting depth and string map keys, checked level by level without recursion (msgpack
    gives exact ``dict`` and ``list``, so exact type checks suffice)."""
    level = [value] if type(value) in _CONTAINERS else []
    depth = 1
    while level:
        if depth > limits.max_depth:
            raise ProtocolError(
                ErrorCode.TOO_DEEP, f"Values are nested deeper than {limits.max_depth}."
            )
        inner: list[Any] = []
        for item in level:
            if type(item) is dict:
                for key, child in item.items():
                    if type(key) is not str:
                        raise ProtocolError(ErrorCode.BAD_FIELD, "Map keys are strings.")
                    if type(child) in _CONTAINERS:
                        inner.append(child)
            else:
                inner.extend(child for child in item if type(child) in _CONTAINERS)
        level = inner
        depth += 1


@attrs.frozen
class Peek:
    """What :func:`peek` read of a frame: its ``type``, ``id`` and ``room`` where they are
    there and well-formed (a string, an id in range, a string), else ``None``."""

    type: str | None = None
    id: int | None = None
    room: str | None = None


#: Frames up to this many bytes are unpacked whole by :func:`peek`.
_WHOLE = 256


def peek(frame: bytes | bytearray | memoryview, limits: Limits = CLIENT_FRAME_LIMITS) -> Peek:
    """Read a frame's ``type``, ``id`` and ``room`` without decoding the rest: every other value
    of the top-level map is skipped, never built. Enough to answer a frame that will not be run
    (a flood), at a cost that does not grow with what the frame carries. Never raises."""
    found: dict[str, Any] = {}
    if len(frame) > limits.max_frame:
        return Peek()
    value = None
    if len(frame) <= _WHOLE:
        # Small enough to unpack whole, at less cost than setting up a streaming unpacker.
        with contextlib.suppress(Exception):
            value = msgpack.unpackb(frame, raw=False, strict_map_key=False)
    if isinstance(value, dict):
        found = value
    else:  # large, or malformed: read what can be read
        unpacker = msgpack.Unpacker(raw=False, max_buffer_size=len(frame), max_ext_len=0)
        try:
            unpacker.feed(frame)
            for _ in range(unpacker.read_map_header()):
                key = unpacker.unpack()
                if key in ("type", "id", "room") and key not in found:
                    found[key] = unpacker.unpack()
                else:
                    unpacker.skip()
        except Exception:  # malformed: what was read so far is all there is
            pass
    tag, ref, room = found.get("type"), found.get("id"), found.get("room")
    return Peek(
        type=tag if type(tag) is str else None,
        id=ref if type(ref) is int and 0 <= ref <= MAX_ID else None,
        room=room if type(room) is str else None,
    )


def decode(
    frame: bytes, *, sender: Sender | None = None, limits: Limits = CLIENT_FRAME_LIMITS
) -> Message:
    """The message in one frame, checked against ``limits``.

    ``sender`` is who sent the frame (``"client"`` when a server decodes, ``"server"`` when a
    client does); ``None`` accepts every type. Raises only :class:`ProtocolError`.
    """
    if not isinstance(frame, bytes | bytearray | memoryview):
        raise ProtocolError(ErrorCode.NOT_MSGPACK, "A frame is binary, not text.")
    if len(frame) > limits.max_frame:
        raise ProtocolError(
            ErrorCode.TOO_LARGE, f"The frame has {len(frame)} bytes; at most {limits.max_frame}."
        )
    data = _unpack(bytes(frame), limits)
    try:
        _check_tree(data, limits)
    except ProtocolError as error:
        error.ref = _ref(data) if isinstance(data, dict) else None
        raise
    return from_map(data, sender=sender)
