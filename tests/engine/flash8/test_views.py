"""Flash 8's views: race and solo, and the view patch of a lone slide (decisions 2, 4, 5, 12)."""

from __future__ import annotations

from engine.flash8.cards import CARDS, card_pattern
from engine.flash8.messages import Slide
from engine.flash8.solo import LINES
from engine.flash8.state import side_of
from engine.registry import get_game
from protocol import delta
from tests.engine.flash8.helpers import START, act, race, solo_game, with_tablet

GAME = get_game("flash8")


def test_a_slide_patches_every_view_with_its_tablet_and_count() -> None:
    # engine.core.ViewPatcher: the server sends this instead of diffing whole views
    before = with_tablet(race(), 0, "BBBYYRVG.")
    after, events = act(before, 0, Slide(7, 8), START + 1.25)
    for viewer in (None, 0, 1):
        ops = GAME.view_patch(before, after, events, viewer)
        assert ops == [
            ["replace", "/seats/0/tablet", "BBBYYRV.G"],
            ["replace", "/seats/0/slides", 1],
        ]
        patched = delta.apply(GAME.view(before, viewer), [delta.op_from_wire(op) for op in ops])
        assert patched == GAME.view(after, viewer)
    assert GAME.view_patch(before, after, [*events, *events], None) is None


def test_views_show_tablets_and_tops_in_the_viewers_frame_and_hide_the_rest() -> None:
    # decisions 2 (tablets public), 4 (only tops visible), 5 (cards from the viewer's side)
    state = race(4, seed=15)
    for viewer in (None, 0, 1, 2, 3):
        view = GAME.view(state, viewer)
        side = 0 if viewer is None else side_of(4, viewer)
        assert view["frame"]["side"] == ("south", "west", "north", "east")[side]
        assert [s["tablet"] for s in view["seats"]] == list(state.tablets)
        for index, stack in enumerate(view["stacks"]):
            assert stack["size"] == 10
            assert stack["top"]["pattern"] == card_pattern(state.stacks[index][0], side)
        text = repr(view)
        for pile in state.stacks:
            for card in pile[1:]:
                assert CARDS[card].id not in text


def test_view_shows_the_grid_and_the_reserve_top_only() -> None:
    # decisions 12: the reserve is face down but for its top card
    state = solo_game(seed=3)
    view = GAME.view(state, 0)
    assert [cell["card"] for cell in view["grid"]] == [CARDS[c].id for c in state.grid]
    assert view["reserve"]["size"] == 43
    assert view["reserve"]["top"]["card"] == CARDS[state.reserve[0]].id
    text = repr(view)
    for card in state.reserve[1:]:
        assert CARDS[card].id not in text
    assert view["score"] == 43 and view["rank"] == "GLUON"
    assert [line["cells"] for line in view["lines"]] == [list(cells) for cells in LINES]
