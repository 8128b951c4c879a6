"""Race mode: 2-4 players slide at once and the earliest correct FLASH takes the card.

Sources: the rulebook ("Setup", "Game", "End of the game") and flash8.decisions 1-10 and 17.
Every function here is pure; :mod:`engine.flash8.rules` dispatches to it.

Claims are judged on effective times (decisions 17): the room time the server received a
claim less the lag it credits the claimant (the command's server-set ``credit``, at most the
room's ``credit_cap``). A matching claim is taken at once unless a rival could still show an
earlier effective time; then it is held (``claim_held``) for at most the largest credit any
rival could still be given, and the tick at the hold's end awards the card to the earliest
held claim, a tie within :data:`TIE` going to the room's chance. Lockouts run on room time.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

from engine.core import Event, Rejected, SeatSpec, replace
from engine.flash8.board import (
    FREE,
    NEIGHBOURS,
    SIDES,
    matches,
    random_tablet,
    remove_blue,
    slides,
    to_seat,
)
from engine.flash8.cards import CARDS
from engine.flash8.messages import (
    CardTaken,
    ClaimHeld,
    ClaimLate,
    ClaimMissed,
    CountdownStarted,
    Ended,
    Flash,
    Hint,
    HintGiven,
    LimitReached,
    LockoutEnded,
    Slid,
    Slide,
    Started,
    TieSettled,
)
from engine.flash8.solver import distance, next_slide
from engine.flash8.state import Hold, RaceState, Take, side_of

__all__ = [
    "GRACE",
    "REACH_RATE",
    "STACK_SIZE",
    "TIE",
    "check_active",
    "check_slide",
    "deadline",
    "decide",
    "evolve",
    "legal",
    "nearest",
    "report",
    "setup",
    "tick",
]

#: Cards per stack (rulebook "Setup").
STACK_SIZE = 10
#: A refused duplicate claim is spared the lockout within this many seconds (decisions 7).
GRACE = 0.5
#: Held claims whose effective times are closer than this are a tie (decisions 17).
TIE = 0.02
#: The fastest a rival is taken to slide, in slides a second, when asking whether it could
#: still complete a card before a claim's hold ends: well above a quick human (3) and the
#: ``fast`` bot (10), so only a rival that could not finish in time is not waited for.
REACH_RATE = 12.0


def setup(options: Mapping[str, Any], seats: Sequence[SeatSpec], rng: random.Random) -> RaceState:
    """Shuffle the deck into one stack of 10 per player and arrange every tablet at random, or
    all alike with ``same_start`` (rulebook "Setup"; decisions 1, 4, 6)."""
    players = len(seats)
    handicap = tuple(bool(seat.choices.get("handicap", False)) for seat in seats)
    deck = list(range(len(CARDS)))
    rng.shuffle(deck)
    stacks = tuple(tuple(deck[n * STACK_SIZE : (n + 1) * STACK_SIZE]) for n in range(players))
    if options["same_start"]:
        table = random_tablet(rng)
        tablets = [to_seat(side_of(players, seat), table) for seat in range(players)]
    else:
        tablets = [random_tablet(rng) for _ in range(players)]
    for seat in range(players):
        if handicap[seat]:
            tablets[seat] = remove_blue(tablets[seat], rng)
    zeros = (0,) * players
    return RaceState(
        players=players,
        handicap=handicap,
        lockout=float(options["lockout"]),
        time_limit=float(options["time_limit"]),
        countdown=float(options["countdown"]),
        hints=bool(options["hints"]),
        same_start=bool(options["same_start"]),
        tablets=tuple(tablets),
        stacks=stacks,
        revealed_at=(0.0,) * players,
        reveal_tablets=(tuple(tablets),) * players,
        reveal_slides=(zeros,) * players,
        slides=zeros,
        mark_at=(0.0,) * players,
        mark_tablet=tuple(tablets),
        mark_slides=zeros,
        locked_until=(None,) * players,
        misses=zeros,
        late=zeros,
        hints_given=zeros,
        last_hint=(None,) * players,
        # A room created before the option existed has none, and was played first received.
        credit_cap=float(options.get("credit_cap", 0.0)),
        holds=(None,) * players,
    )


# --- decide ------------------------------------------------------------------------------------


def check_slide(tablet: str, command: Slide) -> None:
    """Refuse a slide that is not one electron into an adjacent free space (decisions 2)."""
    src, dst = command.src, command.dst
    if not (0 <= src < 9 and 0 <= dst < 9):
        raise Rejected("bad_cell", "Cells are numbered 0-8, row by row from your far edge.")
    if tablet[src] == FREE:
        raise Rejected("no_electron", f"Cell {src} holds no electron to slide.", rule="decisions 2")
    if tablet[dst] != FREE:
        raise Rejected("space_occupied", f"Cell {dst} is not free.", rule="decisions 2")
    if dst not in NEIGHBOURS[src]:
        raise Rejected(
            "not_adjacent",
            f"Cell {dst} is not next to cell {src}; electrons slide one space.",
            rule="decisions 2",
        )


def check_active(phase: str, locked: float | None, now: float) -> None:
    """Refuse moves before the start and during a lockout (decisions 6, 7)."""
    if phase in ("waiting", "countdown"):
        raise Rejected("not_started", "Moves before the start are refused.", rule="decisions 6")
    if locked is not None and now < locked:
        raise Rejected(
            "locked_out",
            f"A wrong claim locked you out until {locked:.2f} s.",
            rule="decisions 7",
        )


def decide(
    state: RaceState, seat: int, command: Any, now: float, rng: random.Random
) -> list[Event]:
    """Check a race command and say what happens (rulebook "Game"; decisions 2, 6, 7, 17).

    Held claims already due at ``now`` are settled first (as the tick would have), so a
    command never joins a hold that has ended; ``rng`` settles their ties."""
    if state.phase == "over":
        raise Rejected("game_over", "The race is over.", rule="decisions 8")
    due = _settle_due(state, now, rng)
    if due:
        return due + _decide(_fold(state, due), seat, command, now)
    return _decide(state, seat, command, now)


def _decide(state: RaceState, seat: int, command: Any, now: float) -> list[Event]:
    if state.phase == "over":
        raise Rejected("game_over", "The race is over.", rule="decisions 8")
    if not 0 <= seat < state.players:
        raise Rejected("bad_seat", f"There is no seat {seat} in this race.")
    if not isinstance(command, Slide | Flash | Hint):
        raise Rejected("wrong_mode", f"{command.TYPE!r} is not a race command.")
    check_active(state.phase, state.locked_until[seat], now)
    if isinstance(command, Slide):
        check_slide(state.tablets[seat], command)
        return [Slid(seat, now, command.src, command.dst)]
    if isinstance(command, Hint):
        return [_hint(state, seat, now)]
    return _flash(state, seat, command, now)


def holding(state: RaceState, seat: int) -> bool:
    """Whether ``seat`` has a claim held, waiting to be judged (decisions 17)."""
    return any(hold is not None and seat in hold.seats() for hold in state.holds)


def _credit(state: RaceState, credit: float) -> float:
    """The lag credited to a claim: the server's figure, at most the room's cap."""
    if not math.isfinite(credit) or credit < 0:
        raise Rejected("bad_command", "A claim's lag credit is a finite number of seconds, >= 0.")
    return min(credit, state.credit_cap)


def _flash(state: RaceState, seat: int, command: Flash, now: float) -> list[Event]:
    stack = command.stack
    if holding(state, seat):
        raise Rejected(
            "claim_held",
            "Your FLASH is being judged against a rival's; its result comes within a moment.",
            rule="decisions 17",
        )
    credit = _credit(state, command.credit)
    tablet = state.tablets[seat]
    if stack is not None:
        if not 0 <= stack < state.players:
            raise Rejected("no_such_stack", f"There is no stack {stack}.", rule="decisions 4")
        if not state.stacks[stack]:
            raise Rejected("stack_empty", f"Stack {stack} has no card left to claim.")
        order = [stack]
    else:
        order = list(range(state.players))
    effective = now - credit
    if state.ends_at is not None and effective >= state.ends_at:
        raise Rejected("time_up", "The race's time limit has passed.", rule="decisions 8, 17")
    for index in order:
        if state.stacks[index] and matches(tablet, state.pattern(state.stacks[index][0], seat)):
            return _claim(state, seat, index, now, credit, command.rival_credit)
    for take in reversed(state.takes):
        if now - take.at > GRACE + state.credit_cap:
            break  # taken before the earliest effective time this claim could have
        behind = effective - take.effective
        if behind > GRACE:
            continue
        if (stack is None or take.stack == stack) and matches(
            tablet, state.pattern(take.card, seat)
        ):
            return [ClaimLate(seat, now, CARDS[take.card].id, take.seat, behind)]
    return [ClaimMissed(seat, now, now + max(0.0, state.lockout), stack=stack)]


def _claim(
    state: RaceState, seat: int, stack: int, now: float, credit: float, rival_credit: float
) -> list[Event]:
    """A matching claim on the top of ``stack``: taken now, or held while a rival could still
    show an earlier effective time (decisions 17)."""
    # A card cannot be completed, as anyone saw it, before it was revealed.
    effective = max(now - credit, state.revealed_at[stack])
    taken = _take(state, seat, stack, now, effective)
    hold = state.holds[stack]
    if hold is not None:
        return [_held(taken, credit, effective, hold.until)]
    wait = min(state.credit_cap, max(0.0, rival_credit)) - credit
    if wait > 0 and _rival_could_win(state, seat, state.stacks[stack][0], now, wait):
        return [_held(taken, credit, effective, now + wait)]
    return _award(state, taken)


def _held(taken: CardTaken, credit: float, effective: float, until: float) -> ClaimHeld:
    return ClaimHeld(
        seat=taken.seat,
        at=taken.at,
        stack=taken.stack,
        card=taken.card,
        credit=credit,
        effective=effective,
        until=until,
        took=taken.took,
        slides=taken.slides,
        optimal=taken.optimal,
    )


def _award(state: RaceState, taken: CardTaken) -> list[Event]:
    """The take, and the race's end when it empties the last stack."""
    index = taken.stack
    last = all(not pile for n, pile in enumerate(state.stacks) if n != index)
    if last and len(state.stacks[index]) == 1:
        return [taken, Ended(taken.at, "stacks_empty")]
    return [taken]


