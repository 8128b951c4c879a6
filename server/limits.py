"""Rate limits that outlive a connection: token buckets by identity and by client address.

A person's messages draw on their identity's bucket (before ``hello``, on the connection's
own) and on their address's bucket, so reconnecting gives a flooder nothing back; new
connections draw on their address's connection bucket. Buckets live in :class:`Buckets`,
which forgets a bucket once it has refilled, since a full bucket is exactly a new one: memory
stays bounded by the keys active within a refill time.

Behind a reverse proxy every player arrives from the proxy's address: :func:`client_address`
believes ``X-Forwarded-For`` only from the configured trusted proxies.

Every per-address limit counts a client in the bucket :func:`address_key` names: an IPv4
address itself (an IPv4-mapped IPv6 address as the IPv4 address it is), and an IPv6 address as
its network of ``--ipv6-prefix`` bits (a /64 by default: the network one household or host is
given, inside which a client may take a new address for every connection).
"""

from __future__ import annotations

import collections
import ipaddress
import math
from collections.abc import Iterable, Sequence

import attrs

__all__ = [
    "Buckets",
    "Opening",
    "RateLimits",
    "TokenBucket",
    "address_key",
    "client_address",
    "parse_networks",
]

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@attrs.define
class TokenBucket:
    """``rate`` tokens per second up to ``burst``; starts full at ``stamp``."""

    tokens: float
    stamp: float

    def refill(self, now: float, rate: float, burst: float) -> None:
        self.tokens = min(burst, self.tokens + (now - self.stamp) * rate)
        self.stamp = now


class Buckets:
    """Token buckets of one kind (per identity, per address...) by key."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self._buckets: dict[str, TokenBucket] = {}
        self._prune_at = 1024

    def __len__(self) -> int:
        return len(self._buckets)

    def _bucket(self, key: str, now: float) -> TokenBucket:
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= self._prune_at:
                self.prune(now)
            bucket = self._buckets[key] = TokenBucket(float(self.burst), now)
        else:
            bucket.refill(now, self.rate, self.burst)
        return bucket

    def tokens(self, key: str, now: float) -> float:
        """The tokens ``key`` has now (``burst`` for a key never seen)."""
        bucket = self._buckets.get(key)
        if bucket is None:
            return float(self.burst)
        return min(self.burst, bucket.tokens + (now - bucket.stamp) * self.rate)

    def take(self, key: str, now: float) -> bool:
        """Take one token of ``key``'s bucket if it has one."""
        bucket = self._bucket(key, now)
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            return True
        return False

    def give_back(self, key: str) -> None:
        """Return a token taken by :meth:`take` (another limit refused the message)."""
        bucket = self._buckets.get(key)
        if bucket is not None:
            bucket.tokens = min(self.burst, bucket.tokens + 1)

    def wait(self, key: str, now: float, tokens: float = 1.0) -> float:
        """Seconds until ``key`` has ``tokens`` tokens (0 when it has them now)."""
        missing = min(tokens, self.burst) - self.tokens(key, now)
        return max(0.0, missing / self.rate)

    def prune(self, now: float) -> None:
        """Forget every bucket that has refilled (no different from a new one)."""
        full = [
            key
            for key, bucket in self._buckets.items()
            if bucket.tokens + (now - bucket.stamp) * self.rate >= self.burst
        ]
        for key in full:
            del self._buckets[key]
        self._prune_at = max(1024, 2 * len(self._buckets))


class RateLimits:
    """The server's three limits: messages per person (identity), messages per address, and
    new connections per address (see :class:`~server.config.Settings`). An ``address`` here is
    the client's bucket key (:func:`address_key`), not its address as said."""

    def __init__(
        self,
        rate: float,
        burst: int,
        address_rate: float,
        address_burst: int,
        connect_rate: float,
        connect_burst: int,
    ) -> None:
        self.people = Buckets(rate, burst)
        self.addresses = Buckets(address_rate, address_burst)
        self.connections = Buckets(connect_rate, connect_burst)

    def connect(self, address: str, now: float) -> float:
        """Count a new connection from ``address``: 0 when it may open, else the seconds until
        it may."""
        if self.connections.take(address, now):
            return 0.0
        return self.connections.wait(address, now)

    def message(self, person: str, address: str, now: float) -> bool:
        """Count one message from ``person`` at ``address``: whether both limits allow it (a
        refused message uses up neither)."""
        if not self.people.take(person, now):
            return False
        if not self.addresses.take(address, now):
            self.people.give_back(person)
            return False
        return True

    def calm(self, person: str, address: str, now: float) -> bool:
        """Whether both of ``person``'s buckets hold at least half a burst (a flood is over)."""
        return (
            self.people.tokens(person, now) >= self.people.burst / 2
            and self.addresses.tokens(address, now) >= self.addresses.burst / 2
        )

    def next_token(self, person: str, address: str, now: float) -> float:
        """Seconds until both of ``person``'s buckets have a token again, and at least one
        token's time at the person's rate: how long a refused connection's reader rests."""
        return max(
            1.0 / self.people.rate,
            self.people.wait(person, now),
            self.addresses.wait(address, now),
        )

    def prune(self, now: float) -> None:
        """Forget refilled buckets (housekeeping)."""
        for buckets in (self.people, self.addresses, self.connections):
            buckets.prune(now)


