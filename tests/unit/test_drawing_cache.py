"""A variant is drawn from the template as the compiled bank keeps it (questions.views)
with the solver's derivations run as plans kept in the data folder (questions.plancache)
exactly as from the validated template and sympy, and a one-shot `quiz ask`/`quiz check`
whose plans are kept imports neither (issue 15: `quiz ask` / `quiz check` one-shot
speed). Kept plans are data: damaged or hostile ones are derived again."""

from __future__ import annotations

import json
import shutil
import sqlite3
import zlib
from pathlib import Path

import pytest
from helpers import FULL, run_cli
from test_stored_variants import BANK, CATALOG, answers, fresh_process, same

from questions import plancache, stored
from questions.catalog import Catalog, build
from questions.derivation import derivation_of
from questions.loader import bank_files
from questions.schema import Template
from questions.variants import Variant, make_variant
from questions.views import TemplateView, bank_view, bank_view_json, view_shape
from quiz.commands.ask import ask_json, check_json, render_ask
from solver import light, plan


@pytest.fixture(autouse=True)
def _no_shipped_plans(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process derives what it draws (the data folder's plans file under test),
    as with a package whose shipped plans (solver.shipped) another solver wrote."""
    from solver import shipped

    monkeypatch.setattr(shipped, "get", lambda key: None)

RECORDED = 0
"""The seed drawn from the validated template, which keeps the plans."""
SEEDS = (1, 7) if FULL else (7,)
"""New seeds, drawn from the view and the kept plans (one locally, two under
QUIZ_FUZZ=full)."""


def worked(v: Variant) -> None:
    for pv in v.parts:
        derivation_of(pv)  # worked out while the source is in use


@pytest.mark.parametrize("tid", sorted(BANK.templates))
def test_a_new_seed_drawn_from_the_banks_view_and_kept_plans_asks_and_grades_like_a_drawn_one(
        tid: str) -> None:
    template = BANK.get(tid)
    source = plancache.Memory()
    with light.using(source):
        worked(make_variant(template, RECORDED))
    view = bank_view(bank_view_json(template), view_shape())
    assert same(view.all_parts(), template.all_parts())
    for seed in SEEDS:
        drawn = make_variant(template, seed)
        with light.using(source):
            light_drawn = make_variant(view, seed)  # type: ignore[arg-type]
            worked(light_drawn)
            assert light._state.plans.keys() <= source.texts.keys()  # every plan is kept
        assert json.dumps(ask_json(light_drawn), indent=2) == json.dumps(ask_json(drawn),
                                                                          indent=2)
        assert render_ask(light_drawn) == render_ask(drawn)
        for pv in drawn.parts:
            texts = [pv.key.display, "It needs about 3 GB."] if pv.kind == "spoken" \
                else answers(drawn, pv.index)
            earlier = [p.key.display for p in drawn.parts[:pv.index - 1]]
            for text in texts:
                want, _ = check_json(drawn, pv.index, text, earlier)
                got, _ = check_json(light_drawn, pv.index, text, earlier)
                assert json.dumps(got, indent=2) == json.dumps(want, indent=2), text


def test_a_view_copies_like_a_frozen_model() -> None:
    template = BANK.get("memory/model-state")
    view = bank_view(bank_view_json(template), view_shape())
    part = view.all_parts()[0]
    copy = part.model_copy(update={"prompt": "Other"})
    assert (copy.__dict__["prompt"], part.__dict__["prompt"]) == (
        "Other", template.all_parts()[0].prompt)
    assert view.kind == template.kind
    with pytest.raises(AttributeError):
        copy.prompt = "changed"


@pytest.mark.parametrize("code", [
    "import os",
    "def _lambdifygenerated(a):\n    return a.__class__",
    "def _lambdifygenerated(a):\n    return __import__('os')",
    "def _lambdifygenerated(a):\n    return open('x')",
    "def _lambdifygenerated(a):\n    return (lambda: a)()",
    "def _lambdifygenerated(a):\n    return [a for a in ()]",
    "def _lambdifygenerated(a):\n    return 'text'",
    "def _lambdifygenerated(a):\n    return min(a, key=a)",
    "def _lambdifygenerated(a, b):\n    return a*b",
    "def _lambdifygenerated(a=1):\n    return a",
    "def _lambdifygenerated(a):\n    x = 1\n    return a",
    "@staticmethod\ndef _lambdifygenerated(a):\n    return a",
    "def other(a):\n    return a",
    "def _lambdifygenerated(a):\n    return a\nprint(1)",
    "def _lambdifygenerated(a):\n    return a[0]",
    "def _lambdifygenerated(a):\n    return b",
    "def _lambdifygenerated(a):\n    return a if a else 1",
    "def _lambdifygenerated(a):\n    return True",
    "def _lambdifygenerated(a):\n    return " + "+".join(["a"] * 10_000),
    "def _lambdifygenerated(a):\n    return (",
    "def _lambdifygenerated(a):\n    return a**9**9**9",
    "def _lambdifygenerated(a):\n    return 9**100000",
])
def test_plan_code_that_is_not_one_arithmetic_function_is_refused(code: str) -> None:
    data = {"name": "q", "leaves": ["a"], "conventions": [], "steps": [
        {"name": "q", "unit": "1", "text": "", "args": ["a"], "code": code, "formula": "",
         "pretty": "", "substitution": [""], "whiteboard": [""]}]}
    with pytest.raises(ValueError):
        plan.load_plan(data)


def test_plan_code_as_lambdify_prints_it_computes_the_same_floats() -> None:
    code = ("def _lambdifygenerated(a, b):\n"
            "    return max(1, -a + b)*sqrt(b)/(2*a) + floor(b/3)")
    data = {"name": "q", "leaves": ["a", "b"], "conventions": [], "steps": [
        {"name": "q", "unit": "1", "text": "", "args": ["a", "b"], "code": code,
         "formula": "", "pretty": "", "substitution": [""], "whiteboard": [""]}]}
    loaded = plan.load_plan(data)
    import math

    for a, b in [(1.5, 7.0), (3.0, 1e12), (0.1, 0.2)]:
        want = max(1, -a + b) * math.sqrt(b) / (2 * a) + math.floor(b / 3)
        assert loaded.run({"a": a, "b": b})["q"] == want


def plan_rows(file: Path) -> int:
    with sqlite3.connect(file) as conn:
        return int(conn.execute("SELECT count(*) FROM plans").fetchone()[0])


def count_validated(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids the catalog validates from now on (a list that fills as they are)."""
    validated: list[str] = []
    real = type(CATALOG).templates

    def counting(self: object, ids: list[str] | None = None) -> dict[str, Template]:
        validated.extend(ids or [])
        return real(self, ids)  # type: ignore[arg-type]

    monkeypatch.setattr(type(CATALOG), "templates", counting)
    return validated


@pytest.fixture(scope="module")
def cached_catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    """The bundled bank compiled into a cache by another build (as a command finds it)."""
    cache = tmp_path_factory.mktemp("bank") / "bank.db"
    build(bank_files([], cache=cache), cache)
    return build(bank_files([], cache=cache), cache)


def test_a_draw_keeps_its_plans_and_takes_the_template_from_the_compiled_bank(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cached_catalog: Catalog) -> None:
    file = tmp_path / plancache.FILE
    monkeypatch.setattr(cached_catalog, "_fresh", {})  # (another test may have compiled)
    # The validated template the draws are compared with, taken before counting: the
    # bundled bank validates a template on first use, through the class counted below
    # (this test alone, first in its process, once counted that validation).
    validated_template = BANK.get("memory/model-state")
    validated = count_validated(monkeypatch)
    first = stored.variant(cached_catalog, "memory/model-state", 3, file)
    assert validated == [] and isinstance(first.template, TemplateView)
    assert plan_rows(file) >= 2
    for seed in (3, 4):
        got = stored.variant(cached_catalog, "memory/model-state", seed, file)
        assert json.dumps(ask_json(got)) == json.dumps(
            ask_json(make_variant(validated_template, seed)))
    assert validated == []


def test_a_damaged_foreign_or_hostile_plans_file_only_costs_deriving_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cached_catalog: Catalog) -> None:
    file = tmp_path / plancache.FILE
    want = {s: json.dumps(ask_json(make_variant(BANK.get("memory/model-state"), s)))
            for s in range(1, 8)}
    file.write_bytes(b"not a database" * 100)
    assert json.dumps(ask_json(stored.variant(cached_catalog, "memory/model-state", 1,
                                              file))) == want[1]
    stored.variant(cached_catalog, "memory/model-state", 2, file)  # the file made again
    assert plan_rows(file) >= 2
    hostile = json.dumps({"name": "x", "leaves": [], "conventions": [], "steps": [
        {"name": "x", "unit": "1", "text": "", "args": [], "formula": "", "pretty": "",
         "code": "def _lambdifygenerated():\n    return __import__('os').system('x')",
         "substitution": [""], "whiteboard": [""]}]})
    for seed, damaged in enumerate(["{", '{"steps": 1}', hostile], 3):
        with sqlite3.connect(file) as conn:
            conn.execute("UPDATE plans SET data = ?", (damaged,))
        got = stored.variant(cached_catalog, "memory/model-state", seed, file)
        assert json.dumps(ask_json(got)) == want[seed]
    monkeypatch.setattr(plancache, "_code_digest", lambda: "other code")  # an upgrade
    assert light.QUANTITIES  # (the catalogue, read before the file is emptied)
    got = stored.variant(cached_catalog, "memory/model-state", 7, file)
    assert json.dumps(ask_json(got)) == want[7]
    with sqlite3.connect(file) as conn:
        assert conn.execute("SELECT value FROM meta").fetchone()[0] == "other code"


def test_asking_and_checking_new_seeds_of_templates_asked_before_imports_no_sympy_or_pydantic(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = str(tmp_path / "data")
    for first in (["ask", "memory/model-state#3"], ["ask", "parallelism/activations-only-axis#1"],
                  ["ask", "compute/flops-formula#0"]):
        assert run_cli(capsys, "--data-dir", data, *first)[0] == 0  # drawn and kept
    calls = [["ask", "memory/model-state#4", "--json"],
             ["check", "memory/model-state#5", "--answer", "128 GB", "--json"],
             ["ask", "parallelism/activations-only-axis#2"],
             ["check", "parallelism/activations-only-axis#3", "--answer", "b", "--json"],
             ["ask", "compute/flops-formula#1", "--json"]]
    want = ""
    with_sympy = str(tmp_path / "other")
    for call in calls:  # the same calls, drawn from the validated templates
        code, out, _ = run_cli(capsys, "--data-dir", with_sympy, *call)
        assert code == 0
        want += out
    assert fresh_process(data, calls) == (want, set())


@pytest.mark.parametrize("tid", sorted(BANK.templates))
def test_the_view_the_compiled_bank_keeps_reads_and_draws_like_the_validated_template(
        tid: str, cached_catalog: Catalog) -> None:
    template = BANK.get(tid)
    view = stored.bank_view_of(cached_catalog, tid)
    assert isinstance(view, TemplateView)
    assert all(same(getattr(view, name), getattr(template, name))
               for name in type(template).model_fields)
    assert same(view.all_parts(), template.all_parts())
    assert view.__dict__.keys() - {"_parts"} == type(template).model_fields.keys()
    drawn = make_variant(view, 5)  # type: ignore[arg-type]
    assert json.dumps(ask_json(drawn)) == json.dumps(ask_json(make_variant(template, 5)))


def test_a_damaged_view_in_the_compiled_bank_only_costs_a_validation(
        tmp_path: Path) -> None:
    want = json.dumps(ask_json(make_variant(BANK.get("memory/model-state"), 3)))
    # one compile of the bundled bank, copied before each damage (the same bytes a
    # compile in each case's folder writes)
    compiled = tmp_path / "compiled" / "bank.db"
    compiled.parent.mkdir()
    build(bank_files([], cache=compiled), compiled)
    for case, (sql, value) in enumerate([
            ("UPDATE compiled SET view = ?", zlib.compress(b'{"fields": {}, "part": null}')),
            ("UPDATE compiled SET view = ?", zlib.compress(b"not json")),
            ("UPDATE compiled SET view = ?", b"not zlib"),
            ("UPDATE compiled SET view = ?", "text"),
            ("UPDATE compiled SET view = ?", None),
            ("UPDATE meta SET value = ? WHERE key = 'shape'", '{"Part": {}}'),
            ("DELETE FROM meta WHERE key = 'shape' AND ? IS NULL", None)]):
        bank = tmp_path / str(case) / "bank.db"
        shutil.copytree(compiled.parent, bank.parent)
        with sqlite3.connect(bank) as conn:
            conn.execute(sql, (value,))
        catalog = build(bank_files([], cache=bank), bank)
        got = stored.variant(catalog, "memory/model-state", 3, bank.with_name(plancache.FILE))
        assert not isinstance(got.template, TemplateView), case  # validated
        assert json.dumps(ask_json(got)) == want


def test_a_first_ask_of_a_compiled_template_imports_no_pydantic_and_no_sympy(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = str(tmp_path / "data")
    assert run_cli(capsys, "--data-dir", data, "templates", "list")[0] == 0  # compiled
    calls = {"choice": ["check", "parallelism/activations-only-axis#3", "--answer", "b"],
             "number": ["ask", "memory/model-state#3", "--json"],
             "formula": ["ask", "compute/flops-formula#3", "--json"]}
    for kind, call in calls.items():
        want = run_cli(capsys, "--data-dir", str(tmp_path / "other"), *call)[1]
        printed, imported = fresh_process(data, [call])
        assert printed == want
        # a number's first derivations are read from the plans the package ships
        # (solver.shipped: this process is a new one, the fixture's patch is not in it)
        assert imported == set(), kind


def test_the_drawn_variants_earlier_versions_kept_are_removed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """They held which questions were asked, and nothing reads them any more."""
    old = tmp_path / "data" / "cache" / "variants.db"
    old.parent.mkdir(parents=True)
    old.write_bytes(b"")
    assert run_cli(capsys, "--data-dir", str(tmp_path / "data"), "ask",
                   "memory/model-state#1")[0] == 0
    assert not old.exists() and (old.parent / plancache.FILE).exists()
