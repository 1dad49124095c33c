"""The command line builds only the parser of the command being run, and says exactly
what building them all would say: every help text and every usage error, byte for byte."""

from __future__ import annotations

import argparse
import contextlib
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quiz.cli import PARSERS, _Subcommands, build_parser

COMMANDS = list(PARSERS)
ACTIONS = {"templates": ["list", "show", "new", "validate", "test", "preview", "schema"],
           "history": ["export", "import", "restore"], "export": ["anki"]}

ARGVS = [
    ["--help"], ["-h"], ["--version"], ["bogus"], ["tem"], ["--data-dir"], ["--bogus"],
    ["--data", "/x", "bogus"], ["--temp", "/x", "stats", "--json"],
    ["templates"], ["templates", "bogus"], ["history", "bogus"], ["export", "bogus"],
    ["ask"], ["ask", "x", "--seed", "abc"], ["check", "x"],
    ["check", "x", "--answer", "1", "--part", "0"], ["mock", "--minutes", "0"],
    ["practice", "--difficulty", "9"], ["solve", "--bogus"], ["templates", "validate"],
    ["templates", "list", "--bogus"], ["templates", "list", "--data-dir"],
    ["mistakes", "--limit", "x"], ["serve", "--port", "70000"],
    ["history", "export", "--format", "xml"], ["export", "anki", "--variants", "0"],
    ["layout", "--top", "x"], ["learn", "a", "b"], ["stats", "extra"],
    ["ask", "memory/model-state#7", "--json"], ["templates", "list", "--templates", "d"],
    *([name, "--help"] for name in COMMANDS),
    *([name, action, "--help"] for name, actions in ACTIONS.items() for action in actions),
]
"""Every help text, and usage errors of every kind (argparse's and our types')."""


def _outcome(argv: list[str], *, lazy: bool) -> tuple[object, str, str]:
    """What parsing ``argv`` gives: the namespace (or exit code), stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            result: object = vars(build_parser(lazy=lazy).parse_args(argv))
        except SystemExit as exc:
            result = ("exit", exc.code)
    return result, out.getvalue(), err.getvalue()


@pytest.fixture(autouse=True)
def _fixed_width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")  # argparse wraps help to the terminal


@pytest.mark.parametrize("argv", ARGVS, ids=" ".join)
def test_building_one_parser_says_what_building_all_says(argv: list[str]) -> None:
    assert _outcome(argv, lazy=True) == _outcome(argv, lazy=False)


def test_the_help_lists_every_command_with_its_help() -> None:
    _, out, _ = _outcome(["--help"], lazy=True)
    for name, (what, _build) in PARSERS.items():
        assert f"    {name}" in out and " ".join(what.split()[:3]) in out


tokens = st.sampled_from([*COMMANDS, *ACTIONS["templates"], "--json", "--seed", "7", "x",
                          "--help", "--data-dir", "/d", "--templates", "--answer", "-1",
                          "anki", "restore", "--plain", "--minutes", "memory/model-state"])


@settings(max_examples=60, deadline=None)
@given(st.lists(tokens, max_size=5))
def test_any_command_line_parses_the_same_built_lazily(argv: list[str]) -> None:
    assert _outcome(argv, lazy=True) == _outcome(argv, lazy=False)


def _subcommands(parser: argparse.ArgumentParser) -> _Subcommands:
    return next(a for a in parser._actions if isinstance(a, _Subcommands))


def _built(parser: argparse.ArgumentParser) -> set[str]:
    sub = _subcommands(parser)
    return {name for name in COMMANDS if sub._parsers.built(name)}


@pytest.mark.parametrize("argv, built", [
    (["stats", "--json"], {"stats"}),
    (["--data-dir", "/d", "templates", "list", "--json"], {"templates"}),
    (["mistakes", "--limit", "3"], {"mistakes", "flags"}),  # one module adds both
    (["ask", "a/b#3"], {"ask"}),
])
def test_running_a_command_builds_only_its_parser(argv: list[str], built: set[str]) -> None:
    parser = build_parser()
    assert _built(parser) == set()
    parser.parse_args(argv)
    assert _built(parser) == built


def test_the_top_level_help_builds_no_command_parser() -> None:
    parser = build_parser()
    with contextlib.redirect_stdout(io.StringIO()), pytest.raises(SystemExit):
        parser.parse_args(["--help"])
    assert _built(parser) == set()
    with contextlib.redirect_stderr(io.StringIO()), pytest.raises(SystemExit):
        parser.parse_args(["bogus"])
    assert _built(parser) == set()


def test_a_builder_that_adds_no_parser_is_a_bug_said_plainly() -> None:
    parser = _parser_with(lambda sub: None)
    with pytest.raises(RuntimeError, match="did not add it"):
        parser.parse_args(["broken"])


def _parser_with(build: object) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="t")
    sub = parser.add_subparsers(dest="command", action=_Subcommands)
    assert isinstance(sub, _Subcommands)
    sub.declare("broken", "never built", build)  # type: ignore[arg-type]
    return parser
