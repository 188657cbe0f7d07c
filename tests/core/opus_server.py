"""A local stand-in for the OPUS API and its file server, started by the tests.

The API part answers as Helsinki-NLP/OPUS-API does (opustools `DbOperations.get_corpora`): for
`preprocessing=xml|raw` the xml alignments (`target` not empty) and then the sentence files of
each language in them in the asked form; for `moses` the bitexts; `version=latest` selects
the rows marked latest. The file part serves bytes with or without `Range` support, can cut a
transfer after some bytes, and logs every request. It can also misbehave as a hostile or broken
server would: send more than it lists (or without end), trickle its body or its headers (a
header line a byte at a time that never ends), pad the API answer or answer anything, or list
URLs of its choosing.
"""

from __future__ import annotations

import json
import threading
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Row:
    """One catalogue row: a file of a release."""

    path: str  # e.g. xml/de-en.xml.gz
    data: bytes
    version: str = "v2"
    latest: bool = True
    corpus: str = "Tatoeba"
    listed_kb: int | None = None  # the API's size; default: the real size

    @property
    def preprocessing(self) -> str:
        return self.path.split("/")[0]

    @property
    def languages(self) -> tuple[str, str]:
        name = self.path.split("/")[1].split(".")[0]
        source, _, target = name.partition("-")
        return source, target


