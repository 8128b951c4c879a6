"""Neon Flip's bots: the ladder ``easy``, ``medium`` and ``hard`` (``bot`` is ``hard``), each a
one-action-ahead evaluator that reads only its own seat's view, in :data:`BOTS`.

``hard`` is the first wave's bot, described below; the lower levels are the same machine with
parts switched off or loosened (:class:`Level`):

- ``medium`` evaluates like ``hard`` but plays at random among its four best commands worth
  more than ending the turn (always the one when only one is), so it often takes a lesser
  card or flip;
- ``easy`` judges every command by the cheap first pass alone (the tiles it changes, with a
  greedy cascade, and the prices below: no Continuous Circuits, no objective, no bonus for
  ending the round on its own turn), makes at most one action a turn (a card, a Manual Flip,
  a buy or a lock; cascades follow as usual) and picks it at random among its three best, so
  it leaves Energy unspent and misses its best plays: a newcomer's first opponent.

For every command its seat may send, the bot works out the board it would leave (with the
card effects of :mod:`engine.neon_flip.cards`, applied to the public board of its view) and
the cascade chain that would follow, then scores the result: tiles of its side against its
opponents', corners, Continuous Circuits and runs about to become one, and progress on its own
secret Target Objective. Energy, cards and locks have prices, so it spends only where the board
gains more than it pays; Energy is cheap when a checkpoint ends the turn, and buying the last
cards of the draw pile (ending the round on its own turn) earns a bonus. A first, cheap pass
scores every option by the tiles it changes with a greedy cascade; only the best few are
evaluated in full, with a search for the longest cascade. Both passes count nodes against a
fixed budget, so a decision takes the same work on any machine and is reproducible.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from engine.bots import random_bot
from engine.core import Action, Bot, BotFactory, Command, Game, Rejected
from engine.neon_flip.board import (
    BLOCKS,
    CENTRE,
    COLOURS,
    COLUMNS,
    CORNERS,
    DIAGONALS,
    EDGES,
    PINK,
    QUADRANTS,
    ROWS,
    WINDOWS,
    block_cells,
    cell_of,
    flipped,
    runs,
)
from engine.neon_flip.cards import (
    CARDS,
    PROTO_ZERO,
    Context,
    Play,
    cascade_choices,
    kind_of,
)
from engine.neon_flip.messages import (
    BuyCard,
    Cascade,
    ChooseObjective,
    Discard,
    EndTurn,
    Lock,
    ManualFlip,
    PlayCard,
    StopCascade,
)

__all__ = [
    "BOTS",
    "CARD_VALUE",
    "CHAIN_SEARCH",
    "CLOSE_BONUS",
    "CORNER_BONUS",
    "DEFAULT_BUDGET",
    "EASY",
    "ENERGY_VALUE",
    "HARD",
    "MEDIUM",
    "SHORTLIST",
    "Level",
    "NeonBot",
    "easy_bot",
    "hard_bot",
    "medium_bot",
    "neon_bot",
]

#: What holding a card is worth to the bot, in points, by kind.
CARD_VALUE: dict[str, float] = {
    "single_flip": 0.6,
    "cross_flip": 1.2,
    "diagonal_x": 1.2,
    "linear_sweep": 1.4,
    "perimeter_ring": 1.6,
    "node_swap": 0.8,
    "node_shift": 0.6,
    "cascade_surge": 1.0,
    "power_surge": 1.0,
    "overclock": 0.9,
    "system_drain": 0.7,
    "grid_overcharge": 2.0,
    "overcharge_loop": 1.8,
    "chain_reactor": 2.2,
    "mainframe_hijack": 2.0,
}
assert set(CARD_VALUE) == set(CARDS)

ENERGY_VALUE = 0.55
CORNER_BONUS = 0.5
SHORTLIST = 24
#: What ending the round on its own turn is worth to the bot.
CLOSE_BONUS = 4.0
#: Nodes a cascade chain may explore when the bot looks for the longest one.
CHAIN_SEARCH = 60
DEFAULT_BUDGET = 4000


@attrs.frozen
class Level:
    """What one rung of the ladder does: ``shortlist`` commands evaluated in full after the
    cheap pass (0: the cheap pass decides), ``chain_search`` nodes for the longest cascade
    (0: greedy), ``actions`` per turn (``None``: as many as pay), ``pick`` the number of best
    commands it chooses among at random (1: always the best)."""

    name: str
    shortlist: int = SHORTLIST
    chain_search: int = CHAIN_SEARCH
    actions: int | None = None
    pick: int = 1


#: The first wave's bot (issue 16: the starting point of the ladder): the best 24 of the cheap
#: pass evaluated in full, the longest cascade, always the best.
HARD = Level("hard")
#: ``hard`` that plays at random among its four best (by the full evaluation).
MEDIUM = Level("medium", pick=4)
#: The cheap pass alone, one action a turn, at random among its three best.
EASY = Level("easy", shortlist=0, chain_search=0, actions=1, pick=3)

_CELL_SETS: dict[str, tuple[tuple[int, ...], ...]] = {
    "corner_control": (CORNERS,),
    "core_access": (CENTRE,),
    "full_row": ROWS,
    "full_column": COLUMNS,
    "sector_lord": tuple(block_cells(b) for b in BLOCKS),
    "anchor_pair": ((0, 5, 2, 3), (30, 35, 32, 33), (0, 30, 12, 18), (5, 35, 17, 23)),
    "diagonal_link": tuple(line[i : i + 4] for line in DIAGONALS for i in range(len(line) - 3)),
}


class _Table:
    """The public facts the bot reads from its view, as engine indexes."""

    def __init__(self, view: Mapping[str, Any]) -> None:
        self.board = tuple(COLOURS.index(c) for c in view["board"])
        self.locked = frozenset(cell_of(lock["slot"]) for lock in view["locks"])
        me = view["you"]
        self.seat: int = me["seat"]
        self.colour = COLOURS.index(me["colour"])
        players = view["players"]
        self.players = len(players)
        self.solo = view["mode"] == "solo"
        self.overdrive = view["mode"] == "overdrive"
        my_team = players[self.seat]["team"]
        self.mine = frozenset(COLOURS.index(p["colour"]) for p in players if p["team"] == my_team)
        if self.solo:
            self.theirs = frozenset((PINK,))
            self.rivals: tuple[int, ...] = (PROTO_ZERO,)
            self.opponent_count = 1
        else:
            rivals = [p for p in players if p["team"] != my_team]
            self.theirs = frozenset(COLOURS.index(p["colour"]) for p in rivals)
            self.rivals = tuple(p["seat"] for p in rivals)
            self.opponent_count = len({p["team"] for p in rivals})
        self.energy: int = players[self.seat]["energy"]
        objective = me.get("objective")
        self.objective: str = objective["id"] if objective else ""
        self.draw_pile: int = view["draw_pile"]
        self.context = Context(
            board=self.board,
            locked=self.locked,
            colour=self.colour,
            opponents=self.rivals,
            opponent_colours=tuple(sorted(self.theirs)),
        )


class NeonBot:
    """Plays any seat of any mode from its own view (see the module docs)."""

    def __init__(
        self, rng: random.Random, budget: int = DEFAULT_BUDGET, level: Level = HARD
    ) -> None:
        self.rng = rng
        self.budget = budget
        self.level = level
        self.nodes = 0
        #: The turn (the view's ``turns``) of the bot's last action and its actions in it.
        self.acted: tuple[int, int] = (-1, 0)

    # -- evaluation -----------------------------------------------------------------------------

    def evaluate(self, table: _Table, board: Sequence[int]) -> float:
        """How good ``board`` is for the bot's side, in rough points."""
        self.nodes += 1
        mine = theirs = 0.0
        for colour in board:
            if colour in table.mine:
                mine += 1.0
            elif colour in table.theirs:
                theirs += 1.0
        for cell in CORNERS:
            if board[cell] in table.mine:
                mine += CORNER_BONUS
            elif board[cell] in table.theirs:
                theirs += CORNER_BONUS
        for colour in table.mine:
            mine += _circuit_value(board, colour)
        for colour in table.theirs:
            theirs += _circuit_value(board, colour)
        if table.objective:
            mine += _objective_value(table.objective, board, table.colour, table.players)
        return mine - theirs / max(1, table.opponent_count)

    def _cell_gain(
        self, table: _Table, before: Sequence[int], after: Sequence[int], cells: Sequence[int]
    ) -> float:
        """The cheap first-pass score: the tiles a move changes (``cells``), weighted."""
        gain = 0.0
        opp = 1.0 / max(1, table.opponent_count)
        for cell in set(cells):
            old, new = before[cell], after[cell]
            if old == new:
                continue
            weight = 1.0 + (CORNER_BONUS if cell in CORNERS else 0.0)
            gain += weight * ((new in table.mine) - (old in table.mine))
            gain -= opp * weight * ((new in table.theirs) - (old in table.theirs))
        return gain

    def _chain(
        self,
        table: _Table,
        board: tuple[int, ...],
        sources: Sequence[int],
        limit: int,
        search: int = 0,
    ) -> tuple[tuple[int, ...], list[int]]:
        """The board after a cascade chain from ``sources`` (decisions 4) and the cells it
        flipped: greedy (corners first) when ``search`` is 0, otherwise the longest chain
        found within ``search`` nodes, corners breaking ties."""
        if search:
            path = self._longest_chain(table, board, tuple(sources), limit, search)
            for cell in path:
                board = flipped(board, (cell,))
            return board, path
        flips: list[int] = []
        while len(flips) < limit and sources:
            choices = cascade_choices(board, table.locked, table.colour, sources)
            if not choices:
                break
            best = max(choices, key=lambda c: (c in CORNERS, -c))
            board = flipped(board, (best,))
            sources = (best,)
            flips.append(best)
            self.nodes += 1
        return board, flips

    def _longest_chain(
        self, table: _Table, board: tuple[int, ...], sources: tuple[int, ...], limit: int, cap: int
    ) -> list[int]:
        best: list[int] = []
        best_key = (0, 0)
        spent = 0

        def walk(board: tuple[int, ...], sources: tuple[int, ...], path: list[int]) -> None:
            nonlocal best, best_key, spent
            key = (len(path), sum(1 for c in path if c in CORNERS))
            if key > best_key:
                best, best_key = list(path), key
            if len(path) >= limit or spent >= cap:
                return
            for cell in cascade_choices(board, table.locked, table.colour, sources):
                spent += 1
                self.nodes += 1
                walk(flipped(board, (cell,)), (cell,), [*path, cell])

        walk(board, sources, [])
        return best

    def _outcome(
        self, table: _Table, command: Command, energy_value: float, search: int = 0
    ) -> tuple[tuple[int, ...], list[int], float] | None:
        """The board a command leaves (cascade included), the cells it changed, and its
        non-board value."""
        if isinstance(command, ManualFlip):
            cell = cell_of(command.slot)
            board = flipped(table.board, (cell,))
            sources = (cell,) if board[cell] == table.colour else ()
            board, chain = self._chain(table, board, sources, 3, search)
            return board, [cell, *chain], 0.0
        if isinstance(command, PlayCard):
            kind = kind_of(command.card)
            try:
                result = kind.effect.resolve(
                    table.context,
                    Play(
                        command.slot,
                        command.other,
                        command.line,
                        command.index,
                        command.step,
                        command.target,
                        command.colour,
                    ),
                )
            except Rejected:
                return None
            board, chain = self._chain(
                table, result.board, result.sources, result.cascade_limit, search
            )
            extra = result.energy * energy_value - CARD_VALUE[kind.key]
            extra += result.draws * 0.8
            if result.drain is not None:
                extra += 2.0 if table.solo else 1.2
            return board, [*result.changed, *chain], extra
        return None

    # -- decisions ------------------------------------------------------------------------------

    def act(self, view: Mapping[str, Any], options: Sequence[Command], now: float) -> Action | None:
        """Pick the best command for the bot's seat (see the module docs)."""
        if not options:
            return None
        self.nodes = 0
        first = options[0]
        if isinstance(first, ChooseObjective):
            return Action(now, self._choose_objective(view, options))
        table = _Table(view)
        if isinstance(first, Discard):
            return Action(now, self._discard(options))
        if any(isinstance(o, Cascade | StopCascade) for o in options):
            return Action(now, self._cascade(table, view, options))
        return Action(now, self._main(table, view, options))

    def _choose_objective(self, view: Mapping[str, Any], options: Sequence[Command]) -> Command:
        board = tuple(COLOURS.index(c) for c in view["board"])
        colour = COLOURS.index(view["you"]["colour"])
        players = len(view["players"])
        choices = [o for o in options if isinstance(o, ChooseObjective)]

        def worth(option: ChooseObjective) -> tuple[float, str]:
            key = option.objective
            return _objective_value(key, board, colour, players) + _objective_ease(key), key

        return max(choices, key=worth)

    def _discard(self, options: Sequence[Command]) -> Command:
        choices = [o for o in options if isinstance(o, Discard)]
        return min(choices, key=lambda o: (CARD_VALUE[kind_of(o.card).key], o.card))

    def _cascade(
        self, table: _Table, view: Mapping[str, Any], options: Sequence[Command]
    ) -> Command:
        pending = view["pending_cascade"]
        left = pending["limit"] - pending["made"]
        best: Command = next(o for o in options if isinstance(o, StopCascade))
        search = self.level.chain_search
        full = self.level.shortlist > 0
        best_value = self.evaluate(table, table.board) if full else 0.0
        for option in options:
            if not isinstance(option, Cascade):
                continue
            cell = cell_of(option.slot)
            board, cells = self._chain(
                table, flipped(table.board, (cell,)), (cell,), left - 1, search
            )
            if full:
                value = self.evaluate(table, board)
            else:
                value = self._cell_gain(table, table.board, board, [cell, *cells])
            if value > best_value:
                best, best_value = option, value
        return best

    def _main(self, table: _Table, view: Mapping[str, Any], options: Sequence[Command]) -> Command:
        level = self.level
        turn, made = self.acted
        if turn != view["turns"]:
            turn, made = view["turns"], 0
        if level.actions is not None and made >= level.actions:
            return next(o for o in options if isinstance(o, EndTurn))
        choice = self._best_action(table, view, options)
        if not isinstance(choice, EndTurn):
            made += 1
        self.acted = (turn, made)
        return choice

    def _best_action(
        self, table: _Table, view: Mapping[str, Any], options: Sequence[Command]
    ) -> Command:
        level = self.level
        base = self.evaluate(table, table.board) if level.shortlist else 0.0
        scored: list[tuple[float, int, Command, float]] = []
        end: Command = EndTurn()
        # A checkpoint at the end of this turn (decisions 11) makes tiles shown now worth VP at
        # once, so Energy is worth less than usual: its surplus third in the last round.
        closing = bool(view["round_over"]) and not table.solo
        last_round = view["checkpoints"] + 1 >= view["rounds"]
        if closing:
            energy_value = 1 / 3 if last_round else 0.3
        else:
            energy_value = ENERGY_VALUE
        hand_size = len(view["you"]["hand"])
        # Buying the last cards of the draw pile ends the round at the end of this turn, so
        # the checkpoint counts the board before any opponent can answer (decisions 11).
        closable = (
            bool(level.shortlist)
            and not closing
            and not table.solo
            and 0 < table.draw_pile <= table.energy
        )
        extras: list[tuple[float, int, Command]] = []
        for index, option in enumerate(options):
            if isinstance(option, EndTurn):
                end = option
                continue
            if self.nodes >= self.budget:
                break
            self.nodes += 1
            cost = _cost_of(option, view)
            if isinstance(option, BuyCard):
                value = CARD_VALUE[kind_of(option.card).key] * 0.7 - 0.15 * max(0, hand_size - 4)
                if closable:
                    value += CLOSE_BONUS / table.draw_pile
                extras.append((value - cost * energy_value, index, option))
                continue
            if isinstance(option, Lock):
                cell = cell_of(option.slot)
                weight = 1.0 + (CORNER_BONUS if cell in CORNERS else 0.0)
                soon = table.draw_pile <= table.players + 1
                value = weight * (0.1 if closing else 1.2 if soon else 0.4)
                extras.append((value - cost * energy_value, index, option))
                continue
            result = self._outcome(table, option, energy_value)
            if result is None:
                continue
            board, cells, extra = result
            extra -= cost * energy_value
            scored.append(
                (self._cell_gain(table, table.board, board, cells) + extra, index, option, extra)
            )
        scored.sort(key=lambda item: (-item[0], item[1]))
        if not level.shortlist:
            # The cheap pass decides: the best ``pick`` worth more than ending the turn.
            ranked = sorted(
                [(value, index, option) for value, index, option, _ in scored] + extras,
                key=lambda item: (-item[0], item[1]),
            )
            good = [option for value, _, option in ranked[: level.pick] if value > 0.05]
            if not good:
                return end
            return good[0] if len(good) == 1 else self.rng.choice(good)
        best_value, best_index, best = 0.05, -1, end
        full: list[tuple[float, int, Command]] = []
        for _quick, index, option, extra in scored[: level.shortlist]:
            searched = self._outcome(table, option, energy_value, level.chain_search)
            assert searched is not None
            value = self.evaluate(table, searched[0]) - base + extra
            full.append((value, index, option))
            if value > best_value or (value == best_value and index < best_index):
                best_value, best_index, best = value, index, option
        for value, index, option in extras:
            if value > best_value:
                best_value, best_index, best = value, index, option
        if level.pick > 1:
            # At random among the best ``pick`` worth more than ending the turn.
            ranked = sorted(full + extras, key=lambda item: (-item[0], item[1]))
            good = [option for value, _, option in ranked[: level.pick] if value > 0.05]
            if len(good) > 1:
                return self.rng.choice(good)
        return best


