"""The shape of the house, read from the source (no import, nothing run).

Two rules of docs/ARCHITECTURE.md that no other test sees (that no test reads outside
the repository is tests/unit/test_tests_stay_in_the_repo.py):

- no import circle between our modules, counting imports inside functions and under
  ``TYPE_CHECKING`` (a lazy import hides a circle; it does not remove it);
- no code outside the answer kinds' own modules compares a value with a kind's name
  (``kind == "layout"``, ``kind in ("choice", "multi")``): what a kind does is asked of
  its module through the registries;
- no code outside the kinds' folders (``*/kinds/*``) imports a particular kind's module
  (``questions.kinds.number``, ``quiz.core.kinds.choice``, ``questions.kinds.answers``
  ...): it reads a part through the kind's entry in the table (an amount through
  ``amount_of``), and asks the questions of its own through ``questions.kinds.build``.

Each rule has a test that shows it catches what it forbids.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import get_args

from questions.types import AnswerKind

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("quiz", "questions", "solver", "bench")
KIND_NAMES = frozenset(get_args(AnswerKind))


# --- the module graph ---------------------------------------------------------------

def module_files(root: Path) -> dict[str, Path]:
    """Every module of our packages by dotted name (``bench`` scripts, which import
    each other by bare name, as ``bench.NAME``)."""
    out: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _imported(tree: ast.AST, name: str, is_package: bool) -> Iterator[str]:
    """Dotted names a module's import statements name, wherever they sit."""
    here = name.split(".") if is_package else name.split(".")[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[:len(here) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            yield module
            yield from (f"{module}.{a.name}" for a in node.names)


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the modules of ours it imports (importing ``a.b.c`` also runs the
    ``__init__`` of ``a`` and ``a.b``)."""
    files = module_files(root)

    def ours(dotted: str) -> str | None:
        head = dotted.split(".")[0]
        if head not in PACKAGES and f"bench.{head}" in files:
            dotted = f"bench.{dotted}"
        while dotted and dotted not in files:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        edges: set[str] = set()
        for dotted in _imported(ast.parse(path.read_text()), name, path.name == "__init__.py"):
            target = ours(dotted)
            if target is None:
                continue
            parts = target.split(".")
            for i in range(1, len(parts) + 1):
                step = ".".join(parts[:i])
                if step in files and step != name and not name.startswith(step + "."):
                    edges.add(step)
        graph[name] = edges
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_circle_lazy_imports_included() -> None:
    found = circles(import_graph(ROOT))
    assert not found, "import circles: " + "; ".join(" <-> ".join(c) for c in found)


def test_the_circle_check_sees_a_circle_through_a_lazy_import(tmp_path: Path) -> None:
    (tmp_path / "solver").mkdir()
    (tmp_path / "solver" / "__init__.py").write_text("")
    (tmp_path / "solver" / "a.py").write_text("from solver import b\n")
    (tmp_path / "solver" / "b.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "def f():\n    from solver.a import g\n")
    assert circles(import_graph(tmp_path)) == [["solver.a", "solver.b"]]
    (tmp_path / "solver" / "b.py").write_text("import math\n")
    assert circles(import_graph(tmp_path)) == []


# --- kind names ---------------------------------------------------------------------

def _is_kind_module(path: Path, root: Path) -> bool:
    return "kinds" in path.relative_to(root).parts


def _kind_strings(node: ast.AST) -> Iterable[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        if node.value in KIND_NAMES:
            yield node.value
    elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        for element in node.elts:
            yield from _kind_strings(element)


def kind_comparisons(root: Path) -> list[str]:
    """``file:line`` of every comparison with a kind's name outside the kind modules
    (``==``, ``!=``, ``in``, ``not in``, and ``match`` cases)."""
    out = []
    for path in module_files(root).values():
        if _is_kind_module(path, root):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            sides: list[ast.AST] = []
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
            elif isinstance(node, ast.MatchValue):
                sides = [node.value]
            if any(True for side in sides for _ in _kind_strings(side)):
                out.append(f"{path.relative_to(root)}:{getattr(node, 'lineno', 0)}")
    return out


def test_no_branch_on_an_answer_kind_name_outside_the_kind_modules() -> None:
    assert kind_comparisons(ROOT) == []


def test_the_kind_check_sees_a_branch(tmp_path: Path) -> None:
    (tmp_path / "quiz").mkdir()
    (tmp_path / "quiz" / "x.py").write_text(
        "def f(pv):\n    return pv.kind in ('choice', 'multi')\n")
    (tmp_path / "quiz" / "kinds").mkdir()
    (tmp_path / "quiz" / "kinds" / "choice.py").write_text(
        "def f(pv):\n    return pv.kind == 'choice'\n")
    assert kind_comparisons(tmp_path) == ["quiz/x.py:2"]


# --- a kind's module ----------------------------------------------------------------

SHARED_KIND_MODULES = frozenset({"base", "build"})
"""What a kinds folder offers everyone beside its table (the package itself): the
entries' shared types, and the builders of the questions generic code asks."""


def kind_module_imports(root: Path) -> list[str]:
    """``importer -> imported`` for every import of a particular kind's module (any
    module under a ``kinds`` package but its shared ones) by a module outside the
    ``kinds`` folders, lazy and ``TYPE_CHECKING`` imports included."""
    files = module_files(root)
    out = []
    for name, edges in import_graph(root).items():
        if _is_kind_module(files[name], root):
            continue
        for target in sorted(edges):
            parts = target.split(".")
            if "kinds" in parts[:-1] and \
                    parts[parts.index("kinds") + 1] not in SHARED_KIND_MODULES:
                out.append(f"{name} -> {target}")
    return out


def test_no_code_outside_the_kinds_imports_a_particular_kinds_module() -> None:
    assert kind_module_imports(ROOT) == []


def test_the_kind_module_check_sees_an_import(tmp_path: Path) -> None:
    (tmp_path / "questions" / "kinds" / "answers").mkdir(parents=True)
    for name in ("__init__", "base", "build", "number", "answers/__init__",
                 "answers/number"):
        (tmp_path / "questions" / "kinds" / f"{name}.py").write_text("")
    (tmp_path / "questions" / "__init__.py").write_text("")
    (tmp_path / "questions" / "kinds" / "choice.py").write_text(
        "from questions.kinds import number\n")  # a kind may use another
    (tmp_path / "questions" / "ok.py").write_text(
        "from questions.kinds import kind_of\nfrom questions.kinds.base import Amount\n"
        "from questions.kinds.build import amount_key\n")
    (tmp_path / "questions" / "x.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from questions.kinds.answers.number import NumberAnswer\n"
        "def f():\n    from questions.kinds import number\n")
    assert kind_module_imports(tmp_path) == [
        "questions.x -> questions.kinds.answers",
        "questions.x -> questions.kinds.answers.number",
        "questions.x -> questions.kinds.number"]


DYNAMIC = frozenset({"exec", "eval", "sympify", "parse_expr", "compile", "__import__"})
"""Callables that run or parse text as code."""

DYNAMIC_ALLOWED = {("solver.plan", "exec"), ("solver.plan", "compile")}
"""The one place: ``solver.plan._compile`` runs lambdify's source of a solver formula,
read back from a plans file and checked by an AST whitelist first. Its only callers are
the plan loaders (``solver.light`` through ``load_plan``); typed answers go through
``solver.formula``'s own parser and the kinds' readers."""


def dynamic_calls(root: Path) -> list[tuple[str, str, int]]:
    """(module, callable, line) of each call of a :data:`DYNAMIC` name, by name or
    attribute (``sympy.sympify``; the builtin ``compile`` by name only), in quiz/,
    questions/ and solver/."""
    found = []
    for module, path in module_files(root).items():
        if module.split(".")[0] == "bench":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.id if isinstance(f, ast.Name) else \
                    f.attr if isinstance(f, ast.Attribute) else None
                if name in DYNAMIC and not (name == "compile" and isinstance(f, ast.Attribute)):
                    # (re.compile and the like compile no Python)
                    found.append((module, name, node.lineno))
    return found


def test_text_is_run_as_code_in_one_checked_place_only() -> None:
    stray = [c for c in dynamic_calls(ROOT) if c[:2] not in DYNAMIC_ALLOWED]
    assert not stray, stray
    loaders = [(m, n.lineno) for m, p in module_files(ROOT).items()
               for n in ast.walk(ast.parse(p.read_text()))
               if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
               and n.func.id in ("load_plan", "_compile")]
    assert {m for m, _ in loaders} <= {"solver.light", "solver.plan"}, loaders


def test_the_code_check_sees_an_eval(tmp_path: Path) -> None:
    (tmp_path / "quiz").mkdir()
    (tmp_path / "quiz" / "__init__.py").write_text("")
    (tmp_path / "quiz" / "bad.py").write_text("import sympy\nx = sympy.sympify(input())\n")
    assert dynamic_calls(tmp_path) == [("quiz.bad", "sympify", 2)]
