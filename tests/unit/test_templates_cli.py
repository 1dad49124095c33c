"""`quiz templates ...` as an author uses it: list, show, new, validate, test, preview,
schema, with user folders and broken files around."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from helpers import run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from questions import schema
from questions.fielddocs import _models_in
from questions.kinds import number
from questions.loader import parse_template
from questions.reference import reference_markdown
from questions.scaffold import scaffold
from quiz.cli import main
from quiz.core.selftest import check_template

ROOT = Path(__file__).parents[2]
BROKEN = Path(__file__).parent / "broken"


@pytest.fixture()
def data(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A fresh data folder (so the real user's templates never leak in)."""
    monkeypatch.delenv("QUIZ_TEMPLATES", raising=False)
    folder = tmp_path / "data"
    monkeypatch.setenv("QUIZ_DATA_DIR", str(folder))
    return folder


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code, out, err = run_cli(capsys, "templates", *argv)
    assert "Traceback" not in out + err
    return code, out, err


def copy(src: Path, dst: Path) -> Path:
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_text(src.read_text(encoding="utf-8"), encoding="utf-8")
    return dst


# ---------------------------------------------------------------- list


def test_list_json_has_the_contract_shape(
    capsys: pytest.CaptureFixture[str], data: Path
) -> None:
    code, out, err = run(capsys, "list", "--json")
    rows = json.loads(out)
    assert code == 0 and err == ""
    assert rows and all(set(r) == {"id", "title", "topic", "tags", "difficulty",
                                   "answer_kind", "pack"} for r in rows)
    by_id = {r["id"]: r for r in rows}
    assert by_id["memory/model-state"]["answer_kind"] == "number"
    assert by_id["compute/flops-formula"]["answer_kind"] == "formula"
    assert "rapid-fire-1" in by_id["memory/model-state"]["tags"]
    assert [r["id"] for r in rows] == sorted(by_id)


def test_list_includes_templates_from_a_templates_folder(
    capsys: pytest.CaptureFixture[str], data: Path, tmp_path: Path
) -> None:
    mine = tmp_path / "mine"
    (mine / "memory").mkdir(parents=True)
    (mine / "memory" / "kv.toml").write_text(scaffold("memory/kv"), encoding="utf-8")
    code, out, _ = run(capsys, "list", "--templates", str(mine), "--json")
    assert code == 0 and "memory/kv" in {r["id"] for r in json.loads(out)}
    code, out, _ = run(capsys, "list", "--templates", str(mine))
    assert code == 0 and re.search(r"^memory/kv\s+memory\s+number\s+1\s", out, re.M)
    assert "(1 from your folders)" in out