@dataclass
class OpusServer:
    rows: list[Row]
    ranges: bool = True
    cut_after: dict[str, int] = field(default_factory=dict)  # path -> bytes, first request
    missing: set[str] = field(default_factory=set)  # paths answered 404
    failures: dict[str, int] = field(default_factory=dict)  # path -> 503s before success
    requests: list[tuple[str, str]] = field(default_factory=list)  # (path, Range header)
    endless: set[str] = field(default_factory=set)  # paths whose body never ends
    trickle: dict[str, float] = field(default_factory=dict)  # path -> seconds between bytes
    # path ("api" for the API) -> seconds between the bytes of headers that never end
    stall_headers: dict[str, float] = field(default_factory=dict)
    api_padding: int = 0  # spaces streamed after the API's JSON
    api_body: bytes | None = None  # the API's answer instead of the catalogue
    urls: dict[str, str] = field(default_factory=dict)  # path -> URL the API lists instead
    _stop: threading.Event = field(default_factory=threading.Event)

    def __enter__(self) -> OpusServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                server._answer(self)

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._http.serve_forever, args=(0.02,),
                                        daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._http.shutdown()
        self._http.server_close()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self._http.server_address[1]}"

    @property
    def api(self) -> str:
        return self.base + "/opusapi/"

    def file_requests(self) -> list[tuple[str, str]]:
        return [request for request in self.requests if request[0] != "api"]

    def url(self, row: Row) -> str:
        return f"{self.base}/OPUS-{row.corpus}/{row.version}/{row.path}"

    def listed_url(self, row: Row) -> str:
        return self.urls.get(row.path, self.url(row))

    def _entry(self, row: Row) -> dict:
        source, target = row.languages
        size = row.listed_kb if row.listed_kb is not None else round(len(row.data) / 1024)
        return {"alignment_pairs": 3, "corpus": row.corpus, "documents": 1, "id": 1,
                "latest": str(row.latest), "preprocessing": row.preprocessing, "size": size,
                "source": source, "source_tokens": 9, "target": target, "target_tokens": 9,
                "url": self.listed_url(row), "version": row.version}

    def catalogue(self, query: dict[str, str]) -> list[dict]:
        def matches(row: Row, preprocessing: str) -> bool:
            version_ok = (row.latest if query.get("version") == "latest"
                          else row.version == query.get("version", row.version))
            return (row.corpus == query.get("corpus", row.corpus) and version_ok
                    and row.preprocessing == preprocessing)

        form = query.get("preprocessing", "")
        if form not in ("xml", "raw"):
            return [self._entry(row) for row in self.rows if matches(row, form)]
        alignments = [row for row in self.rows if matches(row, "xml") and row.languages[1]]
        languages = sorted({lang for row in alignments for lang in row.languages})
        own = [row for lang in languages for row in self.rows
               if matches(row, form) and row.languages == (lang, "")]
        return [self._entry(row) for row in alignments + own]

    def _answer(self, handler: BaseHTTPRequestHandler) -> None:
        parts = urllib.parse.urlsplit(handler.path)
        if parts.path == "/opusapi/":
            self.requests.append(("api", parts.query))
            if "api" in self.stall_headers:
                return self._stall_headers(handler, self.stall_headers["api"])
            query = dict(urllib.parse.parse_qsl(parts.query))
            body = json.dumps({"corpora": self.catalogue(query)}).encode()
            body = body if self.api_body is None else self.api_body
            if self.api_padding:
                return self._stream(handler, [body], self.api_padding)
            return self._send(handler, 200, body, {"Content-Type": "application/json"})
        row = next((row for row in self.rows
                    if parts.path == urllib.parse.urlsplit(self.url(row)).path), None)
        asked = handler.headers.get("Range", "")
        self.requests.append((row.path if row else parts.path, asked))
        if row is None or row.path in self.missing:
            return self._send(handler, 404, b"not found", {})
        if self.failures.get(row.path, 0) > 0:
            self.failures[row.path] -= 1
            return self._send(handler, 503, b"busy", {})
        if row.path in self.endless:
            return self._stream(handler, [row.data], 1 << 40)
        if row.path in self.trickle:
            return self._trickle(handler, row.data, self.trickle[row.path])
        if row.path in self.stall_headers:
            return self._stall_headers(handler, self.stall_headers[row.path])
        start = int(asked[len("bytes="):].split("-")[0]) if asked and self.ranges else 0
        if start >= len(row.data) and start:
            return self._send(handler, 416, b"", {"Content-Range": f"bytes */{len(row.data)}"})
        body = row.data[start:]
        headers = {"Content-Length": str(len(body))}
        status = 200
        if start:
            status = 206
            headers["Content-Range"] = f"bytes {start}-{len(row.data) - 1}/{len(row.data)}"
        cut = self.cut_after.pop(row.path, None)
        self._send(handler, status, body if cut is None else body[:cut], headers)

    def _stream(self, handler: BaseHTTPRequestHandler, first: list[bytes], padding: int) -> None:
        """`first`, then `padding` spaces, with no length: the body ends when the connection
        does (or when the client goes away, or the server stops)."""
        handler.send_response(200)
        handler.end_headers()
        block = b" " * (1 << 16)
        try:
            for data in first:
                handler.wfile.write(data)
            while padding > 0 and not self._stop.is_set():
                handler.wfile.write(block[:padding])
                padding -= len(block)
        except OSError:  # the client stopped reading
            pass
        handler.close_connection = True

    def _trickle(self, handler: BaseHTTPRequestHandler, data: bytes, pause: float) -> None:
        """The body one byte at a time, `pause` seconds apart, its length announced."""
        handler.send_response(200)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        try:
            for byte in data:
                if self._stop.wait(pause):
                    break
                handler.wfile.write(bytes([byte]))
                handler.wfile.flush()
        except OSError:
            pass
        handler.close_connection = True

    def _stall_headers(self, handler: BaseHTTPRequestHandler, pause: float) -> None:
        """A status line, then one header line a byte at a time, `pause` seconds apart, until
        the client goes away or the server stops: each byte comes well within a socket timeout,
        and the headers never end."""
        try:
            handler.wfile.write(b"HTTP/1.1 200 OK\r\nX-Stall: ")
            handler.wfile.flush()
            while not self._stop.wait(pause):
                handler.wfile.write(b"a")
                handler.wfile.flush()
        except OSError:
            pass
        handler.close_connection = True

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, status: int, body: bytes, headers: dict) -> None:
        handler.send_response(status)
        headers.setdefault("Content-Length", str(len(body)))
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(body)
        handler.wfile.flush()
        handler.close_connection = True
