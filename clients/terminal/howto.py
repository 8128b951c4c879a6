"""How to play each game, the same text as the browser's how-to pages
(``clients/web/src/app/howto_content.ts``), as one JSON-able structure: ``howto.json`` beside
this module, a list of ``{"id", "name", "tagline", "players", "sections": [{"title", "body"}]}``
where a body item is a paragraph (a string) or a list (an array of strings).

The browser's "Playing it here" sections speak of clicks and its own keys; ``lumin play``
shows its own words for playing in the terminal instead (:data:`IN_THE_TERMINAL`).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import TypedDict

__all__ = ["BROWSER_ONLY", "IN_THE_TERMINAL", "HowTo", "Section", "how_to", "how_tos"]

#: The browser-only section a terminal leaves out (it has its own, below).
BROWSER_ONLY = "Playing it here"


class Section(TypedDict):
    title: str
    body: list[str | list[str]]


class HowTo(TypedDict):
    id: str
    name: str
    tagline: str
    players: str
    sections: list[Section]


#: Playing each game in ``lumin play``: the command list and the board's own keys.
IN_THE_TERMINAL: dict[str, list[str]] = {
    "flip_over_frog": [
        "Beside the board, the command list holds every play you may make now, in words.",
        "Up and down highlight one: the board marks its space > and the spaces it would flip"
        " *. Enter plays it.",
        "Spaces count from 1 (top left) to 16 (bottom right); a tile reads R3+ (a red Frog 3"
        " with arrows on its edges), R5x (arrows on its corners), S1 (a Snake), ## face down.",
    ],
    "neon_hex": [
        "The command list holds every expansion you may make now: Safe or Risk, its hex, its"
        " cost and, for a Risk, its odds. Up and down highlight one: the map marks its hex *"
        " and the bonus hexes a Risk would claim +. Enter sends it; e ends your turn.",
        "Each hex shows its number and its owner's letter (A for the first seat, . neutral).",
    ],
    "flash8": [
        "The board takes the keys: an arrow slides the electron next to the free space that"
        " way; a digit 1-9 names the electron on that cell of your tablet and slides it.",
        "f or space calls FLASH when your tablet shows a stack's top card; h asks for a hint"
        " where the room allows it.",
        "In a solo game, l claims a line: pick the line, then the shape.",
    ],
    "neon_flip": [
        "The command list holds every action you may take now, in words. Up and down highlight"
        " one: the grid marks * the tiles it would change. Enter sends it.",
        "e ends your turn; x stops a cascade. The grid's letters: C cyan, P pink, G green,"
        " Y yellow, # locked.",
    ],
}


@cache
def how_tos() -> tuple[HowTo, ...]:
    """Every game's how-to, in the browser's order."""
    text = resources.files(__package__).joinpath("howto.json").read_text(encoding="utf-8")
    loaded: list[HowTo] = json.loads(text)
    return tuple(loaded)


def how_to(game: str) -> HowTo | None:
    """``game``'s how-to (``None`` for a game this client has none for)."""
    return next((page for page in how_tos() if page["id"] == game), None)