def _cost_of(option: Command, view: Mapping[str, Any]) -> int:
    surcharge: int = view["surcharge"]
    if isinstance(option, PlayCard):
        for card in view["you"]["hand"]:
            if card["id"] == option.card:
                return int(card["cost"]) + surcharge
        return 0
    if isinstance(option, ManualFlip):
        return 2 + surcharge
    if isinstance(option, BuyCard):
        return 1
    if isinstance(option, Lock):
        return 3
    return 0


def _circuit_value(board: Sequence[int], colour: int) -> float:
    value = 0.0
    for length in runs(board, colour, ROWS + COLUMNS):
        if length >= 4:
            value += 3.0
        elif length == 3:
            value += 0.5
    return value


def _best_share(board: Sequence[int], colour: int, sets: Sequence[Sequence[int]]) -> float:
    return max(sum(1 for c in cells if board[c] == colour) / len(cells) for cells in sets)


def _objective_progress(key: str, board: Sequence[int], colour: int, players: int) -> float:
    """How close ``colour`` is to the objective, from 0 to 1 (1 when it holds)."""
    if key in _CELL_SETS:
        return _best_share(board, colour, _CELL_SETS[key])
    if key == "perimeter_hold":
        return min(1.0, sum(1 for c in EDGES if board[c] == colour) / 12)
    if key == "twin_circuits":
        scored = sorted(
            ((sum(1 for c in w if board[c] == colour), w) for w in WINDOWS), reverse=True
        )
        top, cells = scored[0]
        second = next((n for n, w in scored[1:] if not set(w) & set(cells)), 0)
        return (top + second) / 8
    if key in ("spread_network", "pillar_network"):
        need = 3 if players <= 2 else 2
        lines = ROWS if key == "spread_network" else COLUMNS
        return (
            sum(min(1.0, sum(1 for c in line if board[c] == colour) / need) for line in lines) / 6
        )
    if key == "quadrant_sweep":
        won = 0
        for quadrant in QUADRANTS:
            tally = [0, 0, 0, 0]
            for cell in quadrant:
                tally[board[cell]] += 1
            if all(tally[colour] > tally[o] for o in range(4) if o != colour):
                won += 1
        return won / 4
    return 0.0