def _rival_could_win(state: RaceState, seat: int, card: int, now: float, wait: float) -> bool:
    """Whether a rival could still claim ``card`` within ``wait`` seconds: not locked out
    that long, and no more slides from it than :data:`REACH_RATE` allows in that time."""
    reach = int(REACH_RATE * wait)
    for rival in range(state.players):
        if rival == seat:
            continue
        locked = state.locked_until[rival]
        if locked is not None and locked >= now + wait:
            continue
        if distance(state.tablets[rival], state.pattern(card, rival)) <= reach:
            return True
    return False


def _settle_due(state: RaceState, now: float, rng: random.Random) -> list[Event]:
    """The events of every hold that has ended by ``now``, earliest first."""
    events: list[Event] = []
    due = sorted(
        (hold.until, index)
        for index, hold in enumerate(state.holds)
        if hold is not None and hold.until <= now
    )
    for _, index in due:
        if state.phase == "over":
            break
        step = _settle(state, index, now, rng)
        events += step
        state = _fold(state, step)
    return events


def _settle(state: RaceState, stack: int, now: float, rng: random.Random) -> list[Event]:
    """Award a held card to its earliest claim; claims less than :data:`TIE` after it tie and
    the room's chance picks among them; every other claim is late (decisions 17)."""
    hold = state.holds[stack]
    assert hold is not None
    best = min(claim.effective for claim in hold.claims)
    tied = tuple(sorted(claim.seat for claim in hold.claims if claim.effective - best < TIE))
    events: list[Event] = []
    winner = tied[0]
    if len(tied) > 1:
        winner = rng.choice(tied)
        events.append(TieSettled(now, stack, CARDS[hold.card].id, tied, winner))
    won = next(claim for claim in hold.claims if claim.seat == winner)
    taken = CardTaken(
        seat=winner,
        at=now,
        stack=stack,
        card=won.card,
        points=CARDS[hold.card].points,
        took=won.took,
        slides=won.slides,
        optimal=won.optimal,
    )
    late: list[Event] = [
        ClaimLate(claim.seat, now, claim.card, winner, claim.effective - won.effective)
        for claim in hold.claims
        if claim.seat != winner
    ]
    award = _award(state, taken)
    return [*events, award[0], *late, *award[1:]]


