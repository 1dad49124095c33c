"""`quiz serve`: arguments, the localhost default, the warning for every interface, and a
port in use (one line, exit 2). The browser test is tests/functional/test_serve_browser.py."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest
from helpers import run_cli

from quiz.commands import serve


def free_port() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return str(probe.getsockname()[1])


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Record the servers that would have run, instead of running them."""
    from textual_serve.server import Server

    started: list[object] = []
    monkeypatch.setattr(Server, "serve", lambda self, debug=False: started.append(self))
    return started


def test_serve_binds_to_localhost_by_default_and_says_so(
    served: list[object], capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    port = free_port()
    code, out, err = run_cli(capsys, "--data-dir", str(tmp_path), "serve", "--port", port)
    assert code == 0 and err == ""
    assert f"http://localhost:{port}" in out and "this machine only" in out
    [server] = served
    assert server.host == "127.0.0.1"  # type: ignore[attr-defined]
    # Each tab runs this same Python's quiz on the same data folder.
    assert server.command.startswith(sys.executable)  # type: ignore[attr-defined]
    assert f"--data-dir {tmp_path}" in server.command  # type: ignore[attr-defined]


def test_serving_every_interface_warns_that_anyone_can_use_it(
    served: list[object], capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run_cli(capsys, "serve", "--host", "0.0.0.0", "--port", free_port())
    assert code == 0 and len(served) == 1
    assert err.startswith("warning: serving on 0.0.0.0: anyone who can reach")


def test_a_port_in_use_is_one_line_and_exit_2(
    served: list[object], capsys: pytest.CaptureFixture[str],
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, out, err = run_cli(capsys, "serve", "--port", str(port))
    assert (code, out, served) == (2, "", [])
    assert err == f"quiz: port {port} on 127.0.0.1 is in use; choose another with --port\n"


@pytest.mark.parametrize(("argv", "message"), [
    (["--port", "70000"], "expected a whole number from 1 to 65,535"),
    (["--host", "no such host.invalid"], "cannot listen on no such host.invalid"),
])
def test_bad_serve_arguments_are_one_line_and_exit_2(
    served: list[object], capsys: pytest.CaptureFixture[str], argv: list[str], message: str,
) -> None:
    try:
        code, _, err = run_cli(capsys, "serve", *argv)
    except SystemExit as exc:  # argparse's usage errors
        code, err = int(str(exc.code)), capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1
    assert served == []


def test_the_app_command_carries_the_global_options() -> None:
    import argparse

    args = argparse.Namespace(data_dir="/d ir", templates=["/t1", "/t2"])
    assert serve.app_command(args).endswith("--data-dir '/d ir' --templates /t1 --templates /t2")
