"""Variants read back from the cache (questions.stored) ask and grade exactly like drawn
ones, a template edit draws again, and asking or checking a question from the cache
imports neither pydantic nor, except to compare formulas, sympy (issue 15: `quiz ask`
and `quiz check` one-shot speed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import bundled_bank, bundled_catalog, run_cli
from pydantic import BaseModel

from questions import stored
from questions.catalog import Catalog, build
from questions.variants import Variant, make_variant
from quiz.commands.ask import ask_json, check_json, render_ask

CATALOG = bundled_catalog()
BANK = bundled_bank()
SEEDS = (0, 7)

TEMPLATE = """\
id = "mine/state"
version = 1
title = "Model state"
topic = "memory"
difficulty = 1
prompt = "How many bytes of model state does {model.title} need with Adam?"

[params]
model = {choices = ["llama3-8b", "llama3-70b"]}

[answer]
quantity = "model_state_bytes"
"""


def round_trip(v: Variant, catalog: Catalog = CATALOG) -> Variant:
    """Through the JSON text the cache keeps."""
    return stored.from_json(catalog, v.seed, json.loads(json.dumps(stored.to_json(v))))


def same(view: object, model: object) -> bool:
    """Whether a stored record reads like the validated model, field by field."""
    if isinstance(model, BaseModel):
        return isinstance(view, stored.View) and all(
            same(getattr(view, name), getattr(model, name)) for name in type(model).model_fields)
    if isinstance(model, list | tuple):
        return type(view) is type(model) and len(view) == len(model) and all(
            same(a, b) for a, b in zip(view, model, strict=True))
    if isinstance(model, dict):
        return isinstance(view, dict) and view.keys() == model.keys() and all(
            same(view[k], model[k]) for k in model)
    return type(view) is type(model) and view == model


def answers(v: Variant, index: int) -> list[str]:
    """Typed answers that reach every branch of a part's grading: the key, each known
    mistake's value or formula or choice, an unreadable text and a plain wrong one."""
    pv = v.parts[index - 1]
    out = [pv.key.display, "", "zzz", "0", "7", "a", "6*P*D", "dp: w g o; tp: -"]
    for m in pv.mistakes:
        if m.formula:
            out.append(m.formula)
        elif m.choice:
            out.append(", ".join(m.choice))
        elif m.value is not None and pv.key.unit is not None:
            from solver.units import format_value

            out.append(format_value(m.value, pv.key.unit))
    return out


@pytest.mark.parametrize("tid", sorted(BANK.templates))
def test_a_stored_variant_asks_and_grades_byte_for_byte_like_a_drawn_one(tid: str) -> None:
    for seed in SEEDS:
        drawn = make_variant(BANK.get(tid), seed)
        back = round_trip(drawn)
        assert json.dumps(ask_json(back), indent=2) == json.dumps(ask_json(drawn), indent=2)
        assert render_ask(back) == render_ask(drawn)
        for pv, bpv in zip(drawn.parts, back.parts, strict=True):
            assert same(bpv.spec, pv.spec)
            assert (bpv.key, bpv.mistakes, bpv.accepted, bpv.labels, bpv.env) == (
                pv.key, pv.mistakes, pv.accepted, pv.labels, pv.env)
            if pv.kind == "spoken":  # a paragraph: the model answer and one wrong figure
                texts = [pv.key.display, "It needs about 3 GB."]
            else:
                texts = answers(drawn, pv.index)
            for text in texts:
                earlier = [p.key.display for p in drawn.parts[:pv.index - 1]]
                want, _ = check_json(drawn, pv.index, text, earlier)
                got, _ = check_json(back, bpv.index, text, earlier)
                assert json.dumps(got, indent=2) == json.dumps(want, indent=2), text


def scenario(folder: Path) -> Catalog:
    """A bank of the follow-through example of AUTHORING.md."""
    guide = (Path(__file__).parents[2] / "AUTHORING.md").read_text(encoding="utf-8")
    section = guide.split("#### Worked example: a scenario with follow-through", 1)[1]
    file = folder / "scenario.toml"
    file.write_text(section.split("```toml\n", 1)[1].split("```", 1)[0], encoding="utf-8")
    return build([file])


def test_a_stored_part_follows_through_from_earlier_answers_like_a_drawn_one(
        tmp_path: Path) -> None:
    catalog = scenario(tmp_path)
    (tid,) = catalog.ids
    drawn = make_variant(catalog.templates([tid])[tid], 0)
    back = round_trip(drawn, catalog)
    for earlier, part, text in [(["3 TB"], 2, "46.9 GB"), (["3 TB", "46.9 GB"], 3, "16.7")]:
        want, g = check_json(drawn, part, text, earlier)
        got, _ = check_json(back, part, text, earlier)
        assert g.feedback.startswith("Carried forward")
        assert json.dumps(got) == json.dumps(want)


