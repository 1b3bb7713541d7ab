"""Put this folder on PYTHONPATH to run a Python process with the network cut:
every socket connection and name lookup except for loopback (and Unix-domain sockets,
which never leave the machine: multiprocessing's managers use them) raises. Used by
tests that check offline guarantees in a fresh interpreter (no cache warmed by
earlier tests)."""

import socket

_LOOPBACK = ("localhost", "::1")
_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
_real_getaddrinfo = socket.getaddrinfo


def _allowed(host) -> bool:
    return isinstance(host, str) and (host.startswith("127.") or host in _LOOPBACK)


def _refuse(what):
    raise OSError(f"network blocked by tests/offline_site: {what!r}")


def _local(sock, address) -> bool:
    host = address[0] if isinstance(address, tuple) else address
    return getattr(socket, "AF_UNIX", None) == sock.family or _allowed(host)


def _connect(self, address):
    return _real_connect(self, address) if _local(self, address) else _refuse(address)


def _connect_ex(self, address):
    return _real_connect_ex(self, address) if _local(self, address) else _refuse(address)


def _getaddrinfo(host, *args, **kwargs):
    return _real_getaddrinfo(host, *args, **kwargs) if _allowed(host) else _refuse(host)


socket.socket.connect = _connect
socket.socket.connect_ex = _connect_ex
socket.getaddrinfo = _getaddrinfo
