"""View deltas: the difference of two views as RFC 6902 patch operations, and their application.

A view is plain data: maps with string keys, arrays (lists or tuples) and scalars (``None``,
bools, ints, floats, strings, bytes). :func:`diff` turns an old and a new view into a short list
of ``add`` / ``remove`` / ``replace`` operations whose paths are RFC 6901 JSON pointers, with
RFC 6902 semantics (on the wire each is a short array, see :func:`op_to_wire`);
:func:`apply` applies such a list to a document and returns the new document without touching
the old one. ``apply(old, diff(old, new)) == new`` for every pair of views.

How :func:`diff` walks (``docs/protocol.md``, "How the server diffs two views", states the
same rule):

- Equal values give no operation. Equality is strict: ``1``, ``1.0`` and ``True`` differ, as
  they do on the wire. Two arrays are equal when their elements are, lists and tuples alike.
- Values of different kinds (map, array, scalar), or different scalars, give one ``replace``.
- Maps: ``remove`` for each key only the old map has, a recursive diff for each key both have,
  ``add`` for each key only the new map has.
- Arrays: a recursive diff of the elements at each index both arrays have (element-wise by
  index), then ``add`` at indices ``len(old)``, ``len(old) + 1``... when the new array is
  longer, or ``remove`` from the last index down to ``len(new)`` when it is shorter.
- At every map and array, if the operations found for it would take more msgpack bytes than
  one ``replace`` of the whole container, that single ``replace`` is used instead.

So a Flash 8 slide, which changes two cells of one tablet, touches only that tablet: two
``replace`` operations on two cells, or one ``replace`` of the tablet when that is smaller; a
list that shifted by one (a new line at the front of a log) is one ``replace``.
Values are compared by identity, then with ``==`` per type, so a float NaN equals only the
very same object.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

import attrs
import msgpack

from protocol.errors import ErrorCode, ProtocolError

__all__ = [
    "AddOp",
    "PatchOp",
    "RemoveOp",
    "ReplaceOp",
    "apply",
    "diff",
    "escape",
    "join_pointer",
    "op_from_wire",
    "op_to_json",
    "op_to_wire",
    "split_pointer",
    "unescape",
]


@attrs.frozen
class AddOp:
    """RFC 6902 ``add``: set a map member, or insert into an array (index, or ``-`` = append)."""

    path: str
    value: Any
    OP: ClassVar[str] = "add"


@attrs.frozen
class RemoveOp:
    """RFC 6902 ``remove``: delete a map member, or an array element (later ones shift down)."""

    path: str
    OP: ClassVar[str] = "remove"


@attrs.frozen
class ReplaceOp:
    """RFC 6902 ``replace``: the value at an existing path (``""`` is the whole document)."""

    path: str
    value: Any
    OP: ClassVar[str] = "replace"


#: One patch operation.
PatchOp = AddOp | RemoveOp | ReplaceOp

_OPS: dict[str, type[PatchOp]] = {cls.OP: cls for cls in (AddOp, RemoveOp, ReplaceOp)}


# --- RFC 6901 pointers ------------------------------------------------------------------------


def escape(token: str) -> str:
    """One reference token, escaped: ``~`` becomes ``~0`` and ``/`` becomes ``~1`` (RFC 6901 §3)."""
    return token.replace("~", "~0").replace("/", "~1")


_BAD_ESCAPE = re.compile(r"~(?![01])")


def unescape(token: str) -> str:
    """The reference token an escaped one stands for (RFC 6901 §4: ``~1`` first, then ``~0``).

    Raises :class:`ProtocolError` (``bad_field``) on a ``~`` not followed by ``0`` or ``1``.
    """
    if _BAD_ESCAPE.search(token):
        raise ProtocolError(ErrorCode.BAD_FIELD, f"Pointer token {token!r} has a bad ~ escape.")
    return token.replace("~1", "/").replace("~0", "~")


def split_pointer(pointer: str) -> list[str]:
    """The unescaped reference tokens of a JSON pointer; ``""`` (the whole document) has none.

    Raises :class:`ProtocolError` (``bad_field``) unless the pointer is empty or starts with
    ``/`` (RFC 6901 §3).
    """
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ProtocolError(ErrorCode.BAD_FIELD, f"Pointer {pointer!r} does not start with '/'.")
    return [unescape(token) for token in pointer[1:].split("/")]


def join_pointer(tokens: Iterable[str | int]) -> str:
    """The JSON pointer made of these reference tokens (array indices as ints or strings)."""
    return "".join("/" + escape(str(token)) for token in tokens)


# --- wire form --------------------------------------------------------------------------------


def op_to_json(op: PatchOp) -> dict[str, Any]:
    """An operation in RFC 6902's own JSON form: ``{"op", "path"}`` plus ``"value"`` unless
    removing; what JSON Patch libraries take."""
    if isinstance(op, RemoveOp):
        return {"op": op.OP, "path": op.path}
    return {"op": op.OP, "path": op.path, "value": op.value}


def op_to_wire(op: PatchOp) -> list[Any]:
    """An operation as Lumin sends it: ``[op, path]`` for ``remove``, ``[op, path, value]``
    otherwise. It means exactly the RFC 6902 operation :func:`op_to_json` gives, in fewer bytes
    (no ``"op"``, ``"path"``, ``"value"`` keys in every operation)."""
    if isinstance(op, RemoveOp):
        return [op.OP, op.path]
    return [op.OP, op.path, op.value]


def op_from_wire(data: Any) -> PatchOp:
    """The operation a wire array describes (see :func:`op_to_wire`).

    Only ``add``, ``remove`` and ``replace`` occur in Lumin deltas; anything else, a wrong
    length, or a malformed pointer raises :class:`ProtocolError` (``bad_field``).
    """
    if not isinstance(data, list | tuple) or not data:
        raise ProtocolError(ErrorCode.BAD_FIELD, "A patch operation is an array [op, path, ...].")
    kind = data[0]
    cls = _OPS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ProtocolError(ErrorCode.BAD_FIELD, f"Patch operation {kind!r} is not used by Lumin.")
    expected = 2 if cls is RemoveOp else 3
    if len(data) != expected:
        raise ProtocolError(
            ErrorCode.BAD_FIELD, f"A {kind!r} operation is an array of {expected} items."
        )
    path = data[1]
    if not isinstance(path, str):
        raise ProtocolError(ErrorCode.BAD_FIELD, "A patch operation's path is a string.")
    split_pointer(path)
    if cls is RemoveOp:
        return RemoveOp(path)
    if cls is AddOp:
        return AddOp(path, data[2])
    return ReplaceOp(path, data[2])


# --- diff -------------------------------------------------------------------------------------


#: One packer for every size and equality check: building a Packer per call costs more than
#: packing a small value.
_pack = msgpack.Packer(use_bin_type=True).pack


def _size(op: PatchOp) -> int:
    return len(_pack(op_to_wire(op)))


def _is_map(value: Any) -> bool:
    kind = type(value)
    if kind is dict:  # views are plain dicts: skip the slower ABC check
        return True
    if kind in _SCALARS or kind is list or kind is tuple:
        return False
    return isinstance(value, Mapping)


def _packed(value: Any) -> bytes | None:
    try:
        packed: bytes = _pack(value)
        return packed
    except (TypeError, ValueError, OverflowError):
        return None


def _same_container(old: Any, new: Any) -> bool:
    """Whether two maps or arrays are strictly equal, at C speed.

    ``==`` misses only type differences (``1 == 1.0 == True``); equal msgpack encodings rule
    those out. Different encodings of equal values (key order) just mean a walk.
    """
    if old is new:
        return True
    if old != new:
        return False
    packed = _packed(old)
    return packed is not None and packed == _packed(new)


def _is_array(value: Any) -> bool:
    kind = type(value)
    return kind is list or kind is tuple or isinstance(value, list | tuple)


def _scalar_equal(old: Any, new: Any) -> bool:
    return type(old) is type(new) and bool(old == new)


def _shallow_bound(value: Any) -> int:
    """A lower bound of a value's msgpack size from its own length: every element takes at
    least one byte, every map key at least its characters plus one."""
    if _is_map(value):
        return 1 + sum(len(key) + 2 for key in value)
    if _is_array(value):
        return 1 + len(value)
    return 1


def _lower_bound(value: Any) -> int:
    """A cheap lower bound of a value's msgpack size, looking one level into arrays (views
    are often lists of maps), so that the exact size of a whole container is rarely needed."""
    if _is_array(value):
        return 1 + sum(_shallow_bound(item) for item in value)
    return _shallow_bound(value)


_SCALARS = frozenset({type(None), bool, int, float, str, bytes})


def _key(path: str, key: str) -> str:
    return f"{path}/{escape(key)}" if "~" in key or "/" in key else f"{path}/{key}"


def _emit(op: PatchOp, out: list[PatchOp]) -> int:
    out.append(op)
    return _size(op)


def _child(old: Any, new: Any, path: str, out: list[PatchOp]) -> int:
    """The diff of one member or element; scalars are settled here, without a call."""
    if old is new:
        return 0
    kind = type(new)
    if kind is type(old) and kind in _SCALARS:
        return 0 if old == new else _emit(ReplaceOp(path, new), out)
    return _diff(old, new, path, out)


def _diff(old: Any, new: Any, path: str, out: list[PatchOp]) -> int:
    """Append the operations turning ``old`` into ``new`` at ``path``; return their size."""
    both_maps = _is_map(old) and _is_map(new)
    both_arrays = not both_maps and _is_array(old) and _is_array(new)
    if not (both_maps or both_arrays):
        if _is_map(old) or _is_map(new) or _is_array(old) or _is_array(new):
            return _emit(ReplaceOp(path, new), out)
        return 0 if _scalar_equal(old, new) else _emit(ReplaceOp(path, new), out)
    if _same_container(old, new):
        return 0
    start = len(out)
    cost = 0
    if both_maps:
        for key in old:
            if key not in new:
                cost += _emit(RemoveOp(_key(path, key)), out)
        for key, value in new.items():
            if key in old:
                cost += _child(old[key], value, _key(path, key), out)
            else:
                cost += _emit(AddOp(_key(path, key), value), out)
    else:
        common = min(len(old), len(new))
        for index in range(common):
            cost += _child(old[index], new[index], f"{path}/{index}", out)
        for index in range(common, len(new)):
            cost += _emit(AddOp(f"{path}/{index}", new[index]), out)
        for index in range(len(old) - 1, common - 1, -1):
            cost += _emit(RemoveOp(f"{path}/{index}"), out)
    # Keep the operations unless one replace of the whole container is smaller. The exact
    # size of that replace is only computed when the operations could be the larger.
    if cost > 1 + 2 * len(new) and cost > _lower_bound(new):  # cheapest bound first
        whole = ReplaceOp(path, new)
        size = _size(whole)
        if size < cost:
            del out[start:]
            out.append(whole)
            return size
    return cost


def diff(old: Any, new: Any) -> list[PatchOp]:
    """The operations that turn view ``old`` into view ``new`` (see the module docs for how).

    Both arguments are left untouched; operation values share structure with ``new``.
    """
    out: list[PatchOp] = []
    _diff(old, new, "", out)
    return out


# --- apply ------------------------------------------------------------------------------------


def _index(token: str, length: int, *, allow_end: bool, pointer: str) -> int:
    """An array index from a reference token (RFC 6901 §4: no leading zeros, no sign)."""
    if token == "-" and allow_end:
        return length
    if not token.isdigit() or not token.isascii() or (len(token) > 1 and token[0] == "0"):
        raise ProtocolError(ErrorCode.BAD_PATCH, f"{pointer!r}: {token!r} is not an array index.")
    index = int(token)
    limit = length if allow_end else length - 1
    if index > limit:
        raise ProtocolError(ErrorCode.BAD_PATCH, f"{pointer!r}: index {index} is out of range.")
    return index


class _Writer:
    """Copy-on-write access to a document: each container on a written path is copied once per
    :func:`apply` call, so the input document is never mutated."""

    def __init__(self, doc: Any) -> None:
        self.doc = doc
        self._owned: dict[int, Any] = {}

    def _own(self, container: Any) -> Any:
        if id(container) in self._owned:
            return container
        copy: Any = dict(container) if _is_map(container) else list(container)
        self._owned[id(copy)] = copy  # the reference keeps ids unique for the whole call
        return copy

    def parent(self, tokens: Sequence[str], pointer: str) -> Any:
        """The writable container holding the last token's target."""
        if not (_is_map(self.doc) or _is_array(self.doc)):
            raise ProtocolError(ErrorCode.BAD_PATCH, f"{pointer!r}: the document is a scalar.")
        self.doc = current = self._own(self.doc)
        for token in tokens[:-1]:
            if isinstance(current, dict):
                if token not in current:
                    raise ProtocolError(ErrorCode.BAD_PATCH, f"{pointer!r}: no member {token!r}.")
                key: Any = token
            else:
                key = _index(token, len(current), allow_end=False, pointer=pointer)
            child = current[key]
            if not (_is_map(child) or _is_array(child)):
                raise ProtocolError(
                    ErrorCode.BAD_PATCH, f"{pointer!r}: {token!r} is not a map or an array."
                )
            current[key] = current = self._own(child)
        return current