def test_the_cache_returns_the_stored_variant_and_draws_again_after_an_edit(
        tmp_path: Path) -> None:
    cache = tmp_path / "variants.db"
    file = tmp_path / "state.toml"
    file.write_text(TEMPLATE, encoding="utf-8")
    first = stored.variant(build([file]), "mine/state", 3, cache)
    again = stored.variant(build([file]), "mine/state", 3, cache)
    assert isinstance(again.template, stored.View)  # read back, not drawn or validated
    assert ask_json(again) == ask_json(first)
    file.write_text(TEMPLATE.replace('"Model state"', '"Edited"'), encoding="utf-8")
    edited = build([file])
    after = stored.variant(edited, "mine/state", 3, cache)
    assert not isinstance(after.template, stored.View)  # drawn again
    assert ask_json(after) == ask_json(make_variant(edited.templates()["mine/state"], 3))
    assert ask_json(after)["title"] == "Edited" != ask_json(first)["title"]


def test_a_damaged_cache_only_costs_a_draw(tmp_path: Path) -> None:
    cache = tmp_path / "variants.db"
    cache.write_bytes(b"not a database" * 100)
    want = ask_json(make_variant(BANK.get("memory/model-state"), 1))
    assert ask_json(stored.variant(CATALOG, "memory/model-state", 1, cache)) == want
    assert ask_json(stored.variant(CATALOG, "memory/model-state", 1, cache)) == want
    import sqlite3

    for damaged in ('{"parts": 1}', '{"template": {"$set": 1}}', "[]"):
        with sqlite3.connect(cache) as conn:  # a record of another shape: drawn again
            conn.execute("UPDATE variants SET data = ?", (damaged,))
        assert ask_json(stored.variant(CATALOG, "memory/model-state", 1, cache)) == want


def test_a_cache_locked_by_another_process_is_kept_and_only_costs_a_draw(
        tmp_path: Path) -> None:
    cache = tmp_path / "cache folder #1" / "variants.db"  # a path that needs quoting
    stored.variant(CATALOG, "memory/model-state", 1, cache)
    import sqlite3

    holder = sqlite3.connect(cache)
    holder.execute("BEGIN EXCLUSIVE")  # another process writing: reads and writes wait
    try:
        got = stored.variant(CATALOG, "memory/model-state", 2, cache)
    finally:
        holder.rollback()
        holder.close()
    assert ask_json(got) == ask_json(make_variant(BANK.get("memory/model-state"), 2))
    back = stored.variant(CATALOG, "memory/model-state", 1, cache)  # still there
    assert isinstance(back.template, stored.View)


def test_the_cache_keeps_a_bounded_number_of_variants(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stored, "MAX_ROWS", 3)
    cache = tmp_path / "variants.db"
    for seed in range(6):
        stored.variant(CATALOG, "memory/model-state", seed, cache)
    import sqlite3

    with sqlite3.connect(cache) as conn:
        kept = [r[0] for r in conn.execute("SELECT variant FROM variants ORDER BY rowid")]
    assert kept == [f"memory/model-state#{s}" for s in (3, 4, 5)]