def _fold(state: RaceState, events: Sequence[Event]) -> RaceState:
    for event in events:
        state = evolve(state, event)
    return state


def _take(state: RaceState, seat: int, stack: int, now: float, effective: float) -> CardTaken:
    card = state.stacks[stack][0]
    revealed = state.revealed_at[stack]
    if state.mark_at[seat] > revealed:
        base_tablet, base_slides = state.mark_tablet[seat], state.mark_slides[seat]
    else:
        base_tablet = state.reveal_tablets[stack][seat]
        base_slides = state.reveal_slides[stack][seat]
    return CardTaken(
        seat=seat,
        at=now,
        stack=stack,
        card=CARDS[card].id,
        points=CARDS[card].points,
        took=effective - revealed,
        slides=state.slides[seat] - base_slides,
        optimal=distance(base_tablet, state.pattern(card, seat)),
    )


def nearest(state: RaceState, seat: int) -> tuple[int, int] | None:
    """The stack whose top card is fewest slides from ``seat``'s tablet, with that distance
    (ties go to the lower stack); ``None`` when every stack is empty."""
    best: tuple[int, int] | None = None
    for index, pile in enumerate(state.stacks):
        if pile:
            far = distance(state.tablets[seat], state.pattern(pile[0], seat))
            if best is None or far < best[1]:
                best = (index, far)
    return best


