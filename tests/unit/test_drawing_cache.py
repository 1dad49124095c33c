"""A new seed of a template drawn before is drawn from kept data (questions.stored's
drawing file: the template as a view, the solver's derivations as plans) exactly as
from the validated template and sympy, and a one-shot `quiz ask`/`quiz check` of it
imports neither (issue 15: `quiz ask` / `quiz check` cold one-shot speed)."""

from __future__ import annotations

import json
import sqlite3
import zlib
from pathlib import Path

import pytest
from helpers import run_cli
from test_stored_variants import BANK, CATALOG, TEMPLATE, answers, fresh_process, same

from questions import stored
from questions.catalog import Catalog, build
from questions.loader import bank_files
from questions.schema import Template
from questions.variants import make_variant
from quiz.commands.ask import ask_json, check_json, render_ask
from solver import light

RECORDED = 0
"""The seed drawn from the validated template, which keeps the view and the plans."""
SEEDS = (1, 7)
"""New seeds, drawn from what was kept."""


class Memory:
    """A plan source in memory (stored.Drawing keeps the same texts in SQLite)."""

    def __init__(self) -> None:
        self.texts: dict[str, str] = {}

    def get(self, key: str) -> str | None:
        return self.texts.get(key)

    def put(self, key: str, text: str) -> None:
        self.texts[key] = text


@pytest.mark.parametrize("tid", sorted(BANK.templates))
def test_a_new_seed_drawn_from_the_kept_view_and_plans_asks_and_grades_like_a_drawn_one(
        tid: str) -> None:
    template = BANK.get(tid)
    source = Memory()
    with light.using(source):
        stored.to_json(make_variant(template, RECORDED))
    view = stored.template_from_json(json.loads(json.dumps(stored.template_json(template))))
    assert same(view.all_parts(), template.all_parts())
    for seed in SEEDS:
        drawn = make_variant(template, seed)
        with light.using(source):
            light_drawn = make_variant(view, seed)  # type: ignore[arg-type]
            record = stored.to_json(light_drawn)  # the derivations, worked out from plans
            assert None not in light._state.plans.values()  # every step became a plan
        assert json.loads(json.dumps(record)) == json.loads(json.dumps(stored.to_json(drawn)))
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


def test_a_view_copies_like_a_frozen_model_and_is_stored_like_one() -> None:
    template = BANK.get("memory/model-state")
    view = stored.template_from_json(stored.template_json(template))
    part = view.all_parts()[0]
    copy = part.model_copy(update={"prompt": "Other"})
    assert (copy.__dict__["prompt"], part.__dict__["prompt"]) == (
        "Other", template.all_parts()[0].prompt)
    assert stored.encode(part) == stored.encode(template.all_parts()[0])
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
        light.load_plan(data)


def test_plan_code_as_lambdify_prints_it_computes_the_same_floats() -> None:
    code = ("def _lambdifygenerated(a, b):\n"
            "    return max(1, -a + b)*sqrt(b)/(2*a) + floor(b/3)")
    data = {"name": "q", "leaves": ["a", "b"], "conventions": [], "steps": [
        {"name": "q", "unit": "1", "text": "", "args": ["a", "b"], "code": code,
         "formula": "", "pretty": "", "substitution": [""], "whiteboard": [""]}]}
    plan = light.load_plan(data)
    import math

    for a, b in [(1.5, 7.0), (3.0, 1e12), (0.1, 0.2)]:
        want = max(1, -a + b) * math.sqrt(b) / (2 * a) + math.floor(b / 3)
        assert plan.run({"a": a, "b": b})["q"] == want


