"""Who a rate limit counts as one client: the socket's peer, grouped as one person holds them.

The peer is the address of the TCP connection (`scope["client"]`; `farlight serve` turns
uvicorn's own proxy-header rewriting off), never a header a client writes, unless the peer is
the one reverse proxy named with `--trusted-proxy`: then the address that proxy appended last
to `X-Forwarded-For` is the client. Addresses one person holds count as one client: every
loopback address (127.0.0.0/8 and ::1, a single machine) and each IPv6 /64 (the block one
network is given); any other IPv4 address counts on its own.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

#: The key every loopback address shares.
LOOPBACK = "loopback"
#: Addresses in one IPv6 network of this prefix are one client.
IPV6_CLIENT_PREFIX = 64
UNKNOWN = "unknown"

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def parse_address(text: str) -> Address | None:
    """An IP address (an IPv4-mapped IPv6 one as its IPv4 address); None for anything else,
    a scoped IPv6 address (`fe80::1%eth0`) included."""
    if "%" in text:
        return None
    try:
        address = ipaddress.ip_address(text.strip())
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def client_key(address: Address | None) -> str:
    """The rate-limit bucket of a peer: 'loopback', the IPv4 address or the IPv6 /64."""
    if address is None:
        return UNKNOWN
    if address.is_loopback:
        return LOOPBACK
    if isinstance(address, ipaddress.IPv6Address):
        network = ipaddress.IPv6Network((address, IPV6_CLIENT_PREFIX), strict=False)
        return str(network)
    return str(address)


def forwarded_for(values: Iterable[str]) -> Address | None:
    """The last address of `X-Forwarded-For` (every header line, in order): the one the
    trusted proxy appended; the entries before it are whatever the client wrote."""
    entries = [entry.strip() for value in values for entry in value.split(",")]
    return parse_address(entries[-1]) if entries else None


def request_client(
    peer: str | None, forwarded: Iterable[str], trusted_proxy: Address | None
) -> str:
    """The client key of a request from `peer` (the socket's address) with these
    `X-Forwarded-For` header values; the header counts only when `peer` is `trusted_proxy`."""
    address = parse_address(peer) if peer else None
    if trusted_proxy is not None and address == trusted_proxy:
        behind = forwarded_for(forwarded)
        if behind is not None:
            return client_key(behind)
    return client_key(address)