def test_list_reads_the_quiz_templates_variable(
    capsys: pytest.CaptureFixture[str], data: Path, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    mine = tmp_path / "env"
    mine.mkdir()
    (mine / "kv.toml").write_text(scaffold("inference/kv-env"), encoding="utf-8")
    monkeypatch.setenv("QUIZ_TEMPLATES", str(mine))
    _, out, _ = run(capsys, "list", "--json")
    assert "inference/kv-env" in {r["id"] for r in json.loads(out)}


def test_broken_user_templates_are_skipped_with_a_warning_and_list_still_works(
    capsys: pytest.CaptureFixture[str], data: Path
) -> None:
    code, out, err = run(capsys, "list", "--templates", str(BROKEN), "--json")
    assert code == 0
    assert "memory/model-state" in {r["id"] for r in json.loads(out)}
    warnings = err.splitlines()
    assert warnings and all(w.startswith("warning: skipped ") for w in warnings)
    # Every file is skipped with a located warning, except the one that loads: the files
    # that only fail the self-test (not run by `list`) share one id, so all but the first
    # of them are skipped as duplicates.
    unnamed = [p.name for p in BROKEN.glob("*.toml") if f"{p}:" not in err]
    assert len(unnamed) == 1
    assert [r["id"] for r in json.loads(out)].count("memory/broken-example") == 1
    assert f"{BROKEN / 'misspelled_quantity.toml'}:15: answer.quantity: unknown quantity" in err


def test_duplicate_ids_are_reported(
    capsys: pytest.CaptureFixture[str], data: Path, tmp_path: Path
) -> None:
    mine = tmp_path / "dups"
    for name in ("a", "b"):
        copy(ROOT / "questions/bank/memory/model-state.toml", mine / f"{name}.toml")
    (mine / "kv1.toml").write_text(scaffold("memory/kv"), encoding="utf-8")
    (mine / "kv2.toml").write_text(scaffold("memory/kv"), encoding="utf-8")
    code, out, err = run(capsys, "list", "--templates", str(mine), "--json")
    assert code == 0
    assert [r["id"] for r in json.loads(out)].count("memory/kv") == 1
    assert f"{mine / 'kv2.toml'}:" in err and "duplicate id 'memory/kv'" in err
    assert err.count("duplicate id 'memory/model-state'") == 2

    code, out, _ = run(capsys, "validate", str(mine / "kv1.toml"), str(mine / "kv2.toml"),
                       str(mine / "a.toml"))
    assert code == 1
    assert f"{mine / 'kv2.toml'}:14: id: duplicate id 'memory/kv'" in out
    # the bank's file is read first, so the app skips a.toml: the problem is a.toml's
    assert re.search(rf"^{re.escape(str(mine / 'a.toml'))}:2: id: duplicate id "
                     r"'memory/model-state': the app already loads it from "
                     r".*bank/memory/model-state.toml, so it skips this file", out, re.M)


def test_a_missing_templates_folder_is_a_warning(
    capsys: pytest.CaptureFixture[str], data: Path, tmp_path: Path
) -> None:
    code, _, err = run(capsys, "list", "--templates", str(tmp_path / "nope"))
    assert code == 0 and "does not exist" in err


# ---------------------------------------------------------------- new, validate, test


def test_new_then_validate_then_test_is_green(
    capsys: pytest.CaptureFixture[str], data: Path
) -> None:
    code, out, _ = run(capsys, "new", "memory/kv-cache")
    path = Path(out.strip())
    assert code == 0
    assert path == data / "templates" / "memory" / "kv-cache.toml"
    assert path.read_text(encoding="utf-8").startswith("# A question template")
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 0, out
    assert out.startswith(f"{path}: ok (memory/kv-cache")
    code, out, _ = run(capsys, "test", str(path))
    assert code == 0, out
    assert re.search(r"^memory/kv-cache\s+20\s+103/103\s+0$", out, re.M)
    # and the app sees it: it is in the user folder
    _, out, _ = run(capsys, "list", "--json")
    assert "memory/kv-cache" in {r["id"] for r in json.loads(out)}


def test_new_writes_into_dir_by_topic_and_refuses_to_overwrite(
    capsys: pytest.CaptureFixture[str], data: Path, tmp_path: Path
) -> None:
    code, out, _ = run(capsys, "new", "inference/kv", "--dir", str(tmp_path / "t"))
    assert code == 0 and Path(out.strip()) == tmp_path / "t" / "inference" / "kv.toml"
    before = (tmp_path / "t" / "inference" / "kv.toml").read_text(encoding="utf-8")
    code, out, err = run(capsys, "new", "inference/kv", "--dir", str(tmp_path / "t"))
    assert code == 2 and out == "" and "already exists" in err
    assert len(err.splitlines()) == 1
    assert (tmp_path / "t" / "inference" / "kv.toml").read_text(encoding="utf-8") == before


@pytest.mark.parametrize(("bad_id", "fragment"), [
    ("memroy/x", "did you mean memory?"),
    ("Memory/X", "is not a template id"),
    ("memory", "is not a template id"),
    ("memory/model-state", "is taken by"),
])
def test_new_refuses_a_bad_or_taken_id(
    capsys: pytest.CaptureFixture[str], data: Path, bad_id: str, fragment: str
) -> None:
    code, out, err = run(capsys, "new", bad_id)
    assert code == 2 and out == "" and fragment in err and len(err.splitlines()) == 1


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(topic=st.sampled_from(schema.TOPICS),
       name=st.from_regex(r"[a-z0-9][a-z0-9_-]{0,20}", fullmatch=True))
def test_the_scaffold_validates_and_tests_green_unchanged_for_any_id(
    topic: str, name: str
) -> None:
    template = parse_template(scaffold(f"{topic}/{name}"), "scaffold.toml")
    assert check_template(template, seeds=20) == []
    assert len(template.examples) == 3 and template.constraints and template.hints
    kinds = {("scale" if m.scale else "expr" if m.expr else "set")
             for m in number.mistakes(template.all_parts()[0])}
    assert kinds == {"scale", "expr", "set"}


def test_test_reports_each_failure_and_exits_1(
    capsys: pytest.CaptureFixture[str], data: Path, tmp_path: Path
) -> None:
    good = tmp_path / "good.toml"
    good.write_text(scaffold("memory/good"), encoding="utf-8")
    bad = BROKEN / "mistake_equals_key.toml"
    code, out, _ = run(capsys, "test", str(good), str(bad), "--seeds", "3")
    assert code == 1
    assert re.search(r"^memory/good\s+3\s+18/18\s+0$", out, re.M)
    assert re.search(r"^memory/broken-example\s+3\s+\d+/\d+\s+1$", out, re.M)
    assert f"{bad}:17: mistakes[0]: 'weights only' gives" in out
    assert "seeds 0, 1, 2" in out


def test_test_without_paths_checks_the_bank_and_user_folders(
    capsys: pytest.CaptureFixture[str], data: Path, tmp_path: Path
) -> None:
    copy(BROKEN / "wrong_verdict_example.toml", data / "templates" / "x.toml")
    code, out, _ = run(capsys, "test", "--seeds", "2")
    assert code == 1
    assert re.search(r"^memory/model-state\s+2\s+(\d+)/\1\s+0$", out, re.M)
    assert "examples[1]: '" in out and "should grade incorrect; it grades correct" in out


def test_test_takes_a_template_id_and_suggests_a_close_one(
    capsys: pytest.CaptureFixture[str], data: Path
) -> None:
    code, out, _ = run(capsys, "test", "memory/model-state", "--seeds", "2")
    assert code == 0
    assert re.search(r"^memory/model-state\s+2\s+(\d+)/\1\s+0$", out, re.M)
    code, _, err = run(capsys, "test", "memory/model-stat")
    assert code == 2 and "did you mean memory/model-state?" in err
    assert len(err.strip().splitlines()) == 1


def test_seeds_must_be_positive(capsys: pytest.CaptureFixture[str], data: Path) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["templates", "test", "--seeds", "0"])
    assert exc.value.code == 2
    assert "a whole number from 1 to" in capsys.readouterr().err


