"""The engine contract every Lumin game implements, and the pieces all games share.

A game is one rules object (see :class:`Game`). Rooms, self-play, tests and replays all drive
it the same way::

    state = game.setup(options, seats, chance(seed, "setup"))
    events = game.decide(state, seat, command, now, chance(seed, position))
    for event in events:
        state = game.evolve(state, event)

``position`` is the number of events already in the room's log, so every random outcome is
reproducible from the seed and the log alone; the outcome itself is recorded in the events, and
``evolve`` never draws. Replay is a fold (:func:`replay`).

Commands and events are frozen attrs classes with a ``TYPE`` tag; :func:`to_wire` and
:func:`from_wire` turn them into plain maps for msgpack and back. A command may carry fields
only the server sets (:func:`server_field`, such as the lag credit of a Flash 8 claim): a
client's map can never set them, the server adds them (:func:`server_set`) before deciding,
and the log keeps them so a replay decides exactly what the room decided.
"""

from __future__ import annotations

import functools
import hashlib
import math
import random
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, ClassVar, Protocol, TypeVar, runtime_checkable

import attrs
import cattrs

__all__ = [
    "Action",
    "Bot",
    "BotFactory",
    "Command",
    "Event",
    "Game",
    "OptionSpec",
    "Outcome",
    "PatchOp",
    "Rejected",
    "SeatChecker",
    "SeatSpec",
    "ViewPatcher",
    "Viewer",
    "chance",
    "expand_legal",
    "first_state",
    "from_wire",
    "outcome_to_wire",
    "replace",
    "replay",
    "server_field",
    "server_fields",
    "server_set",
    "to_wire",
    "validate_options",
    "validate_seat_choices",
    "validate_seats",
]

#: A seat number (0-based), or ``None`` for a spectator.
Viewer = int | None

S = TypeVar("S")


class Rejected(Exception):
    """A command the rules refuse.

    ``code`` is stable and machine-readable (``not_your_turn``, ``space_occupied``...);
    ``message`` is a sentence for a person saying what the rules allow, free of citations
    (players, the terminal and bots read it as it is); ``rule`` cites the rule broken for the
    rules' readers (``"decisions 6"``, ``"rulebook 2.3 D"``) and stays in code, tests and logs.
    """

    def __init__(self, code: str, message: str, rule: str | None = None) -> None:
        super().__init__(f"{code}: {message}" + (f" ({rule})" if rule else ""))
        self.code = code
        self.message = message
        self.rule = rule


@attrs.frozen
class Command:
    """Base of every command: an intention a seat sends. Subclasses set ``TYPE``."""

    TYPE: ClassVar[str] = ""


@attrs.frozen
class Event:
    """Base of every event: a fact the rules decided. Subclasses set ``TYPE``."""

    TYPE: ClassVar[str] = ""


@attrs.frozen
class SeatSpec:
    """Who sits in a seat, chosen before the game: a name, a bot kind (``None`` for a human),
    and per-seat choices the game documents (a Neon Hex role, a Flash 8 handicap...)."""

    name: str = "Player"
    bot: str | None = None
    choices: Mapping[str, Any] = attrs.field(factory=dict)


@attrs.frozen
class Outcome:
    """How a finished game ended.

    ``ranks[seat]`` is 1 for the winners (several on a shared victory), 2 for the next, and
    so on; ``scores[seat]`` is the seat's final score; ``tiebreak`` names the rule that split
    equal scores, if one did; ``details`` holds game-specific extras (team scores...).
    """

    ranks: tuple[int, ...]
    scores: tuple[float, ...]
    reason: str
    tiebreak: str | None = None
    details: Mapping[str, Any] = attrs.field(factory=dict)

    @property
    def winners(self) -> tuple[int, ...]:
        """The seats ranked first."""
        return tuple(seat for seat, rank in enumerate(self.ranks) if rank == 1)


