"""A choice key is shown with its options' text, not its letter alone.

Regression: `quiz check compute/recompute-trade-off#1 --answer a` printed "Expected: a"
while "Read as" showed the option's text; the feedback screen, the mock report, the
drill's summary, the list of mistakes and learn mode showed the bare letter too. The
``--json`` output's ``expected`` stays the letters (DESIGN.md's contract).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from helpers import bundled_bank, run_cli

from questions.steps import walk
from questions.variants import make_variant
from quiz.core.grading import grade
from quiz.core.kinds import key_text

BANK = bundled_bank()
CHOICE_PARTS = [(tid, i) for tid, t in sorted(BANK.templates.items())
                for i, p in enumerate(t.all_parts()) if p.answer_kind in ("choice", "multi")]


def test_check_prints_the_keys_letter_with_its_option(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "check", "compute/recompute-trade-off#1", "--answer", "a")
    assert code == 0
    assert "Expected: a) A second forward pass: about a third more FLOPs" in out
    assert "Expected: a\n" not in out


def test_check_json_keeps_the_expected_letters_as_the_contract_says(
        capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_cli(capsys, "check", "compute/recompute-trade-off#1", "--answer", "b",
                        "--json")
    data = json.loads(out)
    assert data["expected"] == {"display": "a", "correct": ["a"]}
    assert data["verdict"] == "incorrect"


def test_a_wrong_multi_select_names_the_key_with_its_options(
        capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_cli(capsys, "check", "compute/dp-grows-fixed-batch#1", "--answer", "a, b",
                        "--json")
    data = json.loads(out)
    pv = make_variant(BANK.get("compute/dp-grows-fixed-batch"), 1).parts[0]
    texts = [pv.spec.choices[ord(c) - ord("a")] for c in pv.key.correct]
    assert data["expected"]["display"] == ", ".join(pv.key.correct)
    assert all(f"{c}) {t}" in data["feedback"] for c, t in zip(pv.key.correct, texts,
                                                                strict=True))


@pytest.mark.parametrize(("tid", "index"), CHOICE_PARTS)
def test_every_choice_grade_shows_each_right_option_with_its_letter(tid: str,
                                                                   index: int) -> None:
    pv = make_variant(BANK.get(tid), 3).parts[index]
    shown = key_text(pv)
    for label in pv.key.correct:
        # (an option written as a sentence gives up its stop to a following ";")
        text = pv.spec.choices[ord(label) - ord('a')].removesuffix(".")
        assert f"{label}) {text}" in shown
    for typed in (pv.key.display, "a"):
        g = grade(pv, typed)
        assert g.shown_key == shown
        assert g.key.display == pv.key.display  # what typing back grades right


def test_a_walk_through_yes_or_no_step_keeps_its_word() -> None:
    v = make_variant(BANK.get("parallelism/activations-untouched"), 0)
    steps = [s for s in walk(v).steps if s.quantity.startswith("option:")]
    assert steps
    assert {key_text(s.pv) for s in steps} <= {"yes", "no"}
    assert grade(steps[0].pv, "maybe").verdict == "invalid"
    assert grade(steps[0].pv, steps[0].pv.key.display).shown_key in ("yes", "no")


def test_other_kinds_show_their_key_as_it_displays() -> None:
    pv = make_variant(BANK.get("memory/model-state"), 0).parts[0]
    assert key_text(pv) == pv.key.display
    assert grade(pv, "1 B").shown_key == pv.key.display


def test_the_mock_report_and_the_drill_summary_show_the_options(tmp_path: Path) -> None:
    from questions.loader import Bank
    from quiz.core.drill import DrillSession
    from quiz.core.mock import MockSession
    from quiz.core.settings import Settings
    from quiz.core.store import Store

    tid = "compute/recompute-trade-off"
    only = Bank(templates={tid: BANK.templates[tid]})
    with Store.open(tmp_path / "history.db") as store:
        mock = MockSession(only, store, Settings(), questions=1, minutes=30,
                           rng=random.Random(0))
        q = mock.next()
        assert q is not None
        mock.submit("b" if q.part.key.display != "b" else "c")
        shown = key_text(q.part)
        assert [row["key"] for row in mock.finish().rows] == [shown]
        drill = DrillSession(only, store, Settings(), rng=random.Random(0))
        q = drill.next()
        assert q is not None
        drill.submit("b" if q.part.key.display != "b" else "c")
        assert [m.key for m in drill.summary().missed] == [key_text(q.part)]


def test_mistakes_show_the_picked_and_the_right_options(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: the list of mistakes said "you: b   key: a": two letters of options
    no longer on screen."""
    from datetime import UTC, datetime

    from quiz.core.store import Attempt, Store

    tid = "compute/recompute-trade-off"
    pv = make_variant(BANK.get(tid), 1).parts[0]
    wrong = next(c for c in "abcd" if c not in pv.key.correct)
    data = tmp_path / "data"
    data.mkdir()
    with Store.open(data / "history.db") as store:
        store.record_attempt(Attempt(
            template_id=tid, template_version=BANK.get(tid).version, seed=1,
            mode="practice", answer_text=wrong, verdict="incorrect", score=0.0,
            topic="compute", answered_at=datetime(2025, 3, 3, tzinfo=UTC), seconds=5.0))
    code, out, _ = run_cli(capsys, "--data-dir", str(data), "mistakes")
    picked = pv.spec.choices[ord(wrong) - ord("a")]
    assert code == 0 and f"you: {wrong.upper()}: {picked}" in " ".join(out.split())
    assert f"key: {key_text(pv)}" in " ".join(out.split())
    _, out, _ = run_cli(capsys, "--data-dir", str(data), "mistakes", "--json")
    (entry,) = json.loads(out)["mistakes"]
    assert entry["key"] == pv.key.display and entry["key_text"] == key_text(pv)


def test_a_key_of_options_written_as_sentences_has_no_stop_before_a_semicolon() -> None:
    """The key once read "a) x.; c) z." (a stray stop before each ";"); the last option
    keeps its stop, an ellipsis stays."""
    from questions.text import picks_text

    sentences = ["Reduce all.", "Gather all.", "Use a ring...", "Split experts."]
    assert picks_text(sentences, ["a", "c", "d"]) == \
        "a) Reduce all; c) Use a ring...; d) Split experts."
    assert picks_text(sentences, ["b"]) == "b) Gather all."
    assert picks_text(sentences, []) == ""