def _hint(state: RaceState, seat: int, now: float) -> HintGiven:
    if not state.hints:
        raise Rejected("hints_off", "This room does not allow hints.")
    best = nearest(state, seat)
    if best is None:
        raise Rejected("stack_empty", "No card is left to aim at.")
    stack, far = best
    step = next_slide(state.tablets[seat], state.pattern(state.stacks[stack][0], seat))
    return HintGiven(
        seat,
        now,
        stack,
        far,
        None if step is None else step[0],
        None if step is None else step[1],
    )


# --- evolve ------------------------------------------------------------------------------------


def _put(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*values[:index], value, *values[index + 1 :])


def evolve(state: RaceState, event: Event) -> RaceState:
    """Apply one race event (pure)."""
    if isinstance(event, Slid):
        tablet = list(state.tablets[event.seat])
        tablet[event.dst], tablet[event.src] = tablet[event.src], FREE
        return replace(
            state,
            tablets=_put(state.tablets, event.seat, "".join(tablet)),
            slides=_put(state.slides, event.seat, state.slides[event.seat] + 1),
        )
    if isinstance(event, CardTaken):
        seat, stack = event.seat, event.stack
        card = state.stacks[stack][0]
        hold = state.holds[stack]
        if state.credit_cap == 0:
            effective = event.at  # received is effective: exactly the times first-received used
        elif hold is not None:
            effective = next(c.effective for c in hold.claims if c.seat == seat)
        else:
            effective = state.revealed_at[stack] + event.took
        take = Take(
            seat,
            card,
            stack,
            event.at,
            event.took,
            event.slides,
            event.optimal,
            event.points,
            effective,
        )
        return replace(
            state,
            holds=_put(state.holds, stack, None),
            stacks=_put(state.stacks, stack, state.stacks[stack][1:]),
            revealed_at=_put(state.revealed_at, stack, event.at),
            reveal_tablets=_put(state.reveal_tablets, stack, state.tablets),
            reveal_slides=_put(state.reveal_slides, stack, state.slides),
            mark_at=_put(state.mark_at, seat, event.at),
            mark_tablet=_put(state.mark_tablet, seat, state.tablets[seat]),
            mark_slides=_put(state.mark_slides, seat, state.slides[seat]),
            takes=(*state.takes, take),
        )
    if isinstance(event, ClaimMissed):
        locked = event.until if event.until > event.at else None
        return replace(
            state,
            locked_until=_put(state.locked_until, event.seat, locked),
            misses=_put(state.misses, event.seat, state.misses[event.seat] + 1),
        )
    if isinstance(event, ClaimLate):
        return replace(
            state,
            late=_put(state.late, event.seat, state.late[event.seat] + 1),
        )
    if isinstance(event, LockoutEnded):
        return replace(state, locked_until=_put(state.locked_until, event.seat, None))
    if isinstance(event, ClaimHeld):
        held = state.holds[event.stack]
        if held is None:
            held = Hold(state.stacks[event.stack][0], event.until, (event,))
        else:
            held = Hold(held.card, held.until, (*held.claims, event))
        return replace(state, holds=_put(state.holds, event.stack, held))
    if isinstance(event, TieSettled):
        return state  # the take and the late claims that follow it carry the outcome
    if isinstance(event, LimitReached):
        return replace(state, limit_passed=True)
    if isinstance(event, HintGiven):
        return replace(
            state,
            hints_given=_put(state.hints_given, event.seat, state.hints_given[event.seat] + 1),
            last_hint=_put(state.last_hint, event.seat, event),
        )
    if isinstance(event, CountdownStarted):
        return replace(state, phase="countdown", starts_at=event.starts_at)
    if isinstance(event, Started):
        players = state.players
        return replace(
            state,
            phase="running",
            started_at=event.at,
            ends_at=event.ends_at,
            revealed_at=(event.at,) * players,
            reveal_tablets=(state.tablets,) * players,
            reveal_slides=(state.slides,) * players,
            mark_at=(event.at,) * players,
            mark_tablet=state.tablets,
            mark_slides=state.slides,
        )
    if isinstance(event, Ended):
        return replace(
            state,
            phase="over",
            ended_reason=event.reason,
            ended_at=event.at,
            locked_until=(None,) * state.players,
            holds=(None,) * state.players,
        )
    raise TypeError(f"not a Flash 8 race event: {event!r}")


