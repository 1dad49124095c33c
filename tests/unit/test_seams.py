"""The registries are complete: one entry per answer kind, mode and command (issue 10)."""

from __future__ import annotations

import argparse
from typing import get_args

import pytest

from questions.types import AnswerKind


def test_every_layer_registers_every_answer_kind() -> None:
    from questions.kinds import KINDS as QUESTION_KINDS
    from quiz.core.kinds import KINDS as CORE_KINDS

    names = set(get_args(AnswerKind))
    assert set(QUESTION_KINDS) == names
    assert set(CORE_KINDS) == names


def test_the_question_screen_knows_every_answer_kind() -> None:
    pytest.importorskip("textual")
    from quiz.tui.kinds import KINDS as TUI_KINDS

    assert set(TUI_KINDS) == set(get_args(AnswerKind))


def test_every_subcommand_is_routed_to_a_module_with_run() -> None:
    import importlib

    from quiz.cli import COMMANDS, build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) == {name for name in COMMANDS if name is not None}
    for module in {*COMMANDS.values(), "plain"}:
        assert callable(importlib.import_module(f"quiz.commands.{module}").run)


def test_the_mode_table_feeds_the_menu_the_keys_and_the_help() -> None:
    from quiz.tui.modes import BLURB_WIDTH, MODES, by_name, menu_modes
    from quiz.tui.screens.help import help_text
    from quiz.tui.screens.home import HomeScreen

    names = [mode.name for mode in MODES]
    assert len(names) == len(set(names))
    keys = [mode.key for mode in MODES if mode.key]
    assert len(keys) == len(set(keys))
    from textual.binding import Binding

    bound = {b.key: b.action for b in HomeScreen.BINDINGS if isinstance(b, Binding)}
    for mode in menu_modes():
        assert by_name(mode.name) is mode
        if mode.binding:
            assert bound[mode.key] == f"app.open_mode('{mode.name}')"
        if mode.help:
            assert mode.help in help_text()
        assert len(mode.blurb) <= BLURB_WIDTH, mode.blurb  # one line at 80x24