def drawing_rows(cache: Path, table: str) -> int:
    with sqlite3.connect(cache.with_name(stored.DRAWING)) as conn:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def count_validated(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids the catalog validates from now on (a list that fills as they are)."""
    validated: list[str] = []
    real = type(CATALOG).templates

    def counting(self: object, ids: list[str] | None = None) -> dict[str, Template]:
        validated.extend(ids or [])
        return real(self, ids)  # type: ignore[arg-type]

    monkeypatch.setattr(type(CATALOG), "templates", counting)
    return validated


def test_a_new_seed_of_a_template_drawn_before_comes_from_the_drawing_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "variants.db"
    stored.variant(CATALOG, "memory/model-state", 3, cache)
    assert drawing_rows(cache, "templates") == 1 and drawing_rows(cache, "plans") >= 2
    validated = count_validated(monkeypatch)
    got = stored.variant(CATALOG, "memory/model-state", 4, cache)
    assert validated == []  # neither validated nor drawn from the model
    assert isinstance(got.template, stored.TemplateView)
    want = make_variant(BANK.get("memory/model-state"), 4)
    assert json.dumps(ask_json(got)) == json.dumps(ask_json(want))


def test_a_damaged_or_foreign_drawing_file_only_costs_a_full_draw(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "variants.db"
    drawing = cache.with_name(stored.DRAWING)
    want = {s: json.dumps(ask_json(make_variant(BANK.get("memory/model-state"), s)))
            for s in range(1, 8)}
    drawing.write_bytes(b"not a database" * 100)
    assert json.dumps(ask_json(stored.variant(CATALOG, "memory/model-state", 1, cache))) \
        == want[1]
    stored.variant(CATALOG, "memory/model-state", 2, cache)  # the file was made again
    assert drawing_rows(cache, "templates") == 1
    for seed, (table, damaged) in enumerate([("plans", "{"), ("plans", '{"steps": 1}'),
                                             ("templates", "[]"),
                                             ("templates", '{"fields": {}, "parts": []}')],
                                            3):
        with sqlite3.connect(drawing) as conn:
            conn.execute(f"UPDATE {table} SET data = ?", (damaged,))
        got = stored.variant(CATALOG, "memory/model-state", seed, cache)
        assert json.dumps(ask_json(got)) == want[seed]
    monkeypatch.setattr(stored, "_code_digest", lambda: "other code")  # an upgrade
    got = stored.variant(CATALOG, "memory/model-state", 7, cache)
    assert not isinstance(got.template, stored.TemplateView)
    assert json.dumps(ask_json(got)) == want[7]


def test_an_edited_template_is_validated_again_and_its_new_view_kept(tmp_path: Path) -> None:
    cache = tmp_path / "cache" / "variants.db"
    file = tmp_path / "state.toml"
    file.write_text(TEMPLATE, encoding="utf-8")
    stored.variant(build([file]), "mine/state", 1, cache)
    assert isinstance(stored.variant(build([file]), "mine/state", 2, cache).template,
                      stored.TemplateView)
    file.write_text(TEMPLATE.replace('"Model state"', '"Edited"'), encoding="utf-8")
    after = stored.variant(build([file]), "mine/state", 3, cache)
    assert not isinstance(after.template, stored.TemplateView)
    assert ask_json(after)["title"] == "Edited"
    again = stored.variant(build([file]), "mine/state", 4, cache)
    assert isinstance(again.template, stored.TemplateView)
    assert ask_json(again)["title"] == "Edited"


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


def test_a_one_shot_first_draw_leaves_its_predraws_for_after_the_output(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`quiz ask`/`check` defer the other seeds' predraw (stored.DEFERRED); done later,
    it keeps the same plans as a predraw done in the draw, and a new seed then needs no
    validated template; a cleared cache is not filled again by a late predraw."""
    now = tmp_path / "now" / "variants.db"
    stored.variant(CATALOG, "memory/model-state", 3, now)
    later = tmp_path / "later" / "variants.db"
    monkeypatch.setattr(stored, "DEFERRED", [])
    first = stored.variant(CATALOG, "memory/model-state", 3, later)
    assert [(t.id, seed) for t, seed, _ in stored.DEFERRED or []] == [
        ("memory/model-state", 3)]
    assert drawing_rows(later, "plans") < drawing_rows(now, "plans")
    stored.predraw_deferred()
    assert stored.DEFERRED is None
    assert drawing_rows(later, "plans") == drawing_rows(now, "plans")
    assert json.dumps(ask_json(first)) == json.dumps(
        ask_json(stored.variant(CATALOG, "memory/model-state", 3, now)))
    real = type(CATALOG).templates
    validated = count_validated(monkeypatch)
    assert isinstance(stored.variant(CATALOG, "memory/model-state", 5, later).template,
                      stored.TemplateView)
    assert validated == []

    cleared = tmp_path / "cleared" / "variants.db"
    monkeypatch.setattr(type(CATALOG), "templates", real)
    monkeypatch.setattr(stored, "DEFERRED", [])
    stored.variant(CATALOG, "compute/flops-formula", 0, cleared)
    assert stored.DEFERRED
    cleared.with_name(stored.DRAWING).unlink()
    stored.predraw_deferred()
    assert not cleared.with_name(stored.DRAWING).exists()


def test_the_deferred_predraw_runs_in_a_detached_child_after_the_output(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """quiz.cli's exit: the command's process returns at once (the fork's parent); the
    child leaves the session, points its standard streams at /dev/null and predraws."""
    import os

    from quiz import cli

    cache = tmp_path / "variants.db"
    monkeypatch.setattr(stored, "DEFERRED", [])
    stored.variant(CATALOG, "memory/model-state", 3, cache)
    before = drawing_rows(cache, "plans")
    calls: list[str] = []
    def parent() -> int:
        calls.append("fork")
        return 4242

    monkeypatch.setattr(os, "fork", parent)
    cli._behind()  # the parent: nothing drawn here
    assert calls == ["fork"] and drawing_rows(cache, "plans") == before

    def exit_(code: int) -> None:
        calls.append(f"exit {code}")
        raise SystemExit(code)

    monkeypatch.setattr(os, "fork", lambda: 0)
    monkeypatch.setattr(os, "setsid", lambda: calls.append("setsid"))
    monkeypatch.setattr(os, "dup2", lambda a, b: calls.append(f"dup2 {b}"))
    monkeypatch.setattr(os, "_exit", exit_)
    with pytest.raises(SystemExit):
        cli._behind()  # the child
    assert calls[1:] == ["setsid", "dup2 0", "dup2 1", "dup2 2", "exit 0"]
    assert drawing_rows(cache, "plans") > before
    assert stored.DEFERRED is None


@pytest.fixture(scope="module")
def cached_catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    """The bundled bank compiled into a cache by another build (as a command finds it)."""
    cache = tmp_path_factory.mktemp("bank") / "bank.db"
    build(bank_files([], cache=cache), cache)
    return build(bank_files([], cache=cache), cache)


@pytest.mark.parametrize("tid", sorted(BANK.templates))
def test_the_view_the_compiled_bank_keeps_reads_and_draws_like_the_validated_template(
        tid: str, cached_catalog: Catalog) -> None:
    template = BANK.get(tid)
    view = stored._bank_view(cached_catalog, tid)
    assert isinstance(view, stored.TemplateView)
    assert all(same(getattr(view, name), getattr(template, name))
               for name in type(template).model_fields)
    assert same(view.all_parts(), template.all_parts())
    assert view.__dict__.keys() - {"_parts"} == type(template).model_fields.keys()
    drawn = make_variant(view, 5)  # type: ignore[arg-type]
    assert json.dumps(stored.to_json(drawn)) == json.dumps(
        stored.to_json(make_variant(template, 5)))


def test_a_first_draw_takes_the_template_from_the_compiled_bank_without_validating_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cached_catalog: Catalog) -> None:
    cache = tmp_path / "variants.db"
    monkeypatch.setattr(cached_catalog, "_fresh", {})  # (another test may have compiled)
    validated = count_validated(monkeypatch)
    first = stored.variant(cached_catalog, "memory/model-state", 3, cache)
    assert validated == [] and isinstance(first.template, stored.TemplateView)
    assert json.dumps(ask_json(first)) == json.dumps(
        ask_json(make_variant(BANK.get("memory/model-state"), 3)))
    assert drawing_rows(cache, "templates") == 1  # kept, so a new seed is no first draw


def test_a_damaged_view_in_the_compiled_bank_only_costs_a_validation(
        tmp_path: Path) -> None:
    want = json.dumps(ask_json(make_variant(BANK.get("memory/model-state"), 3)))
    for case, (sql, value) in enumerate([
            ("UPDATE compiled SET view = ?", zlib.compress(b'{"fields": {}, "part": null}')),
            ("UPDATE compiled SET view = ?", zlib.compress(b"not json")),
            ("UPDATE compiled SET view = ?", b"not zlib"),
            ("UPDATE compiled SET view = ?", "text"),
            ("UPDATE compiled SET view = ?", None),
            ("UPDATE meta SET value = ? WHERE key = 'shape'", '{"Part": {}}'),
            ("DELETE FROM meta WHERE key = 'shape' AND ? IS NULL", None)]):
        bank = tmp_path / str(case) / "bank.db"
        build(bank_files([], cache=bank), bank)
        with sqlite3.connect(bank) as conn:
            conn.execute(sql, (value,))
        catalog = build(bank_files([], cache=bank), bank)
        got = stored.variant(catalog, "memory/model-state", 3, bank.with_name("variants.db"))
        assert not isinstance(got.template, stored.TemplateView), case  # validated
        assert json.dumps(ask_json(got)) == want


def test_a_first_ask_of_a_compiled_template_imports_no_pydantic_and_a_choice_no_sympy(
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
        # a number's first derivations still come from the solver (sympy)
        assert imported == (set() if kind == "choice" else {"sympy", "solver.engine"}), kind
