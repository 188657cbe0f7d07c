"""HTTP downloads that survive interruptions: `.part` files resumed with `Range`, retries with
backoff, and a size that must match what the server announced.

A transfer writes `NAME.part` only. A cut connection or a server error is retried after 1, 2,
4... seconds, asking for the bytes not yet received (`Range: bytes=N-`); a server that ignores
ranges (status 200) sends the whole file again and the part is restarted. A body shorter than
its announced length is never taken as complete. Moving the part into place is the caller's
step, after its own checks.

The server is not trusted: only http(s) URLs are fetched (redirects included); a body is never
received past the size the caller expects (`limit`), and an API answer never past
`API_ANSWER_BYTES`; every transfer has a deadline (its timeout plus the time its size takes at
`min_rate`), and every answer's headers must be in within the timeout: the connections are shut
down when either passes (:mod:`tapaco.core.watchdog`), so a trickling server cannot hold a run
forever, whether it trickles its body or its headers.
"""

from __future__ import annotations

import http.client
import re
import socket
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from tapaco.core.errors import InputError
from tapaco.core.progress import plural
from tapaco.core.versions import package_version
from tapaco.core.watchdog import Watchdog

BLOCK = 1 << 20
# The OPUS API's answer for the largest corpus (OpenSubtitles, every language) is a few MB.
API_ANSWER_BYTES = 64 << 20
_SCHEMES = ("http", "https")
_CONTENT_RANGE = re.compile(r"bytes (\d+)-(\d+)/(\d+|\*)")
_RETRIED = (urllib.error.URLError, http.client.HTTPException, ConnectionError, TimeoutError,
            socket.timeout)


class DownloadError(InputError):
    """A file could not be downloaded: which URL, and why."""

    def __init__(self, url: str, message: str) -> None:
        super().__init__(url, message, kind="download")

    def __reduce__(self):
        return (DownloadError, (self.path, self.message))


class _Retry(Exception):
    """This attempt failed in a way worth another one."""


def check_url(url: str) -> None:
    """Refuse a URL that is not http(s) (a `file://` URL from a server would copy a local
    file), or that holds control characters (no HTTP request can carry them)."""
    if any(ord(character) < 32 or ord(character) == 127 for character in url):
        raise DownloadError(url, "a URL with control characters")
    scheme = urllib.parse.urlsplit(url).scheme.lower()
    if scheme not in _SCHEMES:
        what = f"{scheme}:" if scheme else "a URL without a scheme"
        raise DownloadError(url, f"only http and https URLs are downloaded, not {what}")


def open_url(url: str, timeout: float, watchdog: Watchdog, offset: int = 0):
    """The response to GET `url` (from byte `offset` on), over connections `watchdog` opens;
    HTTP errors other than server errors and 416 become a DownloadError at once."""
    check_url(url)
    headers = {"User-Agent": f"pivot-paraphrase-miner/{package_version()}"}
    if offset:
        headers["Range"] = f"bytes={offset}-"
    try:
        response = watchdog.opener.open(urllib.request.Request(url, headers=headers),
                                        timeout=timeout)
    except urllib.error.HTTPError as error:
        if error.code >= 500 or error.code in (408, 416, 429):
            raise
        raise DownloadError(url, f"the server answered {error.code} {error.reason}") from None
    except ValueError as error:
        raise DownloadError(url, f"not a URL that can be downloaded ({error})") from None
    try:
        check_url(response.geturl())  # where redirects led
    except DownloadError:
        response.close()
        raise
    return response


class _Deadline:
    """The moment a transfer must be over by."""

    def __init__(self, url: str, seconds: float) -> None:
        self.url, self.seconds = url, seconds
        self.end = time.monotonic() + seconds

    def check(self) -> None:
        if time.monotonic() > self.end:
            raise self.passed()

    def passed(self) -> DownloadError:
        return DownloadError(self.url, f"not complete after {self.seconds:.0f} s (the deadline "
                             "for its size); rerun to resume")


def _blocks(response, deadline: _Deadline):
    """The body as it arrives (whatever is there, up to BLOCK), the deadline checked between
    blocks: a full-size read would wait for a trickling server's whole block."""
    while block := response.read1(BLOCK):
        deadline.check()
        yield block


@dataclass
class Rate:
    """Draws `name  12.3/45.6 MB  7.8 MB/s  ETA 0:04` on a terminal, at most 5 times a second."""

    stream: TextIO = sys.stderr
    enabled: bool | None = None

    def __post_init__(self) -> None:
        if self.enabled is None:
            self.enabled = self.stream.isatty()
        self._started = time.monotonic()
        self._drawn = 0.0

    def start(self) -> None:
        self._started = time.monotonic()

    def show(self, name: str, done: int, total: int | None, resumed_from: int = 0) -> None:
        now = time.monotonic()
        if not self.enabled or now - self._drawn < 0.2:
            return
        self._drawn = now
        rate = (done - resumed_from) / max(now - self._started, 1e-6)
        line = f"{name}  {done / 1e6:.1f}"
        if total:
            remaining = (total - done) / rate if rate > 0 else 0
            line += f"/{total / 1e6:.1f} MB  {rate / 1e6:.1f} MB/s  ETA {_clock(remaining)}"
        else:
            line += f" MB  {rate / 1e6:.1f} MB/s"
        self.stream.write(f"\r\x1b[K{line}"[:200])
        self.stream.flush()

    def done(self) -> None:
        if self.enabled:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def _clock(seconds: float) -> str:
    minutes, seconds = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"


