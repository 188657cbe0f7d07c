"""This machine's addresses, for links that other machines can open when `serve` listens on
every address (`--host 0.0.0.0` or `::`): its name may resolve to loopback only (`localhost`),
which no other machine can open.

On Linux the addresses are read from the interfaces (IPv4 through `SIOCGIFADDR`, IPv6 from
`/proc/net/if_inet6`); elsewhere from what the machine's name resolves to. Loopback, link-local
and unspecified addresses are left out: no link through them reaches this machine from another.
Nothing is sent anywhere.
"""

from __future__ import annotations

import fcntl
import ipaddress
import socket
import struct
from pathlib import Path

_SIOCGIFADDR = 0x8915  # Linux: an interface's IPv4 address
_IF_INET6 = Path("/proc/net/if_inet6")


def machine_addresses() -> list[str]:
    """This machine's addresses other machines may reach it at: IPv4 first, then IPv6."""
    found = _interface_ipv4() + _interface_ipv6()
    if not found:
        found = _name_addresses()
    usable = [address for address in dict.fromkeys(found) if _reachable(address)]
    return sorted(usable, key=lambda address: ipaddress.ip_address(address).version)


def _reachable(address: str) -> bool:
    parsed = ipaddress.ip_address(address.split("%")[0])
    return not (parsed.is_loopback or parsed.is_link_local or parsed.is_unspecified)


def _interface_ipv4() -> list[str]:
    found = []
    try:
        names = [name for _, name in socket.if_nameindex()]
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            for name in names:
                try:
                    answer = fcntl.ioctl(probe.fileno(), _SIOCGIFADDR,
                                         struct.pack("256s", name.encode()[:15]))
                except OSError:  # an interface without an IPv4 address
                    continue
                found.append(socket.inet_ntoa(answer[20:24]))
    except OSError:  # not Linux, or no interfaces to list
        return []
    return found


def _interface_ipv6() -> list[str]:
    """Global IPv6 addresses (scope 00) of `/proc/net/if_inet6`."""
    try:
        lines = _IF_INET6.read_text(encoding="ascii").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    found = []
    for line in lines:
        fields = line.split()
        if len(fields) == 6 and fields[3] == "00" and len(fields[0]) == 32:
            try:
                found.append(str(ipaddress.IPv6Address(bytes.fromhex(fields[0]))))
            except ValueError:
                continue
    return found


def _name_addresses() -> list[str]:
    try:
        answers = socket.getaddrinfo(socket.gethostname(), None, type=socket.SOCK_STREAM)
    except OSError:
        return []
    return [str(answer[4][0]) for answer in answers]