def _objective_value(key: str, board: Sequence[int], colour: int, players: int) -> float:
    progress = _objective_progress(key, board, colour, players)
    return 3.0 * progress * progress + (1.5 if progress >= 1.0 else 0.0)


def _objective_ease(key: str) -> float:
    """A prior on how reachable an objective is over a game (small cell sets are easier)."""
    return {
        "corner_control": 0.3,
        "core_access": 0.5,
        "anchor_pair": 0.4,
        "diagonal_link": 0.3,
        "spread_network": 0.5,
        "pillar_network": 0.5,
        "perimeter_hold": 0.2,
    }.get(key, 0.0)


def hard_bot(game: Game, seat: int, rng: random.Random) -> Bot:
    """Hard (the first wave's bot): the full evaluation of the best 24 commands, the longest
    cascade, always the best."""
    return NeonBot(rng, level=HARD)


def medium_bot(game: Game, seat: int, rng: random.Random) -> Bot:
    """Medium: hard's evaluation, at random among its four best commands."""
    return NeonBot(rng, level=MEDIUM)


def easy_bot(game: Game, seat: int, rng: random.Random) -> Bot:
    """Easy: one action a turn, at random among its three best by the cheap pass."""
    return NeonBot(rng, level=EASY)


#: ``bot``, the kind every game offers, is Neon Flip's ``hard``.
neon_bot = hard_bot

#: Every bot kind Neon Flip offers, by the name a seat asks for (``bot`` is ``hard``).
BOTS: dict[str, BotFactory] = {
    "random": random_bot,
    "easy": easy_bot,
    "medium": medium_bot,
    "hard": hard_bot,
    "bot": hard_bot,
}