def test_quiz_ask_and_check_json_are_the_same_cold_warm_and_after_an_edit(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mine = tmp_path / "mine" / "memory"
    mine.mkdir(parents=True)
    (mine / "state.toml").write_text(TEMPLATE, encoding="utf-8")
    base = ["--data-dir", str(tmp_path / "data"), "--templates", str(tmp_path / "mine")]
    calls = [["ask", "mine/state#2", "--json"], ["ask", "mine/state#2"],
             ["check", "mine/state#2", "--answer", "1.13 TB", "--json"],
             ["check", "mine/state#2", "--answer", "0.5 TB"]]
    cold = [run_cli(capsys, *base, *c) for c in calls]
    warm = [run_cli(capsys, *base, *c) for c in calls]
    assert warm == cold and all(code == 0 for code, _, _ in cold)
    (mine / "state.toml").write_text(TEMPLATE.replace("with Adam", "with Adam (edited)"),
                                     encoding="utf-8")
    edited = run_cli(capsys, *base, *calls[0])
    assert "(edited)" in json.loads(edited[1])["prompt"]


HEAVY = ("sympy", "pydantic", "textual", "solver.engine")


def fresh_process(data: str, calls: list[list[str]],
                  watch: tuple[str, ...] = HEAVY) -> tuple[str, set[str]]:
    """Run `quiz --data-dir DATA CALL...` for each call in one new Python process: what
    they printed, and which of the `watch` modules (by default sympy, pydantic, textual
    and solver.engine) it imported."""
    script = ("import contextlib, io, sys\n"
              "from quiz.cli import main\n"
              "out = io.StringIO()\n"
              f"for call in {calls!r}:\n"
              "    with contextlib.redirect_stdout(out):\n"
              f"        assert main(['--data-dir', {data!r}, *call]) == 0\n"
              "print(out.getvalue(), end='')\n"
              f"print('imported:', *(m for m in {watch!r} if m in sys.modules))\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("QUIZ_")}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, check=True).stdout
    printed, _, imported = out.rpartition("imported:")
    return printed, set(imported.split())


def test_asking_and_checking_number_and_choice_answers_from_the_cache_import_no_sympy_or_pydantic(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = str(tmp_path / "data")
    calls = [["ask", "memory/model-state#3", "--json"],
             ["check", "memory/model-state#3", "--answer", "128 GB", "--json"],
             ["ask", "parallelism/activations-only-axis#1"],
             ["check", "parallelism/activations-only-axis#1", "--answer", "b"]]
    want = ""
    for call in calls:  # draws and stores them
        code, out, _ = run_cli(capsys, "--data-dir", data, *call)
        assert code == 0
        want += out
    assert fresh_process(data, calls) == (want, set())


def test_checking_a_formula_from_the_cache_imports_sympy_but_no_pydantic(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = str(tmp_path / "data")
    call = ["check", "compute/flops-formula#0", "--answer", "2*P*D", "--json"]
    _, want, _ = run_cli(capsys, "--data-dir", data, *call)
    assert fresh_process(data, [call]) == (want, {"sympy"})


KIND_MODULES = tuple(f"{package}.{kind}" for package in ("questions.kinds", "quiz.core.kinds")
                     for kind in ("number", "formula", "choice", "table", "layout", "spoken"))


@pytest.mark.parametrize(("call", "kind"), [
    (["check", "memory/model-state#3", "--answer", "128 GB", "--json"], "number"),
    (["ask", "parallelism/activations-only-axis#1", "--json"], "choice"),
    (["check", "compute/flops-formula#0", "--answer", "2*P*D", "--json"], "formula")])
def test_a_one_shot_command_from_a_warm_cache_imports_only_its_own_kind_and_no_toml_reader(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], call: list[str],
        kind: str) -> None:
    data = str(tmp_path / "data")
    _, want, _ = run_cli(capsys, "--data-dir", data, *call)
    watch = (*KIND_MODULES, "quiz.core.rubric", "quiz.core.reading", "tomllib", "pickle",
             "zipfile")
    fresh_process(data, [call], watch)  # draws and stores, with this sys.path's packs
    printed, imported = fresh_process(data, [call], watch)
    assert printed == want
    # quiz.core.kinds.number reads the count mode from questions.kinds.number; a
    # formula is read by solver.formula alone (not by the number and choice readers)
    assert imported == {f"quiz.core.kinds.{kind}"} | (
        {"questions.kinds.number"} if kind == "number" else set()) | (
        set() if kind == "formula" else {"quiz.core.reading"})


def quiz_process(data: str, *call: str, before: str = "") -> subprocess.CompletedProcess[str]:
    """`quiz --data-dir DATA CALL...` as its own process, through :func:`quiz.cli.main`
    as the console script calls it (no arguments: it reads sys.argv), after `before`."""
    script = (f"import sys\n{before}\nfrom quiz.cli import main\n"
              f"sys.argv = ['quiz', '--data-dir', {data!r}, *{list(call)!r}]\n"
              "sys.exit(main())\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("QUIZ_")}
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=120)


def test_ask_and_check_as_processes_print_the_same_and_end_without_the_interpreters_clean_up(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = str(tmp_path / "data")
    calls = [["ask", "compute/flops-formula#4", "--json"],
             ["check", "compute/flops-formula#4", "--answer", "6 P D", "--json"],
             ["check", "memory/model-state#3", "--answer", "128 GB"]]
    cleaned = "import atexit; atexit.register(print, 'cleaned up')"
    for call in calls:
        want = run_cli(capsys, "--data-dir", data, *call)
        done = quiz_process(data, *call, before=cleaned)
        assert (done.returncode, done.stdout, done.stderr) == want
        assert "cleaned up" not in done.stdout  # the exit handler never ran
    # A command that fails exits the ordinary way, and so does one with a thread alive.
    failed = quiz_process(data, "check", "no/such-template#1", "--answer", "1",
                          before=cleaned)
    assert failed.returncode == 2 and failed.stdout == "cleaned up\n"
    # (a thread that ends only when the interpreter shuts down: it waits for the main one)
    threaded = quiz_process(data, *calls[0], before=cleaned + "\nimport threading\n"
                            "threading.Thread(target=threading.main_thread().join).start()")
    assert threaded.returncode == 0 and threaded.stdout.endswith("}\ncleaned up\n")
    profiled = quiz_process(data, *calls[0], before=cleaned + "\nsys.setprofile(lambda *a: None)")
    assert profiled.returncode == 0 and profiled.stdout.endswith("}\ncleaned up\n")
