"""The annotation page's web application (Starlette): routes, and the checks every request passes.

Everything lives under `/a/<token>/`: the page, its script and style, and a small JSON API.
A request without a valid token gets only a plain error page. The API:

- `GET api/info`: mode, annotator, language, progress;
- `GET api/unit?after=N` the next unit to answer after position N (-1: from the start),
  `GET api/unit?index=N` the unit at position N, each with this annotator's answer only;
- `POST api/answer` `{"unit": id, "answer": ...}` (a label, or a set's outlier ids),
  `POST api/undo` `{}`: change labels; JSON bodies of a few KiB at most, from the page's own
  origin (the `Origin` header, or `Sec-Fetch-Site: same-origin`);
- `GET api/agreement`: the agreement table and Cohen's kappa, once both annotators are done.

No request names a file; every response forbids caching and framing, and the page loads
nothing from elsewhere (a Content-Security-Policy of 'self').
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tapaco.core.annotation.web.desk import Desk, NotYet
from tapaco.core.annotation.web.tasks import BadAnswer
from tapaco.core.errors import InputError
from tapaco.core.json_input import parse_json

MAX_BODY = 64 * 1024  # a set of 100 members' outlier ids fits many times over
SECURITY_HEADERS = {
    "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
                               "connect-src 'self'; img-src 'self'; base-uri 'none'; "
                               "form-action 'none'; frame-ancestors 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
}
ASSETS = {"app.js": "text/javascript", "style.css": "text/css"}


class RequestError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _asset(name: str) -> str:
    return resources.files("tapaco.core.annotation.web").joinpath("static", name).read_text("utf-8")


class SecurityHeaders:
    """Adds :data:`SECURITY_HEADERS` to every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in message.get("headers", [])}
                message["headers"] = list(message.get("headers", [])) + [
                    (name.encode(), value.encode()) for name, value in SECURITY_HEADERS.items()
                    if name.encode() not in names]
            await send(message)

        await self.app(scope, receive, send_with_headers)


def host_of(header: str) -> str:
    """The host of a Host header, without its port (`[::1]:8000` -> `::1`)."""
    if header.startswith("["):
        return header[1:].partition("]")[0].lower()
    return header.rpartition(":")[0].lower() if header.count(":") == 1 else header.lower()


class AllowedHosts:
    """Refuses a request whose Host header names a host outside `hosts` (DNS rebinding), IPv6
    addresses included (Starlette's TrustedHostMiddleware cuts `[::1]` at its first colon)."""

    def __init__(self, app: ASGIApp, hosts: list[str]) -> None:
        self.app, self.hosts = app, {host.lower().strip("[]") for host in hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = dict(scope["headers"])
            if host_of(headers.get(b"host", b"").decode("latin-1")) not in self.hosts:
                await PlainTextResponse("Invalid host header", 400)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _check_same_origin(request: Request) -> None:
    """State changes come only from the page itself: a cross-site form or script is refused."""
    origin = request.headers.get("origin")
    if origin is not None:
        own = f"{request.url.scheme}://{request.headers.get('host', '')}"
        if origin != own:
            raise RequestError(403, f"cross-origin request from {origin[:80]} refused")
    elif request.headers.get("sec-fetch-site") != "same-origin":
        raise RequestError(403, "a change must come from the annotation page (send an Origin "
                                "header naming this server)")


async def _json_body(request: Request) -> dict[str, Any]:
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise RequestError(415, "send the body as application/json")
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
        raise RequestError(413, f"request body over {MAX_BODY} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise RequestError(413, f"request body over {MAX_BODY} bytes")
    try:
        data = parse_json(bytes(body), "the request body")
    except InputError as error:
        raise RequestError(400, f"the body is {error.message}") from None
    if not isinstance(data, dict):
        raise RequestError(400, "the body must be a JSON object")
    return data


def _position(request: Request, name: str) -> int:
    value = request.query_params.get(name, "")
    try:
        return int(value)
    except ValueError:
        raise RequestError(400, f"{name} must be a whole number") from None


Handler = Callable[[Request, int], Awaitable[Response]]


def create_app(desk: Desk, allowed_hosts: list[str] | None = None) -> ASGIApp:
    """The application serving `desk`; `allowed_hosts` (e.g. loopback names) refuses requests
    whose Host header names another host, which defeats DNS rebinding."""
    page, error_page = _asset("index.html"), _asset("error.html")

    def annotator_endpoint(handler: Handler, changes: bool = False):
        async def endpoint(request: Request) -> Response:
            annotator = desk.annotator(request.path_params["token"])
            if annotator is None:
                return HTMLResponse(error_page, status_code=404)
            try:
                if changes:
                    _check_same_origin(request)
                return await handler(request, annotator)
            except RequestError as error:
                return JSONResponse({"error": str(error)}, status_code=error.status)
            except BadAnswer as error:
                return JSONResponse({"error": str(error)}, status_code=400)
            except (NotYet, InputError) as error:
                return JSONResponse({"error": str(error)}, status_code=409)
        return endpoint

    async def index(request: Request, annotator: int) -> Response:
        return HTMLResponse(page)

    async def asset(request: Request, annotator: int) -> Response:
        name = request.path_params["name"]
        if name not in ASSETS:
            return HTMLResponse(error_page, status_code=404)
        return Response(_asset(name), media_type=ASSETS[name])

    async def info(request: Request, annotator: int) -> Response:
        return JSONResponse(await run_in_threadpool(desk.info, annotator))

    async def unit(request: Request, annotator: int) -> Response:
        if "index" in request.query_params:
            found = await run_in_threadpool(desk.unit_at, annotator,
                                            _position(request, "index"))
        else:
            found = await run_in_threadpool(desk.next_after, annotator,
                                            _position(request, "after"))
        return JSONResponse(found)

    async def answer(request: Request, annotator: int) -> Response:
        body = await _json_body(request)
        return JSONResponse(await run_in_threadpool(desk.answer, annotator, body.get("unit"),
                                                    body.get("answer")))

    async def undo(request: Request, annotator: int) -> Response:
        await _json_body(request)
        return JSONResponse(await run_in_threadpool(desk.undo, annotator))

    async def agreement(request: Request, annotator: int) -> Response:
        return JSONResponse(await run_in_threadpool(desk.agreement, annotator))

    async def not_found(request: Request) -> Response:
        return HTMLResponse(error_page, status_code=404)

    async def no_icon(request: Request) -> Response:
        return Response(status_code=204)

    prefix = "/a/{token}/"
    routes = [
        Route(prefix, annotator_endpoint(index)),
        Route(prefix + "api/info", annotator_endpoint(info)),
        Route(prefix + "api/unit", annotator_endpoint(unit)),
        Route(prefix + "api/answer", annotator_endpoint(answer, changes=True),
              methods=["POST"]),
        Route(prefix + "api/undo", annotator_endpoint(undo, changes=True), methods=["POST"]),
        Route(prefix + "api/agreement", annotator_endpoint(agreement)),
        Route(prefix + "{name}", annotator_endpoint(asset)),
        Route("/favicon.ico", no_icon),
        Route("/{rest:path}", not_found, methods=["GET", "HEAD", "POST", "PUT", "DELETE"]),
    ]
    middleware = [Middleware(AllowedHosts, hosts=allowed_hosts)] if allowed_hosts else []
    # outermost, so that even Starlette's own 500 page carries the headers
    return SecurityHeaders(Starlette(routes=routes, middleware=middleware))