@attrs.frozen
class OptionSpec:
    """A documented room option (or per-seat choice) with its type, default and bounds.

    ``when`` says when the option means anything: pairs ``(name, values)``, each an other
    option's name and the values under which this one applies, or ``"seats"`` and the seat
    counts it applies to; all must hold (empty: always). Elsewhere the option is ignored at
    its default, and a form need not offer it.
    """

    name: str
    kind: str  # "int", "float", "bool" or "choice"
    default: Any
    doc: str
    choices: tuple[Any, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    when: tuple[tuple[str, tuple[Any, ...]], ...] = ()

    def applies(self, options: Mapping[str, Any], seats: int | None = None) -> bool:
        """Whether the option means anything in a room with ``options`` (defaults filled in)
        and ``seats`` seats (``None``: any number)."""
        for name, values in self.when:
            if name == "seats":
                if seats is not None and seats not in values:
                    return False
            elif options.get(name) not in values:
                return False
        return True

    def parse(self, value: Any) -> Any:
        """Turn a raw value (possibly a command-line string) into a checked option value."""
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise Rejected(
                "bad_option", f"Option {self.name} takes true or false, not {_short(value)}."
            )
        if self.kind in ("int", "float"):
            number = self._number(value)
            if self.minimum is not None and number < self.minimum:
                raise Rejected("bad_option", f"Option {self.name} is at least {self.minimum}.")
            if self.maximum is not None and number > self.maximum:
                raise Rejected("bad_option", f"Option {self.name} is at most {self.maximum}.")
            return number
        if self.kind == "choice":
            for choice in self.choices:
                if value == choice or str(value) == str(choice):
                    return choice
            allowed = ", ".join(str(c) for c in self.choices)
            raise Rejected(
                "bad_option", f"Option {self.name} is one of {allowed}, not {_short(value)}."
            )
        raise ValueError(f"unknown option kind {self.kind}")

    def _number(self, value: Any) -> int | float:
        """``value`` as this option's number: finite (NaN and infinities are refused, since
        no bound check can hold them), and for an ``int`` option a whole number."""
        text = value.strip() if isinstance(value, str) else value
        try:
            if isinstance(text, bool) or not isinstance(text, int | float | str):
                raise ValueError
            number = float(text)
        except ValueError:
            raise Rejected(
                "bad_option", f"Option {self.name} takes a number, not {_short(value)}."
            ) from None
        except OverflowError:  # an integer too large for a float is past every bound
            raise Rejected("bad_option", f"Option {self.name} is at most {self.maximum}.") from None
        if not math.isfinite(number):
            raise Rejected(
                "bad_option", f"Option {self.name} takes a finite number, not {_short(value)}."
            )
        if self.kind == "float":
            return number
        if not number.is_integer():
            raise Rejected(
                "bad_option", f"Option {self.name} takes a whole number, not {_short(value)}."
            )
        return int(text) if isinstance(text, int) else int(number)


def _short(value: Any) -> str:
    """A value for an error message, cut short (messages echo what a client sent)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _check(specs: Sequence[OptionSpec], raw: Mapping[str, Any], what: str) -> dict[str, Any]:
    known = {spec.name: spec for spec in specs}
    for name in raw:
        if name not in known:
            allowed = ", ".join(known) or "none"
            raise Rejected(
                "bad_option", f"Unknown {what} {_short(name)}; this game has: {allowed}."
            )
    return {
        spec.name: spec.parse(raw[spec.name]) if spec.name in raw else spec.default
        for spec in specs
    }


def validate_options(game: Game, raw: Mapping[str, Any]) -> dict[str, Any]:
    """Check raw room options against the game's documented ones; fill in defaults."""
    return _check(game.options, raw, "room option")


def validate_seat_choices(game: Game, raw: Mapping[str, Any]) -> dict[str, Any]:
    """Check one seat's raw choices against the game's documented ones; fill in defaults."""
    return _check(game.seat_options, raw, "seat choice")


def validate_seats(
    game: Game, options: Mapping[str, Any], choices: Sequence[Mapping[str, Any]]
) -> None:
    """Check how validated options and every seat's validated choices combine (a choice
    the game's mode does not allow, such as a Flash 8 handicap in solo), when the game has
    such rules (:class:`SeatChecker`); raises :class:`Rejected` (``bad_option``)."""
    if isinstance(game, SeatChecker):
        game.check_seats(options, choices)


@attrs.frozen
class Action:
    """What a bot wants to do: send ``command`` at time ``at`` (never earlier than now)."""

    at: float
    command: Command


@runtime_checkable
class Bot(Protocol):
    """A player that reads its own seat's view, like a human would.

    ``act`` is called whenever the bot's view may have changed; it returns the next action it
    wants to take, or ``None`` when it has nothing to do until something changes. ``options``
    are the concrete commands its seat may send now (the expansion of ``legal``). Bots keep
    whatever memory they like between calls, from their own views only.
    """

    def act(self, view: Mapping[str, Any], options: Sequence[Command], now: float) -> Action | None:
        """Return the next action, or ``None`` to wait for a change."""
        ...


#: Builds a bot for one seat: ``factory(game, seat, rng)``. Bots think within node budgets
#: and draw only from ``rng``, so a decision is reproducible from its seed.
BotFactory = Callable[["Game", int, random.Random], Bot]


class Game(Protocol):
    """The rules of one game, as pure functions over immutable state (see module docs)."""

    id: str
    name: str
    commands: tuple[type[Command], ...]
    events: tuple[type[Event], ...]
    options: tuple[OptionSpec, ...]
    seat_options: tuple[OptionSpec, ...]
    bots: Mapping[str, BotFactory]
    default_bot: str

    def seat_counts(self, options: Mapping[str, Any]) -> range:
        """The numbers of seats a room with these (validated) options may have."""
        ...

    def setup(
        self, options: Mapping[str, Any], seats: Sequence[SeatSpec], rng: random.Random
    ) -> Any:
        """The first state, dealt from ``rng``; options are validated already."""
        ...

    def decide(
        self, state: Any, seat: int, command: Command, now: float, rng: random.Random
    ) -> list[Event]:
        """The events ``command`` causes, or :class:`Rejected`. Chance is drawn from ``rng``."""
        ...

    def evolve(self, state: Any, event: Event) -> Any:
        """The state after ``event``: pure, total, no randomness, no clock."""
        ...

    def view(self, state: Any, viewer: Viewer) -> dict[str, Any]:
        """What ``viewer`` (a seat, or ``None`` for a spectator) may see, as plain data."""
        ...

    def legal(self, state: Any, seat: int) -> list[dict[str, Any]]:
        """The commands ``seat`` may send now, in wire form (see :func:`expand_legal`)."""
        ...

    def deadline(self, state: Any) -> float | None:
        """When the clock next matters (room time, seconds), or ``None``."""
        ...

    def tick(self, state: Any, now: float, rng: random.Random) -> list[Event]:
        """The events due at ``now``, called once ``now`` reaches :meth:`deadline`."""
        ...

    def outcome(self, state: Any) -> Outcome | None:
        """``None`` while the game runs; then how it ended."""
        ...


#: One view patch operation in wire form: ``["replace", pointer, value]``, ``["add", pointer,
#: value]`` or ``["remove", pointer]`` (RFC 6902 semantics, ``docs/protocol.md``).
PatchOp = list[Any]


@runtime_checkable
class SeatChecker(Protocol):
    """Optional, for games whose seat choices depend on the room options:
    ``check_seats(options, choices)`` raises :class:`Rejected` (``bad_option``) when the
    validated ``options`` and the seats' validated ``choices`` (one mapping per seat) cannot
    be dealt together. The server asks it when a room is created, so a room that could never
    start is refused then rather than failing at ``start``; ``setup`` may rely on it."""

    def check_seats(
        self, options: Mapping[str, Any], choices: Sequence[Mapping[str, Any]]
    ) -> None: ...


@runtime_checkable
class ViewPatcher(Protocol):
    """Optional, for games with frequent small steps (a Flash 8 slide): the view change an
    event makes, known from the event, so the server need not build and diff whole views.

    ``view_patch(before, after, events, viewer)`` returns operations that turn
    ``view(before, viewer)`` into exactly ``view(after, viewer)`` (msgpack-equal), where
    ``after`` is ``before`` with ``events`` applied, or ``None`` when the game does not know
    (the server then diffs the views).

    ``legal_seats(before, after, events)`` returns the seats whose legal commands may differ
    between ``before`` and ``after`` (every other seat's are equal), or ``None`` when any may;
    the server asks only those seats for their legal commands again.

    The contract suite checks both promises at every step of random games.
    """

    def view_patch(
        self, before: Any, after: Any, events: Sequence[Event], viewer: Viewer
    ) -> list[PatchOp] | None: ...

    def legal_seats(
        self, before: Any, after: Any, events: Sequence[Event]
    ) -> Collection[int] | None: ...


_FIELD_NAMES: dict[type, frozenset[str]] = {}


def replace(state: S, **changes: Any) -> S:
    """``attrs.evolve`` for a frozen attrs state class declared with ``slots=False`` and no
    validators or converters, about five times faster: a shallow copy with ``changes``.

    For states that evolve on every frequent event (a Flash 8 slide), where copying
    thirty fields through ``__init__`` is a measurable part of the server's work.
    """
    kind = type(state)
    names = _FIELD_NAMES.get(kind)
    if names is None:
        names = _FIELD_NAMES[kind] = frozenset(attrs.fields_dict(kind))  # type: ignore[arg-type]
    if not names.issuperset(changes):
        raise TypeError(f"{kind.__name__} has no field {sorted(set(changes) - names)[0]!r}")
    new = object.__new__(type(state))
    fields = new.__dict__
    fields.update(state.__dict__)
    fields.update(changes)
    return new


class _Chance(random.Random):
    """A ``random.Random`` that is seeded when first drawn from: most commands draw nothing,
    and seeding a Mersenne Twister costs more than deciding a Flash 8 slide. Every draw is
    exactly the one ``random.Random(seed)`` would give."""

    def __init__(self, material: bytes) -> None:  # no super().__init__: that seeds now
        self._material: bytes | None = material
        self.gauss_next = None

    def _seed_now(self) -> None:
        material = self._material
        if material is not None:
            self._material = None
            super().seed(int.from_bytes(hashlib.sha256(material).digest(), "big"))

    def random(self) -> float:
        self._seed_now()
        return super().random()

    def getrandbits(self, k: int, /) -> int:
        self._seed_now()
        return super().getrandbits(k)

    def getstate(self) -> tuple[Any, ...]:
        self._seed_now()
        return super().getstate()

    def setstate(self, state: tuple[Any, ...]) -> None:
        self._material = None
        super().setstate(state)

    def seed(self, a: Any = None, version: int = 2) -> None:
        self._material = None
        super().seed(a, version)


def chance(seed: bytes, label: int | str) -> random.Random:
    """The generator for one point of a room's life: ``"setup"``, or a log position.

    It is ``random.Random`` seeded with the SHA-256 of the seed, a ``|`` and the label's
    decimal or text form, so anyone holding the revealed seed can recompute every draw.
    (Seeding waits for the first draw; the draws are the same.)
    """
    return _Chance(seed + b"|" + str(label).encode())


# --- wire form -------------------------------------------------------------------------------

_converter = cattrs.Converter()


def _strict(kind: type, accepted: tuple[type, ...]) -> None:
    """Structure ``kind`` only from values already of an accepted type: a client's ``{}`` is
    not quietly turned into the string ``"{}"``, nor ``True`` into the number 1."""

    def hook(value: Any, _: type) -> Any:
        if isinstance(value, bool) and bool not in accepted:
            raise TypeError(f"expected {kind.__name__}, got a boolean")
        if not isinstance(value, accepted):
            raise TypeError(f"expected {kind.__name__}, got {type(value).__name__}")
        return kind(value)

    _converter.register_structure_hook(kind, hook)


_strict(str, (str,))
_strict(int, (int,))
_strict(float, (int, float))
_strict(bool, (bool,))


_T = TypeVar("_T", Command, Event)
_C = TypeVar("_C", bound=Command)

#: The attrs metadata key marking a command field only the server sets (:func:`server_field`).
SERVER_SET = "lumin.server_set"


def server_field(default: Any) -> Any:
    """Declare a command field only the server sets (a lag credit...), with its ``default``.

    :func:`from_wire` refuses a map that carries it unless the map is trusted (the room's own
    log); :func:`to_wire` leaves it out while it holds its default, so a command a client
    builds from the engine's classes never carries it.
    """
    return attrs.field(default=default, metadata={SERVER_SET: True})


_SERVER_DEFAULTS: dict[type, tuple[tuple[str, Any], ...]] = {}


def _server_defaults(cls: type[Any]) -> tuple[tuple[str, Any], ...]:
    """``cls``'s server-set fields with their defaults, in declaration order (found once)."""
    found = _SERVER_DEFAULTS.get(cls)
    if found is None:
        found = _SERVER_DEFAULTS[cls] = tuple(
            (field.name, field.default)
            for field in attrs.fields(cls)
            if field.metadata.get(SERVER_SET, False)
        )
    return found


def server_fields(cls: type[Command]) -> frozenset[str]:
    """The names of ``cls``'s fields only the server sets (empty for most commands)."""
    return frozenset(name for name, _ in _server_defaults(cls))


def server_set(command: _C, **values: Any) -> _C:
    """``command`` with server-set fields filled in (the server's own measures, before it
    decides the command). Raises :class:`TypeError` for a name that is not such a field: a
    client's fields are never changed this way."""
    allowed = server_fields(type(command))
    wrong = sorted(set(values) - allowed)
    if wrong:
        raise TypeError(f"{type(command).__name__} has no server-set field {wrong[0]!r}")
    return attrs.evolve(command, **values)


def to_wire(item: Command | Event) -> dict[str, Any]:
    """A command or event as a plain map: ``{"type": TYPE, field: value, ...}``; a server-set
    field is left out while it holds its default."""
    data = _converter.unstructure(item)
    assert isinstance(data, dict)
    for name, default in _server_defaults(type(item)):
        if data.get(name) == default:
            del data[name]
    return {"type": item.TYPE, **data}


def from_wire(classes: Iterable[type[_T]], data: Mapping[str, Any], *, trusted: bool = False) -> _T:
    """The command or event whose ``TYPE`` is ``data["type"]``, among ``classes``.

    Raises :class:`Rejected` (``bad_command``) when the type is unknown or the fields do not
    fit, so a malformed message from a client is answered like any refused command. A map
    naming a server-set field (:func:`server_field`) is refused too unless ``trusted``: only
    the room's own log, which recorded what the server set, is decoded trusted.
    """
    if not isinstance(data, Mapping):
        raise Rejected("bad_command", "A command is a map with a 'type' field.")
    kind = data.get("type")
    found = _wire_table(tuple(classes)).get(kind) if isinstance(kind, str) else None
    if found is None:
        raise Rejected("bad_command", f"Unknown command type {kind!r}.")
    cls, names, structure = found
    fields = {k: v for k, v in data.items() if k != "type"}
    unknown = fields.keys() - names
    if unknown:
        raise Rejected("bad_command", f"{kind!r} has no field {sorted(map(str, unknown))[0]!r}.")
    if not trusted:
        forbidden = fields.keys() & server_fields(cls)
        if forbidden:
            raise Rejected(
                "bad_command",
                f"{kind!r} field {sorted(forbidden)[0]!r} is set by the server, never sent.",
            )
    try:
        item: _T = structure(fields, cls)
    except Exception as error:  # cattrs wraps field errors in exception groups
        raise Rejected("bad_command", f"{kind!r} has a missing or bad field.") from error
    return item


@functools.lru_cache(maxsize=64)
def _wire_table(
    classes: tuple[type[Any], ...],
) -> dict[str, tuple[type[Any], frozenset[str], Callable[[Any, Any], Any]]]:
    """Each class by ``TYPE`` (the first one wins), with its field names and cattrs structure
    function, computed once per set of classes."""
    table: dict[str, tuple[type[Any], frozenset[str], Callable[[Any, Any], Any]]] = {}
    for cls in classes:
        if cls.TYPE not in table:
            names = frozenset(field.name for field in attrs.fields(cls))
            table[cls.TYPE] = (cls, names, _converter.get_structure_hook(cls))
    return table


def outcome_to_wire(outcome: Outcome) -> dict[str, Any]:
    """An outcome as a plain map, for views and logs."""
    return {
        "ranks": list(outcome.ranks),
        "scores": list(outcome.scores),
        "winners": list(outcome.winners),
        "reason": outcome.reason,
        "tiebreak": outcome.tiebreak,
        "details": dict(outcome.details),
    }


def expand_legal(game: Game, entries: Iterable[Mapping[str, Any]]) -> list[Command]:
    """Every concrete command a ``legal()`` list describes.

    A legal entry is a map with the command's ``type`` and its fixed fields. It may carry
    ``"choose": {field: [value, ...]}`` for one field that takes any of several values (one
    command each), which keeps lists short where the full product is large. Any other key
    (``"preview"``, ``"odds"``...) is information for clients and is not part of the command.
    """
    classes = {cls.TYPE: cls for cls in game.commands}
    out: list[Command] = []
    for entry in entries:
        cls = classes[entry["type"]]
        names = {field.name for field in attrs.fields(cls)}
        fixed = {k: v for k, v in entry.items() if k in names}
        choose = entry.get("choose") or {}
        if not choose:
            out.append(_converter.structure(fixed, cls))
            continue
        ((field, values),) = choose.items()
        for value in values:
            out.append(_converter.structure({**fixed, field: value}, cls))
    return out


def first_state(
    game: Game, options: Mapping[str, Any], seats: Sequence[SeatSpec], seed: bytes
) -> Any:
    """The state a game begins in: ``setup`` with the options, the seats and the seed's
    ``"setup"`` draw. Rooms, replays, ``lumin verify`` and matches all deal through this, so
    a log's first state is the same wherever it is rebuilt."""
    return game.setup(options, tuple(seats), chance(seed, "setup"))


def replay(game: Game, first: S, events: Iterable[Event]) -> S:
    """Fold ``events`` over the first state: the state a log describes."""
    state = first
    for event in events:
        state = game.evolve(state, event)
    return state
