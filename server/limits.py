"""Rate limits that outlive a connection: token buckets by identity and by client address.

A person's messages draw on their identity's bucket (before ``hello``, on the connection's
own) and on their address's bucket, so reconnecting gives a flooder nothing back; new
connections draw on their address's connection bucket. Buckets live in :class:`Buckets`,
which forgets a bucket once it has refilled, since a full bucket is exactly a new one: memory
stays bounded by the keys active within a refill time.

Behind a reverse proxy every player arrives from the proxy's address: :func:`client_address`
believes ``X-Forwarded-For`` only from the configured trusted proxies.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence

import attrs

__all__ = ["Buckets", "TokenBucket", "client_address", "parse_networks"]

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


def _trusted(address: str, proxies: tuple[Network, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in proxies)


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
