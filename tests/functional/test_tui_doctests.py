"""The docstring examples of the TUI's headless helpers hold."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["quiz.tui.data", "quiz.tui.today", "quiz.tui.widgets.forecast",
           "quiz.tui.screens.report"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0


def test_importing_the_app_loads_neither_sympy_nor_the_core() -> None:
    import json
    import subprocess
    import sys

    code = "import quiz.tui.app, sys, json; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    modules = set(json.loads(out.stdout))
    assert "sympy" not in modules
    assert not {m for m in modules if m.startswith(("solver", "questions", "quiz.core"))}
    assert "pydantic" not in modules