# --- clock -------------------------------------------------------------------------------------


def deadline(state: RaceState) -> float | None:
    """The countdown's start (at once), the start, the next lockout's or hold's end, the time
    limit, and after it the end of the claims it still counts (the limit plus the cap)."""
    if state.phase == "over":
        return None
    if state.phase == "waiting":
        return 0.0
    if state.phase == "countdown":
        return state.starts_at
    times = [until for until in state.locked_until if until is not None]
    times += [hold.until for hold in state.holds if hold is not None]
    if state.ends_at is not None:
        times.append(state.ends_at + state.credit_cap if state.limit_passed else state.ends_at)
    return min(times) if times else None


def tick(state: RaceState, now: float, rng: random.Random) -> list[Event]:
    """The events due at ``now`` (decisions 6, 7, 8, 17): held claims settled, lockouts
    ended, and at the time limit the end, or where claims are lag-credited first
    ``limit_reached`` and the end ``credit_cap`` seconds later."""
    if state.phase == "waiting":
        return [CountdownStarted(now, now + max(0.0, state.countdown))]
    if state.phase == "countdown":
        if state.starts_at is not None and now >= state.starts_at:
            limit = state.time_limit
            return [Started(now, now + limit if limit > 0 else None)]
        return []
    if state.phase != "running":
        return []
    events = _settle_due(state, now, rng)
    state = _fold(state, events)
    if state.phase != "running":
        return events
    events += [
        LockoutEnded(seat, now)
        for seat, until in enumerate(state.locked_until)
        if until is not None and until <= now
    ]
    if state.ends_at is not None and now >= state.ends_at:
        if now >= state.ends_at + state.credit_cap:
            events.append(Ended(now, "time_up"))
        elif not state.limit_passed:
            events.append(LimitReached(now))
    return events


# --- views and legal commands ------------------------------------------------------------------


def legal(state: RaceState, seat: int) -> list[dict[str, Any]]:
    """Slides into free spaces, FLASH (any stack, or one named), and a hint where allowed;
    nothing before the start, during a lockout, after the time limit or after the end; no
    FLASH while the seat's own claim is held (decisions 17)."""
    if state.phase != "running" or state.locked_until[seat] is not None or state.limit_passed:
        return []
    open_stacks = tuple(index for index, pile in enumerate(state.stacks) if pile)
    return list(_entries(state.tablets[seat], open_stacks, state.hints, not holding(state, seat)))


@functools.lru_cache(maxsize=8192)
def _entries(
    tablet: str, open_stacks: tuple[int, ...], hints: bool, claims: bool
) -> tuple[dict[str, Any], ...]:
    """The legal entries of a running, unlocked seat, computed once per situation (every
    racer's are asked for after every slide). The maps are shared: read them, never change
    them."""
    entries: list[dict[str, Any]] = [
        {"type": Slide.TYPE, "src": src, "dst": dst} for src, dst in slides(tablet)
    ]
    if claims:
        entries.append({"type": Flash.TYPE})
        entries.append({"type": Flash.TYPE, "choose": {"stack": list(open_stacks)}})
    if hints:
        entries.append({"type": Hint.TYPE})
    return tuple(entries)


def report(state: RaceState) -> dict[str, Any]:
    """The post-race report: per seat and per card, slides used against the solver's optimum."""
    players = []
    for seat in range(state.players):
        mine = [t for t in state.takes if t.seat == seat]
        used = sum(t.slides for t in mine)
        best = sum(t.optimal for t in mine)
        players.append(
            {
                "seat": seat,
                "side": SIDES[side_of(state.players, seat)],
                "points": sum(t.points for t in mine),
                "cards": len(mine),
                "slides": state.slides[seat],
                "slides_on_cards": used,
                "optimal_on_cards": best,
                "extra_slides": used - best,
                "misses": state.misses[seat],
                "late": state.late[seat],
                "hints": state.hints_given[seat],
            }
        )
    cards = [
        {
            "card": CARDS[t.card].id,
            "seat": t.seat,
            "stack": t.stack,
            "at": t.at,
            "took": t.took,
            "slides": t.slides,
            "optimal": t.optimal,
        }
        for t in state.takes
    ]
    return {"players": players, "cards": cards}
