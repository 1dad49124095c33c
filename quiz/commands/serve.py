"""`quiz serve`: the same app in a browser, through textual-serve.

textual-serve runs one `quiz` process per browser tab (Textual's web driver), so every
tab is its own session over the same local history, exactly as if a second terminal had
opened the app. The server binds to localhost unless told otherwise, and accepts only
the page it served, opened with this launch's token (see :mod:`quiz.commands.served`):
anyone who can reach the port and has the printed address can answer questions in your
name and read your history.
"""

from __future__ import annotations

import argparse
import errno
import shlex
import socket
import sys
from typing import Any

from quiz.commands.args import whole


def add_parser(sub: Any) -> None:
    """Register `quiz serve` on the top-level subparsers."""
    s = sub.add_parser(
        "serve",
        description="Serve the full app to a web browser with textual-serve. Each browser "
        "tab runs its own session over this machine's history. Binds to localhost "
        "unless --host says otherwise. Ctrl+C stops the server.")
    s.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only; "
                   "0.0.0.0 lets anyone on your network in)")
    s.add_argument("--port", type=whole(1, 65535), default=8000, help="port (default 8000)")


def app_command(args: argparse.Namespace) -> str:
    """The shell command textual-serve runs for each browser tab: this same Python and
    quiz, with the same data folder and template folders."""
    argv = [sys.executable, "-m", "quiz.cli"]
    if args.data_dir:
        argv += ["--data-dir", str(args.data_dir)]
    for folder in args.templates or []:
        argv += ["--templates", str(folder)]
    return shlex.join(argv)


def port_problem(host: str, port: int) -> str | None:
    """Why the server could not listen on host:port (in use, bad address), or None."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        return f"cannot listen on {host}: {exc.strerror}"
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        # Same option aiohttp sets, so a port in TIME_WAIT is not reported as taken.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return f"port {port} on {host} is in use; choose another with --port"
            return f"cannot listen on {host}:{port}: {exc.strerror or exc}"
    return None


def run(args: argparse.Namespace) -> int:
    """Run the web server until Ctrl+C; returns the exit code."""
    problem = port_problem(args.host, args.port)
    if problem:
        sys.stderr.write(f"quiz: {problem}\n")
        return 2
    from quiz.commands.served import LOCAL_HOSTS, QuizServer, new_token

    if args.host in LOCAL_HOSTS:
        name = "localhost"
    elif args.host in ("0.0.0.0", "::"):
        # The page tells the browser where the websocket is; "0.0.0.0" would mean the
        # browser's own machine, so name this one.
        name = socket.getfqdn()
    else:
        name = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{name}:{args.port}"
    token = new_token()
    page = f"{url}/?token={token}"
    if args.host in LOCAL_HOSTS:
        print(f"Serving quiz on {page} (this machine only). Open that address (it holds "
              "this launch's key) in a browser; Ctrl+C stops.")
    else:
        print(f"warning: serving on {args.host}: anyone who can reach this machine's port "
              f"{args.port} and has the address below can use the app and read your "
              "history.", file=sys.stderr)
        print(f"Serving quiz on {page}. Ctrl+C stops.")
    sys.stdout.flush()
    server = QuizServer(app_command(args), host=args.host, port=args.port, token=token,
                        public_url=url)
    try:
        server.serve()
    except OSError as exc:  # lost a race for the port after the check
        sys.stderr.write(f"quiz: cannot listen on {args.host}:{args.port}: "
                         f"{exc.strerror or exc}\n")
        return 2
    return 0
