"""The modes' table and the router agree, and no screen imports the app."""

from __future__ import annotations

import ast
from pathlib import Path

from quiz.tui.modes import MODES
from quiz.tui.routing import OPENERS

TUI = Path(__file__).resolve().parents[2] / "quiz" / "tui"


def test_every_mode_has_an_opener_and_every_opener_a_mode() -> None:
    assert sorted(OPENERS) == sorted(mode.name for mode in MODES)


def test_no_module_of_the_app_imports_the_app() -> None:
    """Screens post messages; only the entry point (quiz/commands/app.py) builds the app."""
    importers = []
    for path in sorted(TUI.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if "quiz.tui.app" in names:
                importers.append(str(path.relative_to(TUI)))
    assert importers == []
