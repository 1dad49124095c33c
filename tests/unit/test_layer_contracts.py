"""The layers import one way only, checked on the source (issue 10).

`solver` → `questions` → `quiz.core` → `quiz.tui` / `quiz.commands` / `quiz.cli`. Every
import statement counts, including those inside functions (the deferred imports that
keep start-up fast), so a layer cannot reach upwards even lazily.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FORBIDDEN: dict[str, tuple[str, ...]] = {
    "solver": ("questions", "quiz", "textual"),
    "questions": ("quiz", "textual"),
    "quiz/core": ("quiz.tui", "quiz.commands", "quiz.cli", "textual"),
    "quiz/tui": ("quiz.commands", "quiz.cli"),
    "quiz/commands": ("quiz.tui", "quiz.cli"),
}
"""Folder -> modules it may never import."""

ALLOWED: dict[str, tuple[str, ...]] = {
    # the commands that open the app (and say what it opens first: routing.Start)
    "quiz/commands/app.py": ("quiz.tui.app", "quiz.tui.routing"),
}


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


def _breaks(name: str, forbidden: tuple[str, ...]) -> bool:
    return any(name == f or name.startswith(f"{f}.") for f in forbidden)


@pytest.mark.parametrize("folder", sorted(FORBIDDEN))
def test_no_module_imports_a_layer_above_its_own(folder: str) -> None:
    files = sorted((ROOT / folder).rglob("*.py"))
    assert files
    wrong = []
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        for line, name in _imports(path):
            if _breaks(name, FORBIDDEN[folder]) and name not in ALLOWED.get(rel, ()):
                wrong.append(f"{rel}:{line}: imports {name}")
    assert not wrong, "\n".join(wrong)


def test_the_contract_catches_an_upward_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from quiz.tui.app import QuizApp\n")
    assert any(_breaks(name, FORBIDDEN["quiz/core"]) for _, name in _imports(module))
