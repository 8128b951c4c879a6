"""View deltas: RFC 6901 pointers, RFC 6902 add / remove / replace, the list-diff rule of
docs/protocol.md ("Deltas"), and the diff/apply round trip, cross-checked against jsonpatch."""

from __future__ import annotations

import copy
from typing import Any

import jsonpatch
import msgpack
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from protocol.delta import (
    AddOp,
    RemoveOp,
    ReplaceOp,
    apply,
    diff,
    escape,
    join_pointer,
    op_from_wire,
    op_to_json,
    op_to_wire,
    split_pointer,
    unescape,
)
from protocol.errors import ErrorCode, ProtocolError
from tests.protocol.strategies import scalars, views


def same(a: Any, b: Any) -> bool:
    """Equality as the wire sees it: 1, 1.0 and True differ; lists and tuples do not."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def size(ops: list[Any]) -> int:
    return len(msgpack.packb([op_to_wire(op) for op in ops], use_bin_type=True))


# --- RFC 6901 pointers ------------------------------------------------------------------------


def test_pointer_escaping_follows_rfc_6901() -> None:
    # RFC 6901 §3: "~" is "~0" and "/" is "~1"; §4: decode "~1" before "~0".
    assert escape("a/b") == "a~1b"
    assert escape("m~n") == "m~0n"
    assert escape("~1") == "~01"
    assert unescape("~01") == "~1"
    assert split_pointer("") == []
    assert split_pointer("/") == [""]
    assert split_pointer("/a~1b/m~0n/0") == ["a/b", "m~n", "0"]
    assert join_pointer(["a/b", "m~n", 0]) == "/a~1b/m~0n/0"


@pytest.mark.parametrize("pointer", ["a", "/a~2", "/~", "/x~y"])
def test_malformed_pointers(pointer: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        split_pointer(pointer)
    assert caught.value.code is ErrorCode.BAD_FIELD


def test_rfc_6901_example_document() -> None:
    # RFC 6901 §5: every pointer of the example, replaced through apply.
    doc = {"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\j": 5,
           'k"l': 6, " ": 7, "m~n": 8}  # fmt: skip
    for pointer, key in [("/", ""), ("/a~1b", "a/b"), ("/m~0n", "m~n"), ("/ ", " ")]:
        assert apply(doc, [ReplaceOp(pointer, "x")])[key] == "x"
    assert apply(doc, [ReplaceOp("/foo/0", "x")])["foo"] == ["x", "baz"]


# --- RFC 6902 apply ---------------------------------------------------------------------------


RFC_6902_CASES = [
    # Appendix A.1: adding an object member
    ({"foo": "bar"}, [AddOp("/baz", "qux")], {"baz": "qux", "foo": "bar"}),
    # A.2: adding an array element
    ({"foo": ["bar", "baz"]}, [AddOp("/foo/1", "qux")], {"foo": ["bar", "qux", "baz"]}),
    # A.3: removing an object member
    ({"baz": "qux", "foo": "bar"}, [RemoveOp("/baz")], {"foo": "bar"}),
    # A.4: removing an array element
    ({"foo": ["bar", "qux", "baz"]}, [RemoveOp("/foo/1")], {"foo": ["bar", "baz"]}),
    # A.5: replacing a value
    ({"baz": "qux", "foo": "bar"}, [ReplaceOp("/baz", "boo")], {"baz": "boo", "foo": "bar"}),
    # A.10: adding a nested member object
    (
        {"foo": "bar"},
        [AddOp("/child", {"grandchild": {}})],
        {"foo": "bar", "child": {"grandchild": {}}},
    ),
    # A.16: adding an array value
    ({"foo": ["bar"]}, [AddOp("/foo/-", ["abc", "def"])], {"foo": ["bar", ["abc", "def"]]}),
    # §4.1: add on an existing member replaces it
    ({"a": 1}, [AddOp("/a", 2)], {"a": 2}),
    # §4.3 / §4.1: the whole document
    ({"a": 1}, [ReplaceOp("", [1])], [1]),
    ({"a": 1}, [AddOp("", None)], None),
]


@pytest.mark.parametrize(("doc", "ops", "expected"), RFC_6902_CASES)
def test_rfc_6902_examples(doc: Any, ops: list[Any], expected: Any) -> None:
    before = copy.deepcopy(doc)
    assert same(apply(doc, ops), expected)
    assert same(doc, before)
    assert same(jsonpatch.apply_patch(doc, [op_to_json(op) for op in ops]), expected)


@pytest.mark.parametrize(
    ("doc", "op"),
    [
        ({"a": 1}, RemoveOp("/b")),  # §4.2: the target must exist
        ({"a": 1}, ReplaceOp("/b", 1)),  # §4.3: the target must exist
        ({"a": [1]}, ReplaceOp("/a/1", 1)),  # out of range
        ({"a": [1]}, AddOp("/a/2", 1)),  # §4.1: index greater than the length
        ({"a": [1]}, RemoveOp("/a/-")),  # "-" only appends
        ({"a": [1, 2]}, ReplaceOp("/a/01", 1)),  # RFC 6901 §4: no leading zeros
        ({"a": [1, 2]}, ReplaceOp("/a/x", 1)),
        ({"a": [1, 2]}, ReplaceOp("/a/-1", 1)),
        ({"a": 1}, AddOp("/a/b", 1)),  # through a scalar
        ({"a": 1}, AddOp("/x/y", 1)),  # through a missing member
        ({"a": {"b": 1}}, AddOp("/a/b/c", 1)),
        ({"a": 1}, RemoveOp("")),  # the whole document cannot be removed
        (3, AddOp("/a", 1)),  # the document is a scalar
    ],
)
def test_apply_refuses_paths_that_do_not_exist(doc: Any, op: Any) -> None:
    with pytest.raises(ProtocolError) as caught:
        apply(doc, [op])
    assert caught.value.code is ErrorCode.BAD_PATCH
    # jsonpatch agrees it is invalid.
    with pytest.raises((jsonpatch.JsonPatchException, jsonpatch.JsonPointerException)):
        jsonpatch.apply_patch(doc, [op_to_json(op)])


def test_apply_copies_once_and_shares_what_it_does_not_touch() -> None:
    untouched = {"deep": [1, 2, 3]}
    doc = {"a": {"b": [0, 0, 0]}, "c": untouched}
    out = apply(doc, [ReplaceOp("/a/b/0", 1), ReplaceOp("/a/b/1", 2), AddOp("/a/b/-", 3)])
    assert out == {"a": {"b": [1, 2, 0, 3]}, "c": untouched}
    assert out["c"] is untouched
    assert doc == {"a": {"b": [0, 0, 0]}, "c": untouched}


def test_apply_never_mutates_values_taken_from_operations() -> None:
    value = {"x": [1]}
    out = apply({}, [AddOp("/v", value), AddOp("/v/x/-", 2)])
    assert out == {"v": {"x": [1, 2]}}
    assert value == {"x": [1]}


def test_op_wire_form_is_a_short_array_meaning_the_rfc_6902_map() -> None:
    assert op_to_wire(RemoveOp("/a")) == ["remove", "/a"]
    assert op_to_wire(ReplaceOp("/a", [1])) == ["replace", "/a", [1]]
    assert op_to_json(RemoveOp("/a")) == {"op": "remove", "path": "/a"}
    assert op_to_json(AddOp("/a", None)) == {"op": "add", "path": "/a", "value": None}
    assert op_from_wire(["add", "/a", None]) == AddOp("/a", None)
    assert op_from_wire(("remove", "")) == RemoveOp("")
    bad_operations: list[object] = [
        [],
        {"op": "add", "path": "/a", "value": 1},  # the JSON form is not the wire form
        ["test", "", 1],
        ["add", 1, 1],
        ["remove", "/a", 1],
        ["add", "/a"],
        ["replace", "/a~2", 1],
        [None, "/a"],
    ]
    for bad in bad_operations:
        with pytest.raises(ProtocolError) as caught:
            op_from_wire(bad)
        assert caught.value.code is ErrorCode.BAD_FIELD


# --- the diff rule ----------------------------------------------------------------------------


def flash8_view() -> dict[str, Any]:
    """A view shaped like a Flash 8 race: four tablets of 3x3 cells and some public state."""
    colours = ["red", "yellow", "blue", "violet", "green", "yellow", "blue", "red", None]
    return {
        "phase": "race",
        "card": {"id": 17, "pattern": [["red", None, "blue"], [None, "yellow", None]]},
        "players": [
            {"name": f"P{seat}", "tablet": list(colours), "cards": [3, 8], "locked": False}
            for seat in range(4)
        ],
        "deadline": 123.5,
    }


def test_a_flash8_slide_touches_only_the_sliding_tablet() -> None:
    old = flash8_view()
    new = copy.deepcopy(old)
    tablet = new["players"][2]["tablet"]
    tablet[5], tablet[8] = tablet[8], tablet[5]  # the yellow electron slides into the hole
    ops = diff(old, new)
    two_cells = [ReplaceOp("/players/2/tablet/5", None), ReplaceOp("/players/2/tablet/8", "yellow")]
    one_tablet = [ReplaceOp("/players/2/tablet", tablet)]
    # Whichever of the two is smaller: here the two cells.
    assert size(two_cells) < size(one_tablet)
    assert ops == two_cells


def test_array_rule_element_wise_then_trailing_adds_and_removes() -> None:
    words = [f"electron number {n}" for n in range(8)]
    # Equal lengths: element-wise by index.
    changed = [*words[:3], "moved", *words[4:]]
    assert diff({"w": words}, {"w": changed}) == [ReplaceOp("/w/3", "moved")]
    # Longer: trailing adds at increasing indices.
    assert diff({"w": words[:6]}, {"w": words}) == [
        AddOp("/w/6", words[6]),
        AddOp("/w/7", words[7]),
    ]
    # Shorter: trailing removes from the last index down.
    assert diff({"w": words}, {"w": words[:6]}) == [RemoveOp("/w/7"), RemoveOp("/w/6")]
    # Whichever is smaller: a short list is cheaper to send whole.
    assert diff({"w": [1, 2]}, {"w": [3, 4]}) == [ReplaceOp("/w", [3, 4])]


def test_a_shifted_list_is_replaced_whole() -> None:
    old = {"log": [f"line {n}" for n in range(20)]}
    new = {"log": ["line new", *old["log"][:-1]]}
    assert diff(old, new) == [ReplaceOp("/log", new["log"])]


def test_map_rule() -> None:
    long = "a value long enough to be worth keeping"
    old = {"keep": {"deep": 1, "other": long}, "gone": long, "a/b": [long, long]}
    new = {"keep": {"deep": 2, "other": long}, "a/b": [long, long], "new~": True}
    assert diff(old, new) == [
        RemoveOp("/gone"),
        ReplaceOp("/keep/deep", 2),
        AddOp("/new~0", True),
    ]


def test_strict_equality_sees_type_changes() -> None:
    assert diff({"a": 1}, {"a": True}) == [ReplaceOp("/a", True)]
    assert diff({"a": 1}, {"a": 1.0}) == [ReplaceOp("/a", 1.0)]
    assert diff({"a": 0}, {"a": False}) == [ReplaceOp("/a", False)]
    assert diff({"a": (1, 2)}, {"a": [1, 2]}) == []
    assert diff({"a": {}}, {"a": []}) == [ReplaceOp("/a", [])]
    assert diff(1, {"a": 1}) == [ReplaceOp("", {"a": 1})]


# --- properties -------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(old=views(), new=views())
def test_apply_of_diff_gives_the_new_view(old: Any, new: Any) -> None:
    before = copy.deepcopy(old)
    ops = diff(old, new)
    assert same(apply(old, ops), new)
    assert same(old, before)
    # The same operations mean the same under a maintained RFC 6902 implementation.
    assert same(jsonpatch.apply_patch(old, [op_to_json(op) for op in ops]), new)


@st.composite
def view_and_edit(draw: st.DrawFn) -> tuple[Any, Any, list[str | int]]:
    """A view, the same view with one scalar changed, and the path of that scalar."""
    view = draw(views(max_leaves=30))
    path: list[str | int] = []
    node = view
    while isinstance(node, dict | list) and node:
        key = draw(st.sampled_from(sorted(node) if isinstance(node, dict) else range(len(node))))
        path.append(key)
        node = node[key]
        if not draw(st.booleans()) and not isinstance(node, dict | list):
            break
    assume(not isinstance(node, dict | list))
    value = draw(scalars.filter(lambda v: not same(v, node)))
    edited = apply(view, [ReplaceOp(join_pointer(path), value)])
    return view, edited, path


@settings(max_examples=100, deadline=None)
@given(case=view_and_edit())
def test_a_one_scalar_change_is_one_operation_no_bigger_than_replacing_that_scalar(
    case: tuple[Any, Any, list[str | int]],
) -> None:
    old, new, path = case
    ops = diff(old, new)
    assert len(ops) == 1
    leaf = ReplaceOp(join_pointer(path), value_at(new, path))
    assert size(ops) <= size([leaf])


def value_at(doc: Any, path: list[str | int]) -> Any:
    for key in path:
        doc = doc[key]
    return doc


@settings(max_examples=200, deadline=None)
@given(old=views(), new=views())
def test_a_delta_is_never_bigger_than_replacing_the_whole_view(old: Any, new: Any) -> None:
    ops = diff(old, new)
    assert size(ops) <= size([ReplaceOp("", new)])


@settings(max_examples=100, deadline=None)
@given(view=views())
def test_an_unchanged_view_has_an_empty_delta(view: Any) -> None:
    assert diff(view, copy.deepcopy(view)) == []


@settings(max_examples=200, deadline=None)
@given(
    doc=views(),
    ops=st.lists(
        st.builds(
            lambda kind, path, value: kind(path, value),
            st.sampled_from([AddOp, ReplaceOp]),
            st.lists(st.sampled_from(["a", "0", "1", "-", "~0"]), max_size=3).map(
                lambda tokens: "".join("/" + t for t in tokens)
            ),
            views(max_leaves=3),
        )
        | st.builds(
            RemoveOp,
            st.lists(st.sampled_from(["a", "0", "1", "-"]), max_size=3).map(
                lambda tokens: "".join("/" + t for t in tokens)
            ),
        ),
        max_size=4,
    ),
)
def test_apply_agrees_with_jsonpatch_on_arbitrary_operations(doc: Any, ops: list[Any]) -> None:
    wire = [op_to_json(op) for op in ops]
    try:
        expected = jsonpatch.apply_patch(doc, wire)
    except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException):
        with pytest.raises(ProtocolError):
            apply(doc, ops)
        return
    assert same(apply(doc, ops), expected)
