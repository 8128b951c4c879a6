"""Hypothesis strategies for protocol tests: plain view data, and every message type, built
from each class's own field types so a new message or field is covered without edits here."""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from typing import Any

import attrs
from hypothesis import strategies as st

from protocol.delta import AddOp, PatchOp, RemoveOp, ReplaceOp, join_pointer
from protocol.messages import MAX_ID, MESSAGES, Message, SeatChoice

__all__ = ["any_message", "data_maps", "message", "patch_ops", "scalars", "views"]

#: Keys that exercise RFC 6901 escaping ("~", "/") and the empty key.
keys = st.one_of(
    st.sampled_from(["", "a", "b", "~", "/", "~0", "~1", "a/b", "m~n", "0", "-", "10"]),
    st.text(max_size=6),
)

#: Scalars a view may hold (no NaN: it never equals itself).
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.floats(allow_nan=False),
    st.text(max_size=8),
)


def views(scalar: st.SearchStrategy[Any] = scalars, max_leaves: int = 20) -> st.SearchStrategy[Any]:
    """Plain data: string-keyed maps, lists and scalars, nested."""
    return st.recursive(
        scalar,
        lambda inner: st.one_of(
            st.lists(inner, max_size=5),
            st.dictionaries(keys, inner, max_size=5),
        ),
        max_leaves=max_leaves,
    )


#: String-keyed maps of plain data (options, commands, views), bytes included.
data_maps = st.dictionaries(keys, views(st.one_of(scalars, st.binary(max_size=8)), 8), max_size=4)

pointers = st.lists(st.one_of(keys, st.integers(0, 20)), max_size=4).map(join_pointer)

patch_ops: st.SearchStrategy[PatchOp] = st.one_of(
    st.builds(AddOp, pointers, views(max_leaves=4)),
    st.builds(RemoveOp, pointers),
    st.builds(ReplaceOp, pointers, views(max_leaves=4)),
)


def texts(size: int) -> st.SearchStrategy[str]:
    """Texts a client may send: no control characters (the server refuses those)."""
    return st.text(st.characters(exclude_categories=("Cc", "Cs")), max_size=size)


def _for_type(kind: Any, name: str) -> st.SearchStrategy[Any]:
    origin = typing.get_origin(kind)
    args = typing.get_args(kind)
    if kind is int:
        # Counts, ids and seats are between 0 and MAX_ID; replay steps may be negative.
        return st.integers(-(2**31), 2**31) if name == "steps" else st.integers(0, MAX_ID)
    if kind is float:
        return st.floats(allow_nan=False)
    if kind is str:
        return texts(12)
    if kind is bool:
        return st.booleans()
    if kind == PatchOp:
        return patch_ops
    if kind is Any:
        return views(max_leaves=4)
    if origin is typing.Literal:
        return st.sampled_from(args)
    if origin in (typing.Union, types.UnionType):
        return st.one_of(*(_for_type(arg, name) for arg in args))
    if kind is type(None):
        return st.none()
    if origin in (Mapping, dict):
        return data_maps
    if origin is tuple:
        if name == "versions":
            return st.lists(st.integers(1, 65535), min_size=1, max_size=4).map(tuple)
        return st.lists(_for_type(args[0], name), max_size=3).map(tuple)
    if attrs.has(kind):
        return message(kind)
    raise TypeError(f"no strategy for {kind!r} ({name})")


def message(cls: type[Any]) -> st.SearchStrategy[Any]:
    """Any valid instance of a message (or nested data) class."""
    if cls is SeatChoice:
        return st.one_of(
            st.builds(SeatChoice, kind=st.just("human"), name=st.none() | texts(8)),
            st.builds(
                SeatChoice,
                kind=st.just("bot"),
                bot=st.none() | texts(8),
                name=st.none() | texts(8),
                choices=data_maps,
            ),
        )
    hints = typing.get_type_hints(cls)
    fields = {field.name: _for_type(hints[field.name], field.name) for field in attrs.fields(cls)}
    return st.fixed_dictionaries(fields).map(lambda values: cls(**values))


def any_message() -> st.SearchStrategy[Message]:
    """A message of any type."""
    return st.sampled_from(sorted(MESSAGES.values(), key=lambda c: c.TYPE)).flatmap(message)
