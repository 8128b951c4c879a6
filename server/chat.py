"""A room's chat: who may say what, how often, and who hears it.

Players' lines go to everyone in the room on the ``players`` channel; spectators' lines only to
spectators, on the ``spectators`` channel; the server's own notices (``user`` empty) to
everyone. Pure: the room sends what this decides.
"""

from __future__ import annotations

import collections
import math

from protocol.errors import ErrorCode
from protocol.messages import ChatMessage
from server.errors import Refused

__all__ = ["Chat"]


#: Seconds a chat line counts against its sender's rate.
_WINDOW = 10.0


class Chat:
    """The chat of one room: lines of at most ``length`` characters, at most ``rate`` lines
    per person in any 10 seconds. It keeps only the times of recent lines: people with no line
    in the last 10 seconds are forgotten (at most every 10 seconds), so a room that lives long
    while many people pass through keeps no more than those who chatted lately."""

    def __init__(self, room: str, length: int, rate: int) -> None:
        self.room = room
        self.length = length
        self.rate = rate
        self._times: dict[str, collections.deque[float]] = {}
        self._pruned = -math.inf

    @property
    def people(self) -> int:
        """How many people's recent lines the rate keeps now."""
        return len(self._times)

    def line(self, user: str, name: str, seat: int | None, text: str, now: float) -> ChatMessage:
        """The chat line ``user`` (seated at ``seat``, or watching) says at ``now``; refused
        (``chat_too_long``, ``rate_limited``) when it breaks the limits."""
        text = text.strip()
        if not text or len(text) > self.length:
            raise Refused(
                ErrorCode.CHAT_TOO_LONG, f"A chat message has 1 to {self.length} characters."
            )
        if now - self._pruned >= _WINDOW:
            self._forget_quiet(now)
        times = self._times.setdefault(user, collections.deque(maxlen=self.rate))
        if sum(1 for t in times if now - t < _WINDOW) >= self.rate:
            raise Refused(ErrorCode.RATE_LIMITED, f"At most {self.rate} chat messages per 10 s.")
        times.append(now)
        return ChatMessage(
            room=self.room,
            channel="players" if seat is not None else "spectators",
            user=user,
            name=name,
            seat=seat,
            text=text,
            server_time=now,
        )

    def notice(self, text: str, now: float) -> ChatMessage:
        """A line from the server itself, which everyone in the room hears: ``user`` empty
        (no person's id is), named ``Lumin``."""
        return ChatMessage(
            room=self.room, channel="players", user="", name="Lumin", text=text, server_time=now
        )

    def _forget_quiet(self, now: float) -> None:
        """Forget everyone whose last line is 10 s old or older: their rate is a newcomer's."""
        self._pruned = now
        for user in [
            u for u, times in self._times.items() if not times or now - times[-1] >= _WINDOW
        ]:
            del self._times[user]

    @staticmethod
    def hears(line: ChatMessage, viewer: int | None, muted: set[str]) -> bool:
        """Whether a member who sees ``viewer`` (a seat, or ``None``) and mutes ``muted`` gets
        ``line``."""
        if line.user in muted:
            return False
        return line.channel == "players" or viewer is None