def parse_networks(specs: Iterable[str]) -> tuple[Network, ...]:
    """Addresses or CIDR networks (``10.0.0.0/8``, ``::1``), checked; raises ``ValueError``
    naming a bad one."""
    networks = []
    for spec in specs:
        try:
            networks.append(ipaddress.ip_network(spec.strip(), strict=False))
        except ValueError:
            raise ValueError(f"{spec!r} is not an IP address or network") from None
    return tuple(networks)


def _ip(address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``address`` as an IP address (an IPv4-mapped IPv6 one as the IPv4 address it is), or
    ``None`` when it is not one."""
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def _trusted(address: str, proxies: tuple[Network, ...]) -> bool:
    ip = _ip(address)
    return ip is not None and any(ip in network for network in proxies)


def address_key(address: str, ipv6_prefix: int = 64) -> str:
    """The bucket every per-address limit counts a client at ``address`` in: an IPv4 address
    (``203.0.113.7``, and ``::ffff:203.0.113.7`` too) as itself; an IPv6 address as its network
    of ``ipv6_prefix`` bits (``2001:db8:1:2::/64``), so a client that takes a new address
    inside the network it was given for each connection still counts as one; anything that
    is not an IP address (a relay's ``cluster:NODE``) as it is."""
    ip = _ip(address)
    if ip is None:
        return address
    if isinstance(ip, ipaddress.IPv4Address):
        return str(ip)
    network = ipaddress.IPv6Network((int(ip), ipv6_prefix), strict=False)
    return str(network)


def client_address(peer: str, forwarded: Sequence[str], proxies: tuple[Network, ...]) -> str:
    """The address a connection comes from: its peer's, or, when the peer is a trusted proxy,
    the nearest address in its ``X-Forwarded-For`` headers (``forwarded``, in order) that is
    not one. Each proxy appends the address it received from, so the rightmost untrusted entry
    is the first that no trusted proxy vouches for; entries left of it could be forged."""
    if not proxies or not _trusted(peer, proxies):
        return peer
    hops = [hop.strip() for header in forwarded for hop in header.split(",") if hop.strip()]
    for hop in reversed(hops):
        if not _trusted(hop, proxies):
            return hop
    return hops[0] if hops else peer


class Opening:
    """Connections of each client address still opening: past their TCP connect and not yet
    past their HTTP request. At most ``cap`` per address bucket (:func:`address_key`), and new
    ones no faster than ``rate`` a second (in bursts of ``burst``): twice what the address may
    send as HTTP requests and websocket upgrades together, so a client over its limits is still
    told so (429) for a while, and only a flood past twice them is closed unheard, before any
    of its requests costs a parse and an answer. A trusted proxy's are not counted (the proxy
    bounds its own, and every player behind it shares its address). A client that sends half a
    request holds its connection until the server's open timeout: without the cap, one address
    could hold any number of them."""

    def __init__(
        self,
        cap: int,
        ipv6_prefix: int,
        proxies: tuple[Network, ...],
        rate: float = math.inf,
        burst: int = 1,
    ) -> None:
        self.cap, self.ipv6_prefix, self.proxies = cap, ipv6_prefix, proxies
        self.counts: collections.Counter[str] = collections.Counter()
        self.arrivals = None if math.isinf(rate) else Buckets(rate, burst)

    def enter(self, peer: str, now: float) -> str | None:
        """Count a new connection from ``peer`` at ``now`` (monotonic): its bucket (``""``: not
        counted), or ``None`` when it is to be closed at once (``cap`` opening already, or
        connections coming faster than ``rate``)."""
        if _trusted(peer, self.proxies):
            return ""
        key = address_key(peer, self.ipv6_prefix)
        if self.counts[key] >= self.cap:
            return None
        if self.arrivals is not None and not self.arrivals.take(key, now):
            return None
        self.counts[key] += 1
        return key

    def leave(self, key: str) -> None:
        """A connection counted in ``key`` is past its request (or gone)."""
        if key:
            self.counts[key] -= 1
            if self.counts[key] <= 0:
                del self.counts[key]
