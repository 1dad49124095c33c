"""Issue 33: what `quiz templates validate` passes is what learners see, on every draw.

The located problems of single broken files live in the corpus (`broken/`, checked by
test_broken_templates.py); these are the behaviours that need more than one file, a
command other than `validate`, or the solver's reading of values.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import cpu_guard, run_cli

from questions.loader import TemplateFileError, parse_template
from questions.variants import draw_coverage, make_variant
from quiz.commands.solve import read_sets
from quiz.core.selftest import check_examples
from solver.inputs import parse_value

MODEL_STATE = """
schema = 1
id = "memory/mine"
version = 1
title = "Model state of a drawn model"
topic = "memory"
difficulty = 1
prompt = "How many bytes of model state does {model} need with Adam?"

[params.model]
choices = ["llama3-8b", "llama3-70b"]

[answer]
quantity = "model_state_bytes"

[[mistakes]]
name = "weights only"
set = { bytes_per_param = 2 }
credit = 0.25
feedback = "{mistake} is the BF16 weights alone; add gradients and Adam's state."
"""


@pytest.fixture()
def data(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A fresh data folder (so the real user's templates never leak in)."""
    monkeypatch.delenv("QUIZ_TEMPLATES", raising=False)
    folder = tmp_path / "data"
    monkeypatch.setenv("QUIZ_DATA_DIR", str(folder))
    return folder


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------- 6: binary K


def test_a_sequence_or_vocabulary_length_in_k_counts_1024() -> None:
    assert parse_value("seq", "128K") == 131_072
    assert parse_value("seq", "8k") == 8_192
    assert parse_value("vocab", "128K") == 131_072


def test_parameters_tokens_and_money_keep_the_decimal_k() -> None:
    assert parse_value("params", "8K") == 8_000
    assert parse_value("tokens", "15T") == 15e12
    assert parse_value("price_per_hour", "2") == 2
    assert parse_value("seq", "8192") == 8_192  # a plain number is the number


def test_set_seq_128k_reads_131072_and_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert read_sets(["seq=128K", "params=8K"]) == {"seq": 131_072, "params": 8_000}
    code, out, err = run_cli(capsys, "solve", "kv_cache_bytes", "--model", "llama3-8b",
                             "--set", "seq=128K")
    assert code == 0, err
    assert "Read as: seq = 128K = 131,072 tokens" in out


def test_a_template_value_of_128k_is_131072_tokens() -> None:
    t = parse_template(MODEL_STATE.replace('[answer]', '[fixed]\nseq = "128K"\n\n[answer]'))
    assert make_variant(t, 0).inputs.values["seq"] == 131_072


# ---------------------------------------------------------------- 3: duplicates


def test_a_duplicate_in_another_folder_blames_the_file_the_app_skips(
    capsys: pytest.CaptureFixture[str], data: Path, tmp_path: Path
) -> None:
    mine = write(data / "templates" / "memory" / "mine.toml", MODEL_STATE)
    other = write(tmp_path / "more" / "memory" / "copy.toml", MODEL_STATE)
    # validating the copy (read after the data folder): the copy is skipped
    code, out, _ = run_cli(capsys, "templates", "validate", str(other), "--templates",
                           str(tmp_path / "more"))
    assert code == 1
    assert f"{other}:3: id: duplicate id 'memory/mine': the app already loads it from " \
        f"{mine}" in out
    # validating the one the app keeps names the other as skipped
    code, out, _ = run_cli(capsys, "templates", "validate", str(mine), "--templates",
                           str(tmp_path / "more"))
    assert code == 1
    assert f"{other}:3: id: duplicate id 'memory/mine': the app loads {mine} first" in out


def test_test_of_a_file_checks_its_id_against_the_bank(
    capsys: pytest.CaptureFixture[str], data: Path, tmp_path: Path
) -> None:
    copy = write(tmp_path / "x.toml", MODEL_STATE.replace("memory/mine", "memory/model-state"))
    code, out, _ = run_cli(capsys, "templates", "test", str(copy), "--seeds", "2")
    assert code == 1
    assert f"{copy}:3: id: duplicate id 'memory/model-state': the app already loads" in out


# ---------------------------------------------------------------- 5: examples


def test_an_example_with_placeholders_is_checked_on_every_seed() -> None:
    t = parse_template(MODEL_STATE + """
[[examples]]
answer = "{mistake:weights only}"
verdict = "partial"
mistake = "weights only"

[[examples]]
answer = "{expr:model_state_bytes}"
verdict = "correct"
""")
    assert check_examples(t, 10) == []
    # a figure copied from one preview holds on the seeds that draw that model only
    fixed = parse_template(MODEL_STATE + """
[[examples]]
answer = "{expr:1.13e12}"
verdict = "correct"
""")
    models = [make_variant(fixed, s).params["model"] for s in range(10)]
    failures = check_examples(fixed, 10)
    assert len(failures) == 1
    assert models[failures[0].seed] != "llama3-70b"


def test_a_failing_example_names_its_seed_and_parameters(
    capsys: pytest.CaptureFixture[str], data: Path, tmp_path: Path
) -> None:
    path = write(tmp_path / "memory" / "mine.toml", MODEL_STATE + """
[[examples]]
answer = "{expr:1.13e12}"
verdict = "correct"
""")
    code, out, _ = run_cli(capsys, "templates", "validate", str(path), "--seeds", "10")
    assert code == 1
    assert "examples[0]: '{expr:1.13e12}' (here" in out and "draws model = Llama 3 8B" in out


