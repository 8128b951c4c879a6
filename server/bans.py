"""The bans in force on this node: identities and addresses (or networks) the server's
operator shut out, as the store keeps them (:class:`server.store.Ban`).

The store is the truth, shared by every node of a cluster; each node holds a copy here,
loaded at start, again after every ban or unban (its own, or another node's, told over the
cluster's control channel) and at each housekeeping sweep, and asks it on every websocket
handshake (the address) and every ``hello`` (the identity).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from server.store import Ban

__all__ = ["Bans", "banned_sentence", "parse_address"]

_Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_address(value: str) -> str:
    """An address ban's value in its normal form: one address (``203.0.113.7``) or a network
    (``203.0.113.0/24``, ``2001:db8::/48``). ``ValueError`` with a sentence otherwise."""
    try:
        network = ipaddress.ip_network(value.strip(), strict=False)
    except ValueError:
        raise ValueError(
            f"{value!r} is not an IP address or network (e.g. 203.0.113.7, 203.0.113.0/24)"
        ) from None
    if network.num_addresses == 1:
        address = network.network_address
        mapped = getattr(address, "ipv4_mapped", None)  # ::ffff:203.0.113.7 is 203.0.113.7
        return str(mapped or address)
    return str(network)


def banned_sentence(ban: Ban) -> str:
    """What a banned person is told."""
    why = f": {ban.reason}" if ban.reason else "."
    whom = "this identity" if ban.kind == "identity" else "this address"
    return f"The server's operator banned {whom}{why}"


class Bans:
    """The bans of one node, by identity and by network."""

    def __init__(self) -> None:
        self.identities: dict[str, Ban] = {}
        self.networks: list[tuple[_Network, Ban]] = []

    def replace(self, bans: Iterable[Ban]) -> None:
        """Hold exactly ``bans`` from now on (what the store has)."""
        identities: dict[str, Ban] = {}
        networks: list[tuple[_Network, Ban]] = []
        for ban in bans:
            if ban.kind == "identity":
                identities[ban.value] = ban
            else:
                try:
                    networks.append((ipaddress.ip_network(ban.value, strict=False), ban))
                except ValueError:  # never written by this server; ignored rather than fatal
                    continue
        self.identities, self.networks = identities, networks

    def of_user(self, user: str) -> Ban | None:
        """The ban of the identity ``user``, if any."""
        return self.identities.get(user)

    def of_address(self, address: str) -> Ban | None:
        """The ban of a network ``address`` is in, if any (a client address that is not an IP
        address, as in some tests, is never banned)."""
        if not self.networks:
            return None
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return None
        ip = getattr(ip, "ipv4_mapped", None) or ip  # a dual-stack proxy's ::ffff:a.b.c.d
        return next((ban for network, ban in self.networks if ip in network), None)

    def all(self) -> list[Ban]:
        """Every ban, oldest first."""
        bans = [*self.identities.values(), *(ban for _, ban in self.networks)]
        return sorted(bans, key=lambda ban: ban.at)
