"""The derivation plans shipped with the package (solver/plans.tsv, solver.shipped):
current with the engine, ignored when written by other solver code, read below the data
folder's plans, and enough for a new data folder's first ``quiz solve``, ``quiz layout``
and draw of a bundled number template to import no sympy."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import FULL, run_cli

from questions import plancache, shipplans
from solver import light, shipped

SOLVE = ["solve", "memory_per_gpu", "--model", "llama3-70b", "--gpu", "h100", "--set", "tp=8",
         "--set", "gpus=512", "--set", "zero=3", "--json"]
LAYOUT = ["layout", "--model", "llama3-70b", "--gpu", "h100", "--set", "gpus=512", "--set",
          "seq=8192", "--set", "global_batch=1024", "--json"]
CHECK = ["check", "memory/model-state#5", "--answer", "128 GB", "--json"]


def test_the_shipped_plans_were_written_by_this_solver_code() -> None:
    # The file's first line is the digest of the solver's code: a change there without
    # `python -m questions.shipplans --update` leaves the file unread (empty).
    shipped.forget()
    assert shipped.plans(), f"run {shipplans.UPDATE}"


@pytest.mark.skipif(not FULL, reason="the whole re-derivation (~5 s of CPU) runs under "
                    "QUIZ_FUZZ=full (CI); locally the digest test above catches a solver "
                    "change")
def test_the_shipped_plans_are_what_the_engine_derives_now() -> None:
    found = shipplans.problems()
    assert not found, "\n".join(found)  # the last line says: python -m questions.shipplans --update


def _keys_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The keys a first solve of the 70B model's memory per GPU asks the shipped file
    for, in order (in a new plans file)."""
    asked: list[str] = []
    real = shipped.get

    def recording(key: str) -> str | None:
        asked.append(key)
        return real(key)

    monkeypatch.setattr(shipped, "get", recording)
    with light.using(plancache.PlanFile(tmp_path / "first.db")):
        light.result("memory_per_gpu", model="llama3-70b", gpu="h100")
    return asked


def test_a_file_written_by_other_solver_code_is_ignored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = shipped.get
    asked = _keys_asked(tmp_path, monkeypatch)
    key = next(k for k in asked if k.startswith('["memory_per_gpu"'))
    assert real(key) is not None  # shipped
    stale = tmp_path / "plans.tsv"
    shipped.write({key: "{}"}, stale)
    stale.write_text(stale.read_text(encoding="utf-8").replace(shipped.code_digest(),
                                                               "other code", 1),
                     encoding="utf-8")
    monkeypatch.setattr(shipped, "FILE", stale)
    shipped.forget()
    try:
        assert real(key) is None and real(light.CATALOGUE_KEY) is None
        source = plancache.PlanFile(tmp_path / plancache.FILE)
        with light.using(source):  # derived anew, and kept in the data folder
            got = light.result("memory_per_gpu", model="llama3-70b", gpu="h100")
        assert source.get(key) is not None
    finally:
        shipped.forget()
    from solver.engine import solve

    assert got.to_json() == solve("memory_per_gpu", model="llama3-70b", gpu="h100").to_json()


@pytest.mark.parametrize("damage", [
    "index points at another row", "index out of the file", "index not JSON",
    "index not a table", "offsets not numbers", "file cut short", "no index line",
    "row not UTF-8"])
def test_a_damaged_shipped_file_answers_nothing_and_raises_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str) -> None:
    """Hostile: the file under the current digest, damaged; each lookup reads only its
    row through the index, so a wrong index must answer None (the plan is derived), never
    another key's text, and never raise."""
    texts = {"a": '{"x": 1}', "b": '{"y": 2}'}
    file = tmp_path / "plans.tsv"
    shipped.write(texts, file)
    head, index, rows = file.read_bytes().split(b"\n", 2)
    index_of = json.loads(index.partition(b"\t")[2])
    if damage == "index points at another row":
        index_of["a"] = index_of["b"]
    elif damage == "index out of the file":
        index_of["a"] = [10**9, 10]
    elif damage == "offsets not numbers":
        index_of["a"] = ["x", None]
    elif damage == "index not a table":
        index_of = [1, 2]
    new_index = b"index\t" + json.dumps(index_of).encode()
    if damage == "index not JSON":
        new_index = b"index\t{not json"
    body = rows[:5] if damage == "file cut short" else rows  # inside row "a"
    if damage == "row not UTF-8":
        body = rows.replace(b'{"x": 1}', b'{"x": \xff}')
    parts = [head, body] if damage == "no index line" else [head, new_index, body]
    file.write_bytes(b"\n".join(parts))
    monkeypatch.setattr(shipped, "FILE", file)
    shipped.forget()
    try:
        assert shipped.get("a") is None
        assert shipped.get("missing") is None
        if damage in ("index points at another row", "index out of the file",
                      "offsets not numbers", "row not UTF-8"):
            assert shipped.get("b") == texts["b"]  # the rest of the file still reads
    finally:
        shipped.forget()


