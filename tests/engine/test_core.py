"""engine.core helpers: ``chance`` is the documented generator, whatever is drawn from it and
in what order (``lumin verify`` recomputes every draw from the revealed seed this way);
``replace`` is ``attrs.evolve`` for dict-backed frozen states."""

from __future__ import annotations

import hashlib
import random

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.core import (
    Command,
    Rejected,
    chance,
    from_wire,
    replace,
    server_field,
    server_fields,
    server_set,
    to_wire,
)


def documented(seed: bytes, label: int | str) -> random.Random:
    digest = hashlib.sha256(seed + b"|" + str(label).encode()).digest()
    return random.Random(int.from_bytes(digest, "big"))


DRAWS = {
    "random": lambda r: r.random(),
    "randint": lambda r: r.randint(1, 6),
    "choice": lambda r: r.choice("abcdefgh"),
    "shuffle": lambda r: (items := list(range(20)), r.shuffle(items), items)[2],
    "sample": lambda r: r.sample(range(100), 5),
    "getrandbits": lambda r: r.getrandbits(70),
    "uniform": lambda r: r.uniform(-1.0, 1.0),
    "gauss": lambda r: r.gauss(0.0, 1.0),
    "randbytes": lambda r: r.randbytes(9),
    "getstate": lambda r: r.getstate(),
}


@given(
    seed=st.binary(min_size=16, max_size=16),
    label=st.one_of(st.integers(0, 10**6), st.just("setup")),
    order=st.lists(st.sampled_from(sorted(DRAWS)), min_size=1, max_size=8),
)
def test_chance_draws_exactly_what_the_documented_generator_draws(seed, label, order) -> None:
    ours, theirs = chance(seed, label), documented(seed, label)
    assert [DRAWS[name](ours) for name in order] == [DRAWS[name](theirs) for name in order]


def test_a_generator_never_drawn_from_can_still_be_reseeded_or_restored() -> None:
    state = documented(b"s", 1).getstate()
    restored = chance(b"x", 2)
    restored.setstate(state)
    assert restored.random() == documented(b"s", 1).random()
    reseeded = chance(b"x", 2)
    reseeded.seed(7)
    assert reseeded.random() == random.Random(7).random()


@attrs.frozen(slots=False)
class _State:
    a: int
    b: tuple[int, ...] = ()


def test_replace_is_evolve_and_leaves_the_original_alone() -> None:
    old = _State(1, (2,))
    new = replace(old, b=(3,))
    assert new == attrs.evolve(old, b=(3,)) == _State(1, (3,))
    assert old == _State(1, (2,)) and hash(new) == hash(_State(1, (3,)))
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        new.a = 5  # type: ignore[misc]
    with pytest.raises(TypeError, match="no field 'c'"):
        replace(old, c=1)


@attrs.frozen
class _Claim(Command):
    TYPE = "claim"
    target: int
    credit: float = server_field(0.0)


def test_a_server_set_field_is_refused_from_a_client_and_kept_by_the_log() -> None:
    assert server_fields(_Claim) == {"credit"}
    # a client's command never names it: to_wire leaves it out at its default
    assert to_wire(_Claim(3)) == {"type": "claim", "target": 3}
    with pytest.raises(Rejected) as refused:
        from_wire([_Claim], {"type": "claim", "target": 3, "credit": 0.25})
    assert refused.value.code == "bad_command" and "credit" in refused.value.message
    # the server sets it; the log keeps it and decodes it trusted, so a replay is exact
    credited = server_set(_Claim(3), credit=0.25)
    assert credited == _Claim(3, 0.25)
    assert from_wire([_Claim], to_wire(credited), trusted=True) == credited
    with pytest.raises(TypeError):
        server_set(_Claim(3), target=4)  # a client's own field is never changed this way
