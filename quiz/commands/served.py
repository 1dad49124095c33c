"""The web server behind `quiz serve`: textual-serve's, with its doors checked.

textual-serve answers a WebSocket upgrade on ``/ws`` from anyone, and a browser lets any
page it shows open a WebSocket to ``localhost``: a page on any site could have started
the app, read the screen and typed keys. Here, as Jupyter does, each launch draws a
secret token that is printed in the URL to open. Every request must name this machine
in its ``Host`` header (a DNS-rebinding page names its own domain); the page is served
only with the token (in ``?token=``, then kept in a same-site cookie); the page's
WebSocket is ``/ws/<token>`` and is accepted only when its ``Origin`` is the page's own
(``http://`` + the ``Host`` it connects to). ``/ws`` itself is closed.

The token sits in the socket's path because textual-serve's page script appends
``?width=…&height=…`` to the URL it is given.
"""

from __future__ import annotations

import ipaddress
import secrets
import socket
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp_jinja2
from aiohttp import web
from textual_serve.server import Server

__all__ = ["LOCAL_HOSTS", "QuizServer", "new_token"]

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
"""``--host`` values that mean this machine only."""

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def new_token() -> str:
    """A fresh secret for one launch (192 random bits, URL-safe)."""
    return secrets.token_urlsafe(24)


def _plain(host: str) -> str:
    return host.strip("[]").rstrip(".").lower()


class QuizServer(Server):
    """textual-serve's server, refusing what did not come from the page it served."""

    def __init__(self, command: str, *, host: str, port: int, token: str,
                 public_url: str) -> None:
        super().__init__(command, host=host, port=port, title="quiz", public_url=public_url)
        self.token = token
        self.local = host in LOCAL_HOSTS
        names = {"localhost"}
        if not self.local:  # the names a browser on the network may use for this machine
            names |= {_plain(socket.getfqdn()), _plain(socket.gethostname())}
            if host not in ("0.0.0.0", "::"):
                names.add(_plain(host))
        self.names = frozenset(names)
        self.cookie = f"quiz-serve-{port}"

    async def on_startup(self, app: Any) -> None:
        """Say nothing: `quiz serve` already said where to go and how to stop."""

    def host_allowed(self, header: str | None) -> bool:
        """Whether a ``Host`` header names this server: this port, and a name of this
        machine or an address (only a loopback one when serving this machine only)."""
        if not header:
            return False
        name, sep, port = header.rpartition(":")
        if not sep or name.endswith(":") or (name.startswith("[") != name.endswith("]")):
            name, port = header, "80"  # no port given (or a bare IPv6 address)
        if port != str(self.port):
            return False
        name = _plain(name)
        try:
            address = ipaddress.ip_address(name)
        except ValueError:
            return name in self.names
        return address.is_loopback or not self.local

    def origin_allowed(self, request: web.Request) -> bool:
        """Whether a request's ``Origin`` is the page's own: the server as the browser
        reached it (scheme http, the same host and port)."""
        origin = request.headers.get("Origin")
        return origin is not None and origin.lower() == f"http://{request.host}".lower()

    def token_given(self, request: web.Request, given: str | None) -> bool:
        return given is not None and secrets.compare_digest(given.encode(),
                                                            self.token.encode())

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.router.add_get("/ws/{token}", self.handle_websocket, name="quiz-websocket")
        app.middlewares.append(self._guard)
        return app

    @web.middleware
    async def _guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if not self.host_allowed(request.headers.get("Host")):
            return self._refuse(request, "not this server's address")
        if request.path == "/ws":
            return self._refuse(request, "the socket needs the launch token")
        if request.path.startswith("/ws/"):
            if not self.token_given(request, request.match_info.get("token")):
                return self._refuse(request, "a wrong token")
            if not self.origin_allowed(request):
                return self._refuse(request, "a page from another site")
        return await handler(request)

    def _refuse(self, request: web.Request, why: str) -> web.Response:
        origin = request.headers.get("Origin", "no origin")
        print(f"quiz serve: refused {request.method} {request.path.split('/ws/')[0] or '/ws'}"
              f" from {origin} (host {request.headers.get('Host', '?')}): {why}",
              file=sys.stderr, flush=True)
        return web.Response(status=403, text=f"Forbidden: {why}. Open the address that "
                            "`quiz serve` printed.\n")

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        """The app's page, for whoever holds the token; its WebSocket address is the one
        the browser reached the page by, so that the socket's Origin is the page's."""
        by_query = request.query.get("token")
        if not (self.token_given(request, by_query)
                or self.token_given(request, request.cookies.get(self.cookie))):
            return web.Response(status=403, text="This quiz server needs the address with "
                                "?token=... that `quiz serve` printed.\n")
        font_size = request.query.get("fontsize", "16")
        context = {
            "font_size": int(font_size) if font_size.isascii() and font_size.isdigit()
            and 4 <= int(font_size) <= 64 else 16,
            "app_websocket_url": f"ws://{request.host}/ws/{self.token}",
            "config": {"static": {"url": "/static/"}},
            "application": {"name": self.title},
        }
        response = aiohttp_jinja2.render_template("app_index.html", request, context)
        response.headers["Cache-Control"] = "no-store"
        response.headers["Referrer-Policy"] = "no-referrer"
        if by_query is not None:
            response.set_cookie(self.cookie, self.token, httponly=True, samesite="Strict",
                                path="/")
        return response