@dataclass(frozen=True)
class Transfer:
    """How to download: attempts, the first backoff in seconds (doubled each time), timeout."""

    attempts: int = 6
    backoff: float = 1.0
    timeout: float = 60.0
    sleep: Callable[[float], None] = time.sleep
    min_rate: float = 10_000  # bytes a second, on average, that a transfer's deadline allows
    answer_limit: int = API_ANSWER_BYTES

    def deadline(self, url: str, size: int) -> _Deadline:
        """The deadline of a transfer of `size` bytes."""
        return _Deadline(url, self.timeout + size / self.min_rate)

    def fetch(self, url: str, part: Path, rate: Rate | None = None,
              limit: int | None = None) -> int:
        """Download `url` into `part`, resuming what it holds; the size received. A body
        that goes past `limit` bytes is an error (the part is removed); the deadline is that of
        `limit` bytes."""
        rate = rate or Rate(enabled=False)
        deadline = self.deadline(url, limit or 0)
        return self._retried(url, deadline,
                             lambda watchdog: self._attempt(url, part, rate, limit, deadline,
                                                            watchdog),
                             lambda: f"; rerun to resume from "
                                     f"{part.stat().st_size if part.exists() else 0} bytes")

    def read(self, url: str) -> bytes:
        """The whole body of a small answer (an API query), retried like a download; one over
        `answer_limit` bytes is an error."""
        limit = self.answer_limit
        deadline = self.deadline(url, limit)

        def attempt(watchdog: Watchdog) -> bytes:
            body = bytearray()
            with self._open(url, deadline, watchdog) as response:
                for block in _blocks(response, deadline):
                    body += block
                    if len(body) > limit:
                        raise DownloadError(url, f"the answer is over {limit:,} bytes, more "
                                            "than any OPUS API answer")
            return bytes(body)

        return self._retried(url, deadline, attempt, lambda: "")

    def _retried(self, url: str, deadline: _Deadline, attempt: Callable[[Watchdog], object],
                 advice: Callable[[], str]):
        for number in range(self.attempts):
            try:
                return self._watched(deadline, attempt)
            except (_Retry, *_RETRIED) as error:
                if number == self.attempts - 1:
                    raise DownloadError(url, f"gave up after {plural(self.attempts, 'attempt')}: "
                                        f"{_reason(error)}{advice()}") from None
                self.sleep(self.backoff * 2 ** number)
        raise AssertionError("unreachable")

    def _watched(self, deadline: _Deadline, attempt: Callable[[Watchdog], object]):
        """One attempt, its connections shut down when its time is up: the deadline, or the
        timeout while the answer's headers are awaited. An attempt cut so is a failed one
        (what it received may be short), retried unless the deadline has passed."""
        with Watchdog() as watchdog:
            try:
                result = attempt(watchdog)
            except (_Retry, OSError, http.client.HTTPException):
                if not watchdog.fired:
                    raise
        if watchdog.fired:
            raise watchdog.fired from None
        return result

    def _open(self, url: str, deadline: _Deadline, watchdog: Watchdog, offset: int = 0):
        """The response to GET `url`, its headers in within the timeout; its body then has
        until the deadline."""
        headers_by = time.monotonic() + self.timeout
        if headers_by < deadline.end:
            watchdog.until(headers_by, _Retry(f"the server sent no complete headers within "
                                              f"{self.timeout:g} s"))
        else:
            watchdog.until(deadline.end, deadline.passed())
        response = open_url(url, self.timeout, watchdog, offset)
        watchdog.until(deadline.end, deadline.passed())
        return response

    def _attempt(self, url: str, part: Path, rate: Rate, limit: int | None,
                 deadline: _Deadline, watchdog: Watchdog) -> int:
        offset = part.stat().st_size if part.exists() else 0
        try:
            response = self._open(url, deadline, watchdog, offset)
        except urllib.error.HTTPError as error:
            if error.code == 416:  # the part is not a prefix the server can continue
                part.unlink()
            raise
        with response:
            start, total = _range_of(response, offset)
            if start not in (0, offset):
                part.unlink()
                raise _Retry(f"the server sent bytes from {start}, not from {offset}")
            offset = start  # 0: the server ignored the range and sends the whole file
            if limit is not None and total is not None and total > limit:
                raise DownloadError(url, f"the server announces {total:,} bytes, more than "
                                    f"the {limit:,} expected")
            rate.start()
            try:
                with open(part, "ab" if offset else "wb") as handle:
                    received = offset
                    for block in _blocks(response, deadline):
                        handle.write(block)
                        received += len(block)
                        if limit is not None and received > limit:
                            handle.close()
                            part.unlink()
                            raise DownloadError(url, f"the server sent over {limit:,} bytes, "
                                                "more than expected; the partial file was "
                                                "removed")
                        rate.show(part.name.removesuffix(".part"), received, total, offset)
            finally:
                rate.done()
        if total is not None and received != total:
            if received > total:
                part.unlink()
            raise _Retry(f"received {received} of {total} bytes")
        return received


def _range_of(response, offset: int) -> tuple[int, int | None]:
    """Where the body starts and the whole file's size (None when the server does not say)."""
    if response.status == 206 and offset:
        match = _CONTENT_RANGE.fullmatch(response.headers.get("Content-Range", "").strip())
        if match and match[3] != "*":
            return int(match[1]), int(match[3])
        raise _Retry("a partial answer without a usable Content-Range")
    if response.status == 206:
        raise _Retry("a partial answer to a request for the whole file")
    length = response.headers.get("Content-Length")
    return 0, int(length) if length and length.isdigit() else None


def _reason(error: BaseException) -> str:
    if isinstance(error, urllib.error.HTTPError):
        return f"the server answered {error.code} {error.reason}"
    if isinstance(error, urllib.error.URLError):
        return str(error.reason)
    return str(error) or type(error).__name__
