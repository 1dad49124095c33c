"""One-shot `quiz ask`/`quiz check` (questions.stored): the same output however warm the
data folder, a template edit shows at once, asking or checking a question whose plans
are kept imports neither pydantic nor, except to compare formulas, sympy (issue 15), and
no process of ours is left running once a one-shot command returned (issue 34)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import bundled_bank, bundled_catalog, run_cli
from pydantic import BaseModel

from questions.variants import Variant
from questions.views import View

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


def same(view: object, model: object) -> bool:
    """Whether a stored record reads like the validated model, field by field."""
    if isinstance(model, BaseModel):
        return isinstance(view, View) and all(
            same(getattr(view, name), getattr(model, name)) for name in type(model).model_fields)
    if isinstance(model, list | tuple):
        return type(view) is type(model) and len(view) == len(model) and all(
            same(a, b) for a, b in zip(view, model, strict=True))
    if isinstance(model, dict):
        return isinstance(view, dict) and view.keys() == model.keys() and all(
            same(view[k], model[k]) for k in model)
    return type(view) is type(model) and view == model


def answers(v: Variant, index: int) -> list[str]:
    """Typed answers that reach every branch of a part's grading: the key, what each
    known mistake types (its value, formula, choice or table), an unreadable text and a
    plain wrong one."""
    from quiz.core.selftest import mistake_answer

    pv = v.parts[index - 1]
    out = [pv.key.display, "", "zzz", "0", "7", "a", "6*P*D", "dp: w g o; tp: -"]
    return out + [typed for m in pv.mistakes if (typed := mistake_answer(pv, m)) is not None]


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
    for call in calls:  # draws them, and keeps their plans
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
    fresh_process(data, [call], watch)  # draws, keeps plans, with this sys.path's packs
    printed, imported = fresh_process(data, [call], watch)
    assert printed == want
    # drawn by its questions.kinds module, graded by its quiz.core.kinds one; a formula
    # is read by solver.formula alone (not by the number and choice readers)
    assert imported == {f"quiz.core.kinds.{kind}", f"questions.kinds.{kind}"} | (
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


ONE_SHOT = (["check", "memory/model-state#3", "--answer", "128 GB"],
            ["ask", "compute/flops-formula#2", "--json"],
            ["stats", "--json"],
            ["templates", "list"])


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc")
@pytest.mark.parametrize("call", ONE_SHOT, ids=[c[0] + " " + c[1] for c in ONE_SHOT])
def test_no_process_of_ours_is_left_running_once_a_one_shot_command_returns(
        tmp_path: Path, call: list[str]) -> None:
    """Issue 34: in a new data folder (the bank compiled, plans derived), each command
    ends with every process it started: none carries its environment's mark after."""
    mark = f"QUIZ_TEST_MARK={os.getpid()}-{tmp_path.name}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("QUIZ_")}
    env["QUIZ_TEST_MARK"] = mark.partition("=")[2]
    done = subprocess.run([sys.executable, "-m", "quiz.cli", "--data-dir",
                           str(tmp_path / "data"), *call], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    left = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                environ = (proc / "environ").read_bytes()
            except OSError:  # gone meanwhile, or not ours to read
                continue
            if mark.encode() in environ.split(b"\0"):
                left.append(proc.name)
    assert left == []
