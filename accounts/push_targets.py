"""Where a Web Push request may go: a public host, reached at the address that was checked.

A Web Push endpoint is a URL the client chooses, and the server then POSTs to it from its own
network: left alone, a client could point it at the server's loopback, its private network
or the cloud's metadata service. So an endpoint is checked when it is registered and again
before every push (`push_target`), and the request goes to the address that check resolved,
never to a second lookup of the name (which a hostile DNS server could answer differently:
DNS rebinding). TLS still verifies the certificate for the name, and sends it as SNI.

Refused:

* a scheme other than https (http too with `PUSH_INSECURE_ENDPOINTS`), credentials in the
  URL, a non-ASCII URL (browsers' endpoints are serialized URLs: ASCII);
* a host that is not a fully qualified DNS name (one label: `localhost`, `metadata`, or a
  name the resolver's search list would complete), a name under a special-use or private
  suffix (`.localhost`, `.local`, `.internal` as in `metadata.google.internal`, `.home.arpa`,
  `.onion`, `.test`, `.example`, `.invalid`, `.alt`), a last label of digits (`127.1`,
  `2130706433`, `0x7f.1` and the other forms of an address that resolvers accept);
* a name outside `PUSH_ALLOWED_HOSTS` when that list is set (each entry matches itself and its
  subdomains);
* a host that does not resolve, or any of whose addresses is not a public unicast address:
  loopback, private, shared (100.64/10), link-local (169.254.169.254), multicast, reserved,
  unspecified (0.0.0.0, ::), site-local, IPv4-mapped (::ffff:127.0.0.1), and IPv6 forms that
  carry an IPv4 address (6to4, Teredo) when that address is refused;

unless the address is in `PUSH_TRUSTED_NETWORKS` (empty by default: a push service inside
your own network; the tests' local endpoint).

`resolve` is the one place a name becomes addresses (a test replaces it).
"""

from __future__ import annotations

import functools
import ipaddress
import re
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

SPECIAL_USE_SUFFIXES = (
    "localhost", "local", "internal", "home.arpa", "onion", "test", "example", "invalid", "alt",
)  # fmt: skip
_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")


class EndpointRefused(Exception):
    """This endpoint is not somewhere the server pushes to (the reason is for the log only:
    clients get one answer, so that registering is not a probe of the server's network)."""


class EndpointUnresolved(Exception):
    """The endpoint's host did not resolve now (at send time a retry may succeed)."""


@dataclass(frozen=True)
class PushTarget:
    scheme: str
    host: str  # the name, lower case (or an IP literal, without brackets)
    port: int
    address: str  # the checked address to connect to
    path: str  # path and query, as sent

    @property
    def netloc(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.scheme == "https" else 80
        return host if self.port == default else f"{host}:{self.port}"

    @property
    def origin(self) -> str:
        """`scheme://host[:port]`: the VAPID audience, and what the Host header names."""
        return f"{self.scheme}://{self.netloc}"


def resolve(host: str, port: int) -> list[str]:
    """Every address `host` resolves to that this machine could connect to (IPv6 only with
    an IPv6 address of its own: AI_ADDRCONFIG), in the resolver's order; the first is the one
    connected to. Looked up as a fully qualified name (a trailing dot: no search list).
    Raises `socket.gaierror` (or OSError) when it does not resolve."""
    found = socket.getaddrinfo(
        f"{host}.", port, type=socket.SOCK_STREAM, flags=socket.AI_ADDRCONFIG
    )
    return list(dict.fromkeys(str(info[4][0]) for info in found))


@functools.lru_cache(maxsize=8)
def _networks(entries: tuple[str, ...]) -> tuple[IPNetwork, ...]:
    return tuple(ipaddress.ip_network(entry.strip(), strict=False) for entry in entries)


def _trusted(address: IPAddress) -> bool:
    networks = _networks(tuple(settings.PUSH_TRUSTED_NETWORKS))
    return any(address.version == net.version and address in net for net in networks)


def address_refused(address: IPAddress) -> bool:
    """Whether `address` is anything but a public unicast address (see the module's list)."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.scope_id:
            return True
        carried = address.ipv4_mapped or address.sixtofour
        if carried is None and address.teredo is not None:
            carried = address.teredo[1]
        if carried is not None and address_refused(carried):
            return True
        if address.is_site_local:
            return True
    return (
        not address.is_global
        or address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_multicast
        or address.is_reserved
        or address.is_unspecified
    )


def _host_allowed(host: str) -> bool:
    allowed = [entry.strip().lower().strip(".") for entry in settings.PUSH_ALLOWED_HOSTS]
    allowed = [entry for entry in allowed if entry]
    return not allowed or any(host == entry or host.endswith("." + entry) for entry in allowed)


def _check_name(host: str) -> None:
    labels = host.split(".")
    if len(host) > 253 or len(labels) < 2 or not all(_LABEL.match(label) for label in labels):
        raise EndpointRefused(f"{host!r} is not a fully qualified DNS name")
    if labels[-1].isdigit() or labels[-1].startswith("0x"):
        raise EndpointRefused(f"{host!r} is a form of an IP address")
    if any(host == suffix or host.endswith("." + suffix) for suffix in SPECIAL_USE_SUFFIXES):
        raise EndpointRefused(f"{host!r} is under a special-use suffix")


def push_target(endpoint: str) -> PushTarget:
    """Check `endpoint` and resolve its host: the target to connect to. Raises
    `EndpointRefused`, or `EndpointUnresolved` when the host does not resolve now."""
    schemes = ["https", "http"] if settings.PUSH_INSECURE_ENDPOINTS else ["https"]
    if not endpoint.isascii():
        raise EndpointRefused("not an ASCII URL")
    try:
        URLValidator(schemes=schemes)(endpoint)
        parts = urlsplit(endpoint)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except (ValidationError, ValueError) as error:
        raise EndpointRefused(f"not an {' or '.join(schemes)} URL") from error
    if parts.username is not None or parts.password is not None:
        raise EndpointRefused("credentials in the URL")
    host = (parts.hostname or "").lower()
    if not _host_allowed(host):
        raise EndpointRefused(f"{host!r} is not in PUSH_ALLOWED_HOSTS")
    try:
        literal = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is not None:
        addresses = [str(literal)]
    else:
        _check_name(host)
        try:
            addresses = resolve(host, port)
        except OSError as error:
            raise EndpointUnresolved(f"{host!r} does not resolve: {error}") from error
        if not addresses:
            raise EndpointUnresolved(f"{host!r} has no address")
    for text in addresses:
        address = ipaddress.ip_address(text)
        if address_refused(address) and not _trusted(address):
            raise EndpointRefused(f"{host!r} resolves to {address}, not a public address")
    path = parts.path or "/"
    if parts.query:
        path = f"{path}?{parts.query}"
    return PushTarget(scheme=parts.scheme, host=host, port=port, address=addresses[0], path=path)
