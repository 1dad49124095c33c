"""Hostile clients of `quiz serve`: a page from another site, a DNS-rebinding host, a
guessed or missing token, the old ``/ws`` route. Each is refused (403) before any app
process starts; the app's own page, opened with the printed address, still gets the app.

Bug (issue 26): `quiz serve` accepted a WebSocket on ``/ws`` from any origin, so a page
on any site could open ``ws://localhost:8000/ws``, read the screen and send keys.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import pytest

from quiz.commands.served import QuizServer

WAIT_S = 60.0


@dataclass(frozen=True)
class Served:
    port: int
    token: str
    log: Path

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """`quiz serve` on a free port in its own process group (killed whole at the end)."""
    tmp = tmp_path_factory.mktemp("serve")
    port = free_port()
    log = tmp / "serve.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "quiz.cli", "--data-dir", str(tmp / "data"), "serve",
             "--port", str(port)], stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True)
    try:
        deadline = time.monotonic() + WAIT_S
        while not (found := re.search(r"\?token=([A-Za-z0-9_-]+)", log.read_text())):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"quiz serve did not start: {log.read_text()}")
            time.sleep(0.1)
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield Served(port, found[1], log)
    finally:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(proc.pid, sig)
                proc.wait(timeout=10)
                break
            except ProcessLookupError:
                break
            except subprocess.TimeoutExpired:
                continue


async def _socket(url: str, headers: dict[str, str]) -> int | bytes:
    """The HTTP status of a refused upgrade, or the first bytes the app sends."""
    async with aiohttp.ClientSession() as session:
        try:
            async with session.ws_connect(url, headers=headers) as ws:
                got = b""
                while len(got) < 2000:
                    message = await asyncio.wait_for(ws.receive(), WAIT_S)
                    if message.type == aiohttp.WSMsgType.BINARY:
                        got += message.data
                    elif message.type != aiohttp.WSMsgType.TEXT:
                        break
                return got
        except aiohttp.WSServerHandshakeError as exc:
            return exc.status


def open_socket(served: Served, path: str, **headers: str) -> int | bytes:
    url = f"http://127.0.0.1:{served.port}{path}?width=80&height=24"
    return asyncio.run(_socket(url, headers))


def get(served: Served, path: str, **headers: str) -> tuple[int, str]:
    async def fetch() -> tuple[int, str]:
        async with aiohttp.ClientSession() as session, \
                session.get(f"http://127.0.0.1:{served.port}{path}", headers=headers) as r:
            return r.status, await r.text()

    return asyncio.run(fetch())


def test_a_page_from_another_site_cannot_open_the_socket(served: Served) -> None:
    assert open_socket(served, f"/ws/{served.token}", Origin="http://evil.example") == 403
    assert open_socket(served, f"/ws/{served.token}",
                       Origin=f"http://evil.example:{served.port}") == 403
    assert open_socket(served, f"/ws/{served.token}", Origin="null") == 403


def test_a_socket_without_an_origin_is_refused(served: Served) -> None:
    assert open_socket(served, f"/ws/{served.token}") == 403


def test_the_old_route_and_a_wrong_token_are_refused_even_from_the_right_origin(
    served: Served,
) -> None:
    assert open_socket(served, "/ws", Origin=served.origin) == 403
    assert open_socket(served, "/ws/" + "A" * len(served.token), Origin=served.origin) == 403


def test_a_rebound_host_name_is_refused(served: Served) -> None:
    """DNS rebinding: the attacker's name resolves to 127.0.0.1, so the browser sends
    it as Host and the page as same-origin."""
    evil = f"evil.example:{served.port}"
    status, _ = get(served, f"/?token={served.token}", Host=evil)
    assert status == 403
    assert open_socket(served, f"/ws/{served.token}", Host=evil,
                       Origin=f"http://{evil}") == 403


def test_the_page_needs_the_token(served: Served) -> None:
    status, text = get(served, "/")
    assert status == 403 and "token" in text and served.token not in text


def test_the_apps_own_page_gets_the_app(served: Served) -> None:
    status, page = get(served, f"/?token={served.token}")
    assert status == 200
    [url] = re.findall(r'data-session-websocket-url="([^"]+)"', page)
    assert url == f"ws://127.0.0.1:{served.port}/ws/{served.token}"
    # What the page's script then does: the socket at that address, from the page's origin.
    screen = open_socket(served, f"/ws/{served.token}", Origin=served.origin)
    assert isinstance(screen, bytes) and len(screen) >= 2000, screen


@pytest.mark.parametrize(("bound", "host", "allowed"), [
    ("127.0.0.1", "localhost:8761", True),
    ("127.0.0.1", "127.0.0.1:8761", True),
    ("127.0.0.1", "[::1]:8761", True),
    ("127.0.0.1", "LOCALHOST.:8761", True),
    ("127.0.0.1", "localhost:8762", False),
    ("127.0.0.1", "localhost", False),
    ("127.0.0.1", "evil.example:8761", False),
    ("127.0.0.1", "192.168.1.5:8761", False),  # not loopback: not this machine only
    ("127.0.0.1", "", False),
    ("0.0.0.0", "192.168.1.5:8761", True),
    ("0.0.0.0", "evil.example:8761", False),
])
def test_host_headers(bound: str, host: str, allowed: bool) -> None:
    server = QuizServer("true", host=bound, port=8761, token="t", public_url="http://x")
    assert server.host_allowed(host) is allowed
