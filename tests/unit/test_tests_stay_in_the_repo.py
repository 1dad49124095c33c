"""The tests read nothing outside the repository and the temporary folder.

A test that reads a file beside the checkout (a team's shared folder, another worktree, a
home directory) passes on the machine it was written on and fails, or silently tests
something else, everywhere else. Each test file's source is read as Python and every
way it could name such a path is looked for:

- ``Path(__file__).parents[N]`` (or ``.parent`` N+1 times) climbing above the root;
- a ``".."`` path segment in a string (a climb out of wherever the test stands), except
  in the hostile tests, which hand such paths to quiz to see them refused;
- an absolute path in a folder where people's or teams' files live (``home``, ``work``,
  ``shared``, ...), or ``~``, unless the test points ``HOME`` at its temporary folder;
- ``Path.home()`` and ``expanduser``, which read the machine's own home.

The operating system's own files (``/dev/null``, ``/proc/self``, ``/bin/sleep``) are
not the project's data and stay allowed; so does text that only shows a path on screen
(``EXAMPLES``, each with the reason).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent

FOREIGN_ROOTS = frozenset({"home", "Users", "work", "shared", "mnt", "media", "srv", "opt",
                           "data", "root", "net", "Volumes", "scratch", "nfs"})
"""Top folders of an absolute path where people's or teams' files live."""

EXAMPLES = {
    ("functional/test_snapshots.py", "/home/you/.local/share/quiz/config.toml"):
        "the about screen's text shows a settings path; nothing reads it",
}
"""Paths that are shown, never read: (test file, the literal) -> why it is allowed."""

PATHLIKE = re.compile(r"^[^\s'\"]*$")
"""A literal with no white space (a sentence that mentions a folder is not a path)."""


HOME_PATH = re.compile(r"^~[\w.-]*/")
"""``~/x`` or ``~user/x`` (a lone ``~``, as in a fuzz alphabet, is not taken for one)."""


def python_files() -> list[Path]:
    """Every Python file under tests/ (the tests, their conftests and helpers), but this
    one, which names such paths on purpose: its probes."""
    here = Path(__file__).resolve()
    return sorted(p for p in TESTS.rglob("*.py")
                  if "__snapshots__" not in p.parts and p.resolve() != here)


def climbs_out(path: Path, node: ast.AST) -> bool:
    """Whether ``node`` is ``Path(__file__)...parents[N]`` or ``.parent`` chained
    reaching above the repository root from ``path``."""
    levels = 0
    while isinstance(node, ast.Attribute) and node.attr == "parent":
        levels += 1
        node = node.value
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) \
            and node.value.attr == "parents" and isinstance(node.slice, ast.Constant) \
            and isinstance(node.slice.value, int):
        levels += node.slice.value + 1
        node = node.value.value
    if levels == 0 or "__file__" not in ast.unparse(node):
        return False
    start = path
    for _ in range(levels):
        start = start.parent
    return not start.is_relative_to(ROOT)


def function_sets_home(tree: ast.AST, lineno: int) -> bool:
    """Whether the function holding line ``lineno`` points ``HOME`` elsewhere."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) \
                and node.lineno <= lineno <= (node.end_lineno or node.lineno):
            source = ast.unparse(node)
            if "setenv('HOME'" in source or "'HOME':" in source:
                return True
    return False


def outside_paths(path: Path, source: str | None = None) -> list[str]:
    """What in ``path``'s source (or ``source``, as if it were there) names a place
    outside the repository and tmp."""
    rel = path.relative_to(TESTS).as_posix()
    tree = ast.parse(path.read_text(encoding="utf-8") if source is None else source)
    found: list[str] = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Attribute | ast.Subscript) and climbs_out(path, node):
            found.append(f"{rel}:{line}: {ast.unparse(node)} climbs above the repository")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("home", "expanduser") \
                and (node.func.attr == "expanduser"
                     or ast.unparse(node.func.value) in ("Path", "pathlib.Path")) \
                and not function_sets_home(tree, line):
            found.append(f"{rel}:{line}: {ast.unparse(node)} reads the machine's home")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and PATHLIKE.match(node.value) and (rel, node.value) not in EXAMPLES:
            text = node.value
            parts = text.split("/")
            if ".." in parts and not path.name.startswith("test_hostile_"):
                found.append(f"{rel}:{line}: {text!r} climbs with '..'")
            elif text.startswith("/") and len(parts) > 1 and parts[1] in FOREIGN_ROOTS:
                found.append(f"{rel}:{line}: {text!r} is outside the repository")
            elif HOME_PATH.match(text) and not function_sets_home(tree, line):
                found.append(f"{rel}:{line}: {text!r} is in the machine's home")
    return found


def test_no_test_names_a_path_outside_the_repository() -> None:
    found = [hit for path in python_files() for hit in outside_paths(path)]
    assert found == []


def test_every_allowed_example_is_still_there() -> None:
    """An example whose test changed is dropped, not kept as a blanket exception."""
    for (rel, literal), why in EXAMPLES.items():
        assert literal in (TESTS / rel).read_text(encoding="utf-8"), (rel, why)


PROBE = TESTS / "unit" / "test_probe.py"
"""Where the check's own probes pretend to stand (never written)."""


@pytest.mark.parametrize("source", [
    'DATA = Path(__file__).parents[3] / "team" / "published_runs.json"',
    'DATA = Path(__file__).parent.parent.parent.parent / "x"',
    'RUNS = Path("../team/data/published_runs.json")',
    'RUNS = "/srv/team/data/published_runs.json"',
    'RUNS = open("/home/me/runs.json")',
    'RUNS = Path("~/runs.json")',
    'RUNS = Path.home() / "runs.json"',
])
def test_the_check_finds_a_path_outside(source: str) -> None:
    """The check is not blind: each way of naming an outside path is found (the source
    read as if it were a unit test's)."""
    assert outside_paths(PROBE, f"from pathlib import Path\n{source}\n") != []


def test_the_check_lets_the_repository_and_tmp_be() -> None:
    assert outside_paths(PROBE, "from pathlib import Path\n"
                         'GUIDE = Path(__file__).parents[2] / "AUTHORING.md"\n'
                         'RUNS = Path(__file__).parent.parent / "data" / "x.json"\n'
                         'NULL = "/dev/null"\nTMP = "/tmp/x"\n') == []