def test_a_choice_example_is_reported_in_the_files_letters() -> None:
    t = parse_template("""
schema = 1
id = "parallelism/axis"
title = "Which axis splits the sequence?"
topic = "parallelism"
answer_kind = "choice"
prompt = "Which axis splits the sequence?"
choices = ["data", "tensor", "context", "pipeline"]

[answer]
correct = ["c"]
explanation = "Context parallelism splits the sequence."

[[examples]]
answer = "b"
verdict = "correct"
""")
    failures = check_examples(t, 5)
    assert failures and "'b' (the key here is c, in the file's letters)" in failures[0].reason


# ---------------------------------------------------------------- 5, 7: preview


def test_preview_shows_every_mistakes_feedback_with_its_figure(
    capsys: pytest.CaptureFixture[str], data: Path, tmp_path: Path
) -> None:
    path = write(tmp_path / "memory" / "mine.toml", MODEL_STATE)
    code, out, _ = run_cli(capsys, "templates", "preview", str(path))
    assert code == 0
    v = make_variant(parse_template(MODEL_STATE), 0)
    figure = v.parts[0].mistakes[0].feedback.split(" is ")[0]
    assert figure.endswith("GB")
    assert f"weights only: {figure} is the BF16 weights alone" in out


def test_preview_of_an_exact_count_shows_no_tolerance(
    capsys: pytest.CaptureFixture[str], data: Path, tmp_path: Path
) -> None:
    path = write(tmp_path / "pipeline" / "count.toml", """
schema = 1
id = "pipeline/count"
title = "Micro-batches in a step"
topic = "pipeline"
prompt = '''
A step of {global_batch} sequences in micro-batches of {micro_batch} on {dp} ranks: how
many micro-batches does each rank run?
'''
fixed = { global_batch = 512, micro_batch = 2, dp = 8, gpus = 8 }

[answer]
expr = "global_batch / (micro_batch * dp)"
unit = "1"
count = "exact"
""")
    code, out, err = run_cli(capsys, "templates", "preview", str(path))
    assert code == 0, err
    key = next(line for line in out.splitlines() if line.startswith("Key:"))
    assert "graded exactly" in key and "tolerance" not in key


# ---------------------------------------------------------------- 4: coverage


def test_draw_coverage_names_the_choice_the_solver_always_refuses() -> None:
    t = parse_template("""
schema = 1
id = "pipeline/bubble"
title = "Bubble"
topic = "pipeline"
prompt = "{model} on pp = {pp} with m = {microbatches}: what share is bubble?"
fixed = { pp = 4, microbatches = 16 }

[params.model]
choices = ["llama3-8b", "llama3-405b"]

[answer]
quantity = "pp_bubble"
""")
    report = draw_coverage(t, 20)
    assert report.kept and report.rejected
    (loc, reason), = [w for w in report.warnings() if "405b" in w[1]]
    assert loc == ["params", "model"]
    assert "never drawn" in reason and "not divisible by pp*interleave" in reason


# ---------------------------------------------------------------- hostile input


def test_an_example_expression_runs_nothing_and_is_refused_on_its_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []

    def system(command: str) -> int:
        calls.append(command)
        return 0

    monkeypatch.setattr(os, "system", system)
    text = MODEL_STATE + """
[[examples]]
answer = "{expr:__import__('os').system('true')}"
verdict = "correct"
"""
    with pytest.raises(TemplateFileError) as caught:
        parse_template(text, "x.toml")
    (problem,) = caught.value.problems
    assert problem.field == "examples[0].answer" and problem.line == text.count("\n") - 1
    assert calls == []


@pytest.mark.parametrize("answer", ["{expr:9**9**9**9}", "{expr:" + "(" * 300 + "1" +
                                    ")" * 300 + "}", "{mistake:" + "x" * 5000 + "}",
                                    "{part:99999999999999999999}", "{expr:1/0}"])
def test_hostile_example_placeholders_fail_cleanly(answer: str) -> None:
    with cpu_guard(20):
        try:
            t = parse_template(MODEL_STATE + f"""
[[examples]]
answer = "{answer}"
verdict = "correct"
""")
        except TemplateFileError as exc:
            assert exc.problems  # refused when it is read
            return
        failures = check_examples(t, 3)
    assert len(failures) == 1 and failures[0].example == 0


@pytest.mark.parametrize("value", ["9" * 5000 + "K", "1e400K", "K", "-8K", "8 KK", "٨K"])
def test_hostile_length_values_are_refused_in_one_line(
    capsys: pytest.CaptureFixture[str], value: str
) -> None:
    code, _, err = run_cli(capsys, "solve", "kv_cache_bytes", "--model", "llama3-8b",
                             "--set", f"seq={value}")
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_the_self_test_catches_a_choice_mistake_that_is_a_drawn_branchs_key() -> None:
    # validate refuses it on load; the per-seed check holds for what gets past it
    import tomllib

    from questions.schema import Template
    from quiz.core.selftest import check_template

    text = (Path(__file__).parent / "broken" / "choice_mistake_key_in_a_branch.toml"
            ).read_text(encoding="utf-8")
    failures = check_template(Template.model_validate(tomllib.loads(text)), 5)
    assert any("picks the key of this draw" in f.reason
               for f in failures)