# ---------------------------------------------------------------- show, preview, schema


def test_show_prints_the_source_under_a_comment_naming_its_file(
    capsys: pytest.CaptureFixture[str], data: Path
) -> None:
    code, out, _ = run(capsys, "show", "memory/model-state")
    first, _, body = out.partition("\n")
    assert code == 0
    assert first.startswith("# memory/model-state: ") and first.endswith("model-state.toml")
    assert body == Path(first.split(": ", 1)[1]).read_text(encoding="utf-8")
    assert tomllib.loads(out)["id"] == "memory/model-state"


def test_unknown_id_is_one_line_with_a_suggestion(
    capsys: pytest.CaptureFixture[str], data: Path
) -> None:
    for action in ("show", "preview"):
        code, out, err = run(capsys, action, "memory/model-stat")
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and "did you mean memory/model-state?" in err


def test_preview_shows_prompt_parameters_key_mistakes_and_explanation(
    capsys: pytest.CaptureFixture[str], data: Path
) -> None:
    code, out, _ = run(capsys, "preview", "memory/model-state", "--seed", "1")
    assert code == 0
    assert out.startswith("memory/model-state#1  Model state under Adam")
    assert "Parameters:\n  model = " in out
    key = re.search(r"^Key: (\S+ \S+)", out, re.M)
    assert key is not None
    assert re.search(r"^  12 bytes per parameter\s+\S+ [GT]B\s+credit 0\.25$", out, re.M)
    assert re.search(r"^  weights only\s+\S+ [GT]B\s+credit 0$", out, re.M)
    assert "Hint 1 (costs 0.2):" in out
    assert "Explanation:" in out and "model_state_bytes" in out
    # the same variant as `quiz ask` shows
    main(["ask", "memory/model-state#1", "--json"])
    asked = json.loads(capsys.readouterr().out)
    assert asked["expected"]["display"] == key.group(1)
    assert " ".join(asked["prompt"].split()) in " ".join(out.split())
    code, again, _ = run(capsys, "preview", "memory/model-state#1")
    assert again == out


