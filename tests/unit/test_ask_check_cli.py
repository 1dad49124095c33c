"""`quiz ask` and `quiz check` as scripts call them (DESIGN.md's JSON contract)."""

from __future__ import annotations

import json
from typing import get_args

import pytest
from helpers import FULL, run_cli

run = run_cli


def test_ask_json_follows_the_contract(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "ask", "memory/model-state", "--seed", "0", "--json")
    data = json.loads(out)
    assert code == 0
    assert {"template", "seed", "prompt", "params", "answer_kind", "choices", "expected",
            "explanation"} <= set(data)
    assert data["template"] == "memory/model-state" and data["seed"] == 0
    assert {"value", "unit", "display"} <= set(data["expected"])


def test_template_hash_seed_form_is_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    _, a, _ = run(capsys, "ask", "memory/model-state#4", "--json")
    _, b, _ = run(capsys, "ask", "memory/model-state", "--seed", "4", "--json")
    assert json.loads(a) == json.loads(b)


def test_checking_the_expected_display_grades_correct(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = run(capsys, "ask", "memory/model-state#2", "--json")
    display = json.loads(out)["expected"]["display"]
    code, out, _ = run(capsys, "check", "memory/model-state", "--seed", "2", "--answer",
                       display, "--json")
    data = json.loads(out)
    assert code == 0 and data["verdict"] == "correct" and data["score"] == 1.0
    assert {"template", "seed", "verdict", "score", "read_as", "expected", "mistake",
            "feedback", "explanation"} <= set(data)


def test_check_names_the_known_mistake(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "check", "compute/flops-formula#0", "--answer", "2*P*D",
                       "--json")
    data = json.loads(out)
    assert data["verdict"] == "incorrect" and data["mistake"] == "forward pass only"


def test_unreadable_answer_is_invalid_not_wrong(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", "memory/model-state#0", "--answer",
                       "__import__('os').system('echo pwned')", "--json")
    data = json.loads(out)
    assert code == 0 and data["verdict"] == "invalid" and data["score"] == 0
    assert "pwned" not in out.replace(data["feedback"], "")


@pytest.mark.parametrize(("argv", "message"), [
    (["ask", "memory/model-stat"], "did you mean memory/model-state"),
    (["ask", "memory/model-state#x"], "a seed is a whole number"),
    (["check", "memory/model-state", "--answer", "1 TB"], "a seed is needed"),
    (["check", "memory/model-state#1", "--seed", "2", "--answer", "1"], "two different"),
    (["check", "memory/model-state#1", "--part", "3", "--answer", "1"], "no part 3"),
])
def test_bad_references_are_one_line_errors(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1


def _bank_ids() -> list[str]:  # (ids in order: a failure names the same one each run)
    """Every bundled template under ``QUIZ_FUZZ=full``; locally a sample that still
    holds every answer kind: the first two templates of each kind (by the kinds of their
    parts) and every eighth of the rest. Most of the bank is numbers, which one builder
    prints alike; the sweep over all of them is CI's."""
    from questions.catalog import load_bank

    templates = load_bank().templates
    ids = sorted(templates)
    if FULL:
        return ids
    firsts: dict[str, list[str]] = {}
    for tid in ids:
        for kind in {part.answer_kind for part in templates[tid].all_parts()}:
            firsts.setdefault(kind, [])
            if len(firsts[kind]) < 2:
                firsts[kind].append(tid)
    return sorted({*ids[::8], *(tid for chosen in firsts.values() for tid in chosen)})


def test_ask_and_check_print_the_same_expected_for_every_part_of_the_bank(
        capsys: pytest.CaptureFixture[str]) -> None:
    # One builder (quiz.core.kinds.expected_json) for both: a choice's `correct` is there
    # for every choice key and no other, a value and unit only where the key has one.
    from questions.types import AnswerKind
    from quiz.core.kinds import kind_of

    kinds = set()
    for tid in _bank_ids():
        code, out, err = run(capsys, "ask", f"{tid}#0", "--json")
        assert code == 0, err
        asked = json.loads(out)
        parts = asked.get("parts", [asked])
        for k, part in enumerate(parts, start=1):
            kinds.add(part["answer_kind"])
            code, out, err = run(capsys, "check", f"{tid}#0", "--part", str(k), "--answer",
                                 part["expected"]["display"], "--json")
            assert code == 0, err
            assert json.loads(out)["expected"] == part["expected"], (tid, k)
            lettered = kind_of(part["answer_kind"]).has_options
            assert ("correct" in part["expected"]) == lettered, (tid, k)
    assert kinds == set(get_args(AnswerKind))  # every kind is in the bank


@pytest.mark.parametrize("tid", ["parallelism/activations-only-axis#1",
                                 "memory/model-state#0"])
def test_a_walk_through_step_prints_the_expected_its_check_prints(
        capsys: pytest.CaptureFixture[str], tid: str) -> None:
    _, out, _ = run(capsys, "ask", tid, "--steps", "--json")
    steps = json.loads(out)
    for step in steps:
        _, out, _ = run(capsys, "check", tid, "--step", str(step["index"]), "--answer",
                        step["expected"]["display"], "--json")
        checked = json.loads(out)
        assert checked["expected"] == step["expected"]
        assert checked["verdict"] == "correct"