def apply(doc: Any, ops: Iterable[PatchOp]) -> Any:
    """The document after applying ``ops`` in order (RFC 6902 §4 semantics).

    ``doc`` is not modified: containers on the written paths are copied, the rest is shared
    with the result (and values from the operations are inserted as they are), so treat both
    as immutable. Arrays in the result are lists. Raises :class:`ProtocolError` (``bad_patch``)
    when a path does not exist (a missing member, an index out of range, a path through a
    scalar, removing the whole document); ``bad_field`` for a malformed pointer.
    """
    writer = _Writer(doc)
    for op in ops:
        tokens = split_pointer(op.path)
        if not tokens:
            if isinstance(op, RemoveOp):
                raise ProtocolError(ErrorCode.BAD_PATCH, "The whole document cannot be removed.")
            writer = _Writer(op.value)
            continue
        parent = writer.parent(tokens, op.path)
        last = tokens[-1]
        if isinstance(parent, dict):
            if not isinstance(op, AddOp) and last not in parent:
                raise ProtocolError(ErrorCode.BAD_PATCH, f"{op.path!r}: no member {last!r}.")
            if isinstance(op, RemoveOp):
                del parent[last]
            else:
                parent[last] = op.value
            continue
        index = _index(last, len(parent), allow_end=isinstance(op, AddOp), pointer=op.path)
        if isinstance(op, AddOp):
            parent.insert(index, op.value)
        elif isinstance(op, RemoveOp):
            del parent[index]
        else:
            parent[index] = op.value
    return writer.doc