def test_preview_of_a_file_and_of_choices(
    capsys: pytest.CaptureFixture[str], data: Path, tmp_path: Path
) -> None:
    code, out, _ = run(capsys, "preview",
                       str(ROOT / "questions/bank/parallelism/activations-untouched.toml"))
    assert code == 0
    assert "  a) Data parallelism" in out and "Key: a) Data parallelism" in out
    assert "; c) Expert parallelism" in out
    assert re.search(r"^  FSDP shards activations\s+c\s+credit 0$", out, re.M)
    code, _, err = run(capsys, "preview", str(BROKEN / "misspelled_field.toml"))
    assert code == 1 and "answer.tolerence: unknown field" in err


def test_schema_is_json_schema_with_every_top_level_field(
    capsys: pytest.CaptureFixture[str], data: Path
) -> None:
    code, out, _ = run(capsys, "schema")
    doc = json.loads(out)
    assert code == 0 and "properties" in doc
    assert {"schema", "id", "params", "answer", "mistakes", "examples"} <= set(doc["properties"])
    assert "Relative tolerance" in out  # field docstrings become descriptions


def test_no_action_is_a_one_line_error(capsys: pytest.CaptureFixture[str], data: Path) -> None:
    code, out, err = run(capsys)
    assert code == 2 and out == "" and "needs an action" in err


# ---------------------------------------------------------------- AUTHORING.md


def test_authoring_guide_carries_the_reference_generated_from_the_models() -> None:
    guide = (ROOT / "AUTHORING.md").read_text(encoding="utf-8")
    start, end = "<!-- reference: start -->\n", "<!-- reference: end -->"
    assert start in guide and end in guide
    block = guide.split(start, 1)[1].split(end, 1)[0]
    assert block.strip() == reference_markdown().strip(), (
        "AUTHORING.md's field reference is out of date: replace the block between the "
        "reference markers with the output of `quiz templates schema --markdown`")


def test_authoring_guide_names_every_field_of_every_model() -> None:
    guide = (ROOT / "AUTHORING.md").read_text(encoding="utf-8")
    answers = set(schema.answer_models().values())
    nested = [inner for model in answers for info in model.model_fields.values()
              for inner in _models_in(info.annotation)]
    models: list[type[BaseModel]] = [schema.Template, schema.ParamSpec, schema.AnswerFields,
                                     *answers, *nested, schema.MistakeFields,
                                     *schema.mistake_models().values(), schema.Hint,
                                     schema.Example, schema.Part]
    assert {"Accepted", "Condition", "Figure", "Claim", "OrderRule"} <= {
        m.__name__ for m in nested}
    missing = [f"{m.__name__}.{info.alias or name}" for m in models
               for name, info in m.model_fields.items()
               if f"`{info.alias or name}`" not in guide]
    assert missing == []


def test_preview_of_a_count_prints_no_unit_one(
    capsys: pytest.CaptureFixture[str], data: Path
) -> None:
    code, out, _ = run(capsys, "preview", "inference/speculative-speedup", "--seed", "0")
    assert code == 0
    key = re.search(r"^Key: .*\((\S+), tolerance 3%\)$", out, re.M)
    assert key is not None, out


def test_preview_of_a_rate_in_tokens_per_second_says_so(
    capsys: pytest.CaptureFixture[str], data: Path
) -> None:
    code, out, _ = run(capsys, "preview", "inference/decode-tokens-per-second", "--seed", "0")
    assert code == 0
    assert re.search(r"^Key: 4,340 tokens/s   \(4336.13 tokens/s, tolerance 3%\)$", out,
                     re.M), out
