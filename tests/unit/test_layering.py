"""The layers of DESIGN.md: the core never loads Textual, and start-up stays light."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def _modules_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_importing_solver_loads_neither_textual_nor_quiz() -> None:
    mods = _modules_after("import solver, solver.engine, solver.quantities")
    assert not {m for m in mods if m == "textual" or m.startswith("textual.")}
    assert not {m for m in mods if m == "quiz" or m.startswith("quiz.")}


@pytest.mark.parametrize("package", ["solver", "questions", "quiz.core"])
def test_core_packages_never_import_textual(package: str) -> None:
    import importlib
    import pkgutil

    root = importlib.import_module(package)
    names = [package] + [f"{package}.{m.name}" for m in pkgutil.iter_modules(root.__path__)]
    code = "\n".join(f"import {n}" for n in names)
    mods = _modules_after(code)
    assert not {m for m in mods if m == "textual" or m.startswith("textual.")}


def test_help_does_not_import_sympy() -> None:
    mods = _modules_after("from quiz.cli import build_parser\nbuild_parser()")
    assert "sympy" not in mods


def test_solver_units_does_not_import_sympy() -> None:
    assert "sympy" not in _modules_after("import solver.units")
