"""Lumin's Python client library: play, watch and write bots over the network.

It needs only :mod:`protocol` and the wire libraries (websockets, msgpack, attrs, cattrs,
tenacity), never the rules engine or the server: ``pip install lumin`` without the ``server``
extra is enough. Everything it knows about a game comes from the server: the views, the
``legal`` entries (expanded by :mod:`clients.sdk.legal`) and ``GameInfo`` (``list_games``).

- :mod:`clients.sdk.client`: :class:`LuminClient`, one connection that reconnects and resumes
  by itself (its docstring has the whole story);
- :mod:`clients.sdk.events`: the typed event stream (:meth:`LuminClient.stream`);
- :mod:`clients.sdk.legal`: ``legal`` entries expanded into concrete commands (:class:`Option`);
- :mod:`clients.sdk.bots`: the bot interface (:class:`Bot`, :class:`Turn`, :class:`Move`), the
  same for a live server and for ``lumin arena`` (docs/bots.md);
- :mod:`clients.sdk.views`: the views of each game, typed (:data:`VIEWS`).
"""

from clients.sdk.bots import (
    BadBot,
    Bot,
    BotFactory,
    Move,
    RandomBot,
    Turn,
    load_bot,
    play_seat,
    random_bot,
)
from clients.sdk.client import (
    ConnectionLost,
    LuminClient,
    Recent,
    RequestTimeout,
    RoomGone,
    ServerError,
    bot,
    human,
)
from clients.sdk.events import (
    Chat,
    Closed,
    Ended,
    Event,
    LobbyListed,
    Problem,
    RoomChanged,
    Update,
)
from clients.sdk.legal import ALIGNED_KEYS, INFO_KEYS, Option, command_of, expand
from clients.sdk.views import (
    VIEWS,
    Flash8View,
    FlipOverFrogView,
    NeonFlipView,
    NeonHexView,
    Outcome,
)

__all__ = [
    "ALIGNED_KEYS",
    "INFO_KEYS",
    "VIEWS",
    "BadBot",
    "Bot",
    "BotFactory",
    "Chat",
    "Closed",
    "ConnectionLost",
    "Ended",
    "Event",
    "Flash8View",
    "FlipOverFrogView",
    "LobbyListed",
    "LuminClient",
    "Move",
    "NeonFlipView",
    "NeonHexView",
    "Option",
    "Outcome",
    "Problem",
    "RandomBot",
    "Recent",
    "RequestTimeout",
    "RoomChanged",
    "RoomGone",
    "ServerError",
    "Turn",
    "Update",
    "bot",
    "command_of",
    "expand",
    "human",
    "load_bot",
    "play_seat",
    "random_bot",
]
