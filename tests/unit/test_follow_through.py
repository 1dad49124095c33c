"""Follow-through in scenarios: a later part graded against the learner's own earlier
answers (error carried forward), from the worked example in AUTHORING.md."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from helpers import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from questions.loader import Bank, parse_template
from questions.schema import Template
from questions.variants import Variant, make_variant
from quiz.core.grading import grade, read_earlier
from quiz.core.practice import PracticeSession
from quiz.core.selftest import check_template
from quiz.core.settings import Settings
from quiz.core.store import Store
from solver.units import format_value

GUIDE = Path(__file__).parents[2] / "AUTHORING.md"


def guide_example() -> str:
    section = GUIDE.read_text(encoding="utf-8").split(
        "#### Worked example: a scenario with follow-through", 1)[1]
    return section.split("```toml\n", 1)[1].split("```", 1)[0]


TEMPLATE: Template = parse_template(guide_example(), "AUTHORING.md")


def variant(seed: int = 0) -> Variant:
    return make_variant(TEMPLATE, seed)


def test_the_guides_example_passes_its_self_test() -> None:
    assert check_template(TEMPLATE, seeds=5) == []


def test_an_answer_right_from_a_wrong_earlier_answer_gets_full_credit_and_says_so() -> None:
    v = variant()
    assert v.parts[0].key.display == "128 GB"  # what the guide says of seed 0
    g = grade(v.parts[1], "46.9 GB", earlier={1: 3e12})
    assert (g.verdict, g.score, g.mistake) == ("correct", 1.0, None)
    assert g.feedback == (
        "Carried forward: from your earlier answer (part 1: 3 TB) this part works out to "
        "46.9 GB, which is what you found, so your working here is right (full credit). "
        "From the key (part 1: 128 GB) it is 2.01 GB.")


def test_follow_credit_below_one_is_partial() -> None:
    g = grade(variant().parts[2], "16.7", earlier={1: 3e12}, hint_cost=0.2)
    assert g.verdict == "partial"
    assert g.score == pytest.approx(0.4)  # half the credit, then the hint's 20 % off it
    assert "(50% of the credit)" in g.feedback


def test_without_the_earlier_answers_the_same_answer_is_just_wrong() -> None:
    pv = variant().parts[1]
    assert grade(pv, "46.9 GB").verdict == "incorrect"
    assert grade(pv, "46.9 GB", earlier={}).verdict == "incorrect"


def test_the_key_stays_correct_and_a_known_mistake_stays_named() -> None:
    pv = variant().parts[1]
    g = grade(pv, pv.key.display, earlier={1: 3e12})
    assert g.verdict == "correct" and not g.feedback.startswith("Carried")
    g = grade(pv, "128 GB", earlier={1: 128e9})  # right in part 1, unsharded in part 2
    assert g.mistake == "not sharded" and g.verdict == "incorrect"


def test_a_right_earlier_answer_carries_nothing() -> None:
    pv = variant().parts[1]
    g = grade(pv, "1.5 GB", earlier={1: 128e9})
    assert g.verdict == "incorrect" and "Carried" not in g.feedback


@settings(max_examples=25, deadline=None)
@given(factor=st.floats(0.05, 20).filter(lambda f: abs(f - 1) > 0.1),
       seed=st.integers(0, 50))
def test_any_wrong_earlier_answer_carries_forward(factor: float, seed: int) -> None:
    v = variant(seed)
    first, second = v.parts[0], v.parts[1]
    assert first.key.value is not None and second.key.value is not None
    wrong = first.key.value * factor
    dp = float(v.params["dp"])
    typed = format_value(wrong / dp, "B", digits=4)
    g = grade(second, typed, earlier={1: wrong})
    assert (g.verdict, g.score) == ("correct", 1.0), g.feedback


def test_examples_grade_with_their_earlier_answers() -> None:
    v = variant()
    assert read_earlier(v.parts, ["{key}"]) == {1: 128e9}  # the key as displayed
    bad = TEMPLATE.model_copy(update={"examples": [
        TEMPLATE.examples[0].model_copy(update={"earlier": []})]})
    failures = check_template(bad, seeds=1)
    assert [f.check for f in failures] == ["examples[0]"]
    assert "'46.9 GB' should grade correct" in failures[0].reason


def test_a_session_carries_the_answers_given_earlier(tmp_path: Path) -> None:
    bank = Bank(templates={TEMPLATE.id: TEMPLATE}, sources={TEMPLATE.id: "AUTHORING.md"})
    store = Store.open(tmp_path / "history.db")
    s = PracticeSession(bank, store, Settings(), topic=TEMPLATE.id, rng=random.Random(3))
    q = s.next()
    assert q is not None
    first = q.part.key.value
    assert first is not None
    assert s.submit(format_value(2 * first, "B")).grade.verdict == "incorrect"
    q = s.next()
    assert q is not None and q.part.index == 2
    dp = float(q.variant.params["dp"])
    out = s.submit(format_value(2 * first / dp, "B"))
    assert out.grade.verdict == "correct" and out.grade.feedback.startswith("Carried")
    assert [a.verdict for a in store.attempts()] == ["incorrect", "correct"]
    store.close()


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("QUIZ_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("QUIZ_TEMPLATES", raising=False)
    (tmp_path / "mine" / "scenario").mkdir(parents=True)
    (tmp_path / "mine" / "scenario" / "my-zero-steps.toml").write_text(
        guide_example(), encoding="utf-8")
    return tmp_path / "mine"


def test_quiz_check_takes_the_earlier_answers(capsys: pytest.CaptureFixture[str],
                                              folder: Path) -> None:
    code, out, _ = run_cli(capsys, "--templates", str(folder), "check",
                           "scenario/my-zero-steps#0", "--part", "3", "--earlier", "3 TB",
                           "--earlier", "46.9 GB", "--answer", "16.7", "--json")
    data = json.loads(out)
    assert code == 0 and (data["verdict"], data["score"]) == ("partial", 0.5)
    assert data["feedback"].startswith("Carried forward")


@pytest.mark.parametrize(("earlier", "message"), [
    (["3 TB", "1 GB"], "--earlier gives the answers to parts before part 2: at most 1"),
    (["3 kilograms"], "--earlier: Part 1: 'kilograms' is not a unit"),
])
def test_quiz_check_refuses_bad_earlier_answers_in_one_line(
        capsys: pytest.CaptureFixture[str], folder: Path, earlier: list[str],
        message: str) -> None:
    args = [x for e in earlier for x in ("--earlier", e)]
    code, out, err = run_cli(capsys, "--templates", str(folder), "check",
                             "scenario/my-zero-steps#0", "--part", "2", *args,
                             "--answer", "46.9 GB")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err, err


def test_the_mistakes_list_grades_a_carried_answer_again_with_its_earlier_answers(
        tmp_path: Path) -> None:
    from quiz.core.mistakes import mistakes

    bank = Bank(templates={TEMPLATE.id: TEMPLATE}, sources={TEMPLATE.id: "AUTHORING.md"})
    store = Store.open(tmp_path / "history.db")
    s = PracticeSession(bank, store, Settings(), topic=TEMPLATE.id, rng=random.Random(4))
    q = s.next()
    assert q is not None and q.part.key.value is not None
    wrong = 2 * q.part.key.value
    s.submit(format_value(wrong, "B"))
    q = s.next()
    assert q is not None
    s.submit(format_value(wrong / float(q.variant.params["dp"]), "B"))
    q = s.next()
    assert q is not None and q.part.index == 3
    hbm = q.part.key.value  # the key: model state / HBM
    assert hbm is not None
    out = s.submit(format_value(2 * hbm, "1"))  # carried: half the credit
    assert out.grade.verdict == "partial"
    entries = mistakes(store, bank)
    assert [m.part for m in entries] == [3, 1]
    assert entries[0].feedback.startswith("Carried forward")
    store.close()


def test_quiz_ask_json_says_which_parts_follow_through(capsys: pytest.CaptureFixture[str],
                                                        folder: Path) -> None:
    code, out, _ = run_cli(capsys, "--templates", str(folder), "ask",
                           "scenario/my-zero-steps#0", "--json")
    parts = json.loads(out)["parts"]
    assert code == 0
    assert [p.get("follow") for p in parts] == [
        None, {"parts": [1], "credit": 1.0}, {"parts": [1], "credit": 0.5}]