def test_a_lookup_reads_one_row_and_all_rows_read_back(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    texts = {f'["q{i}", [1, "x\\u00e9"]]': json.dumps({"n": i, "s": "é" * i})
             for i in range(50)}
    file = tmp_path / "plans.tsv"
    shipped.write(texts, file)
    monkeypatch.setattr(shipped, "FILE", file)
    shipped.forget()
    try:
        assert shipped.plans() == texts
        assert all(shipped.get(k) == v for k, v in texts.items())
    finally:
        shipped.forget()


def test_a_plan_the_data_folder_lacks_is_read_from_the_package_and_not_copied(
        tmp_path: Path) -> None:
    source = plancache.PlanFile(tmp_path / plancache.FILE)
    with light.using(source):
        light.result("memory_per_gpu", model="llama3-70b", gpu="h100",
                     overrides={"tp": "8", "gpus": "512", "zero": "3"})
    source.save()
    assert not (tmp_path / plancache.FILE).exists()


def _imports_sympy(data: Path, call: list[str]) -> tuple[bool, str]:
    """Run ``quiz --data-dir DATA CALL`` as a new process: whether it imported sympy
    (``-X importtime`` lists every module imported), and what it printed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("QUIZ_")}
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "quiz.cli",
                           "--data-dir", str(data), *call], capture_output=True, text=True,
                          env=env, check=True)
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()
                if line.startswith("import time:")}
    return "sympy" in imported, done.stdout


@pytest.mark.parametrize("call", [SOLVE, LAYOUT], ids=["solve", "layout"])
def test_a_first_solve_or_layout_in_a_new_data_folder_imports_no_sympy(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], call: list[str]) -> None:
    sympy, printed = _imports_sympy(tmp_path / "new", call)
    assert not sympy
    assert not (tmp_path / "new" / "cache" / plancache.FILE).exists()  # nothing derived
    code, want, _ = run_cli(capsys, "--data-dir", str(tmp_path / "other"), *call)
    assert code == 0 and json.loads(printed) == json.loads(want)


def test_a_first_check_of_a_bundled_number_template_draws_with_no_sympy(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The compiled bank comes from another folder: compiling it (the first command's
    # other cost) is the bank's business; the draw is the shipped plans'.
    code, want, _ = run_cli(capsys, "--data-dir", str(tmp_path / "other"), "templates", "list")
    assert code == 0
    shutil.copytree(tmp_path / "other" / "cache", tmp_path / "new" / "cache")
    (tmp_path / "new" / "cache" / plancache.FILE).unlink(missing_ok=True)
    sympy, printed = _imports_sympy(tmp_path / "new", CHECK)
    assert not sympy
    assert not (tmp_path / "new" / "cache" / plancache.FILE).exists()
    code, want, _ = run_cli(capsys, "--data-dir", str(tmp_path / "third"), *CHECK)
    assert code == 0 and json.loads(printed) == json.loads(want)


def _poisoned(text: str) -> str:
    """A plan's JSON text with every step's code made to call into ``os``."""
    def walk(node: object) -> object:
        if isinstance(node, str) and node.startswith("def _lambdifygenerated("):
            return node.split("\n")[0] + "\n    return __import__('os').getpid()"
        if isinstance(node, list):
            return [walk(x) for x in node]
        if isinstance(node, dict):
            return {k: walk(v) for k, v in node.items()}
        return node
    poisoned = json.dumps(walk(json.loads(text)))
    assert "__import__" in poisoned  # the plan had code to poison
    return poisoned


def test_a_shipped_plan_whose_code_is_not_arithmetic_is_refused_and_derived(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hostile: the shipped file under the current digest, its plan's code calling into
    ``os``. The whitelist refuses it (nothing runs), the engine derives the plan, and the
    answer is the engine's, inside a plans source and outside one."""
    real = shipped.get
    asked = _keys_asked(tmp_path, monkeypatch)
    monkeypatch.setattr(shipped, "get", real)
    keys = [k for k in asked if real(k) is not None and k != light.CATALOGUE_KEY]
    hostile = tmp_path / "plans.tsv"
    shipped.write({k: _poisoned(str(real(k))) for k in keys}, hostile)
    monkeypatch.setattr(shipped, "FILE", hostile)
    shipped.forget()
    light._SHIPPED_PLANS.clear()
    called: list[int] = []

    def getpid() -> int:
        called.append(1)
        return 1

    monkeypatch.setattr(os, "getpid", getpid)
    try:
        with light.using(plancache.PlanFile(tmp_path / plancache.FILE)):
            inside = light.result("memory_per_gpu", model="llama3-70b", gpu="h100")
        outside = light.result("memory_per_gpu", model="llama3-70b", gpu="h100")
    finally:
        shipped.forget()
        light._SHIPPED_PLANS.clear()
    from solver.engine import solve

    want = solve("memory_per_gpu", model="llama3-70b", gpu="h100").to_json()
    assert called == [] and inside.to_json() == want and outside.to_json() == want
