"""HTTP connections that are shut down when their time is up.

A socket timeout bounds one wait for data only: a server that sends its headers or its body a
byte at a time, each byte within the timeout, holds a plain `urllib` request forever. A
:class:`Watchdog` opens the connections of one exchange (redirects included) and, at the moment
it is given, shuts every one of them down: whatever waits on them (the TLS handshake, the
headers, the body) returns at once, and :attr:`Watchdog.fired` holds the error that says why.
"""

from __future__ import annotations

import http.client
import socket
import threading
import time
import urllib.request
from collections.abc import Callable


class Watchdog:
    """Opens the connections of one HTTP exchange and shuts them down at a set moment."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._copies: list[socket.socket] = []
        self._timer: threading.Timer | None = None
        self.fired: Exception | None = None
        self.opener = urllib.request.build_opener(_HTTPHandler(self), _HTTPSHandler(self))

    def __enter__(self) -> Watchdog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def until(self, end: float, why: Exception) -> None:
        """Shut the connections down at `end` (a `time.monotonic()` moment), instead of at
        the moment set before; `why` is then :attr:`fired`."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = threading.Timer(max(end - time.monotonic(), 0.0), self._fire, (why,))
            self._timer.daemon = True
            self._timer.start()

    def connect(self, address: tuple[str, int], timeout: float | None = None,
                source_address: tuple[str, int] | None = None) -> socket.socket:
        """`socket.create_connection`, for a connection this watchdog shuts down."""
        sock = socket.create_connection(address, timeout, source_address)
        with self._lock:
            if self.fired:
                sock.close()
                raise TimeoutError("time was up before the connection was made")
            # a descriptor of its own: TLS takes the connection's socket over (and detaches it),
            # and shutting one descriptor down shuts the connection down for all
            self._copies.append(sock.dup())
        return sock

    def _fire(self, why: Exception) -> None:
        with self._lock:
            self.fired = why
            for copy in self._copies:
                try:
                    copy.shutdown(socket.SHUT_RDWR)
                except OSError:  # already closed by the other side
                    pass

    def close(self) -> None:
        """Stop watching; the connections themselves are their responses' to close."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            for copy in self._copies:
                copy.close()
            self._copies.clear()


def _watched(connection_class: type[http.client.HTTPConnection],
             watchdog: Watchdog) -> Callable[..., http.client.HTTPConnection]:
    def connection(*args, **kwargs) -> http.client.HTTPConnection:
        made = connection_class(*args, **kwargs)
        made._create_connection = watchdog.connect  # how http.client opens its socket
        return made

    return connection


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, watchdog: Watchdog) -> None:
        super().__init__()
        self.watchdog = watchdog

    def http_open(self, request: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_watched(http.client.HTTPConnection, self.watchdog), request)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, watchdog: Watchdog) -> None:
        super().__init__()
        self.watchdog = watchdog

    def https_open(self, request: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_watched(http.client.HTTPSConnection, self.watchdog), request,
                            context=self._context)
