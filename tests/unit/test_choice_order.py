"""Choice options are shown in an order drawn per variant (issue 9): the key's letter
varies with the seed, is stable for ``ID#SEED``, and every label the template writes
(key, conditions, known mistakes, option feedback, examples) moves with its option. A
candidate learns nothing from position or from which option was written most carefully.
"""

from __future__ import annotations

import pytest
from helpers import bundled_bank

from questions.kinds.choice import answer, known, mistakes
from questions.loader import parse_template
from questions.schema import Part
from questions.variants import make_variant
from quiz.core.grading import grade
from quiz.core.kinds.choice import as_shown
from quiz.core.selftest import check_examples

BANK = bundled_bank()
CHOICE_PARTS = [(t.id, i, p) for t in BANK.templates.values()
                for i, p in enumerate(t.all_parts()) if p.answer_kind in ("choice", "multi")]
SEEDS = range(20)


def _longest(part: Part) -> str:
    lengths = [len(c) for c in part.choices]
    return chr(ord("a") + lengths.index(max(lengths)))


def test_the_bank_has_choice_questions() -> None:
    assert len(CHOICE_PARTS) >= 15


@pytest.mark.parametrize(("tid", "index"), [(t, i) for t, i, _ in CHOICE_PARTS])
def test_no_choice_questions_key_letter_is_the_same_on_every_seed(tid: str,
                                                                  index: int) -> None:
    keys = {make_variant(BANK.get(tid), seed).parts[index].key.display for seed in SEEDS}
    assert len(keys) > 1, f"{tid} part {index + 1}: the key is {keys.pop()} on every seed"


def test_the_key_is_not_the_longest_option_in_most_choice_questions() -> None:
    # Single choice with a fixed key and three or more options: the key must never be
    # the longest sentence. Multi-select: the longest option is a right one in at most
    # half of the questions (a careful, long key is the tell test-wise candidates use).
    single = [(tid, p) for tid, _, p in CHOICE_PARTS
              if p.answer_kind == "choice" and not answer(p).when and len(p.choices) >= 3]
    multi = [(tid, p) for tid, _, p in CHOICE_PARTS if p.answer_kind == "multi"]
    assert len(single) >= 5 and len(multi) >= 5
    assert [tid for tid, p in single if _longest(p) in answer(p).correct] == []
    tells = [tid for tid, p in multi if _longest(p) in answer(p).correct]
    assert len(tells) <= len(multi) // 2, tells


@pytest.mark.parametrize(("tid", "index"), [(t, i) for t, i, _ in CHOICE_PARTS])
def test_letters_are_stable_for_id_and_seed_and_move_with_their_options(
        tid: str, index: int) -> None:
    t = BANK.get(tid)
    written = t.all_parts()[index]
    for seed in (0, 7):
        pv = make_variant(t, seed).parts[index]
        again = make_variant(t, seed).parts[index]
        assert pv.spec.choices == again.spec.choices and pv.key == again.key
        assert sorted(pv.labels) == sorted(pv.labels.values())  # a permutation
        for label, shown in pv.labels.items():
            assert written.choices[ord(label) - ord("a")] in pv.spec.choices[
                ord(shown) - ord("a")] or "{" in written.choices[ord(label) - ord("a")]
        for m, wm in zip(known(pv), mistakes(written), strict=True):
            assert m.choice == tuple(sorted(pv.labels[x] for x in wm.choice))
            if m.choice:
                g = grade(pv, ", ".join(m.choice))
                assert g.mistake == m.name


def test_the_key_follows_a_condition_drawn_for_the_variant() -> None:
    # does-it-fit: "Yes" when memory_per_gpu <= hbm_bytes, whatever letter shows it.
    t = BANK.get("memory/does-it-fit")
    for seed in SEEDS:
        pv = make_variant(t, seed).parts[0]
        [picked] = [pv.spec.choices[ord(k) - ord("a")] for k in pv.key.correct]
        fits = pv.env["memory_per_gpu"] <= pv.env["hbm_bytes"] if "memory_per_gpu" in \
            pv.env else None
        if fits is not None:
            assert picked.startswith("Yes") == fits


TEMPLATE = '''
id = "pipeline/order-test"
title = "Order test"
topic = "pipeline"
answer_kind = "multi"
prompt = "Which shrink the bubble?"
choices = ["more micro-batches", "interleaved stages", "a larger TP degree",
           "more pipeline stages", "ZeRO-1"]

[answer]
correct = ["a", "b"]

[answer.option_feedback]
c = "TP splits each layer; the stages stay."

[[mistakes]]
name = "only micro-batches"
choice = ["a"]
credit = 0.25
feedback = "One of two levers."

[[examples]]
answer = "b a"
verdict = "correct"

[[examples]]
answer = "more micro-batches"
verdict = "partial"
mistake = "only micro-batches"

[[examples]]
answer = "a, b, c"
verdict = "partial"
'''


def test_examples_and_feedback_use_the_templates_letters_and_show_the_variants() -> None:
    t = parse_template(TEMPLATE, "t.toml")
    assert check_examples(t) == []
    moved = 0
    for seed in SEEDS:
        pv = make_variant(t, seed).parts[0]
        moved += pv.labels["a"] != "a"
        c = pv.labels["c"]
        assert pv.spec.choices[ord(c) - ord("a")] == "a larger TP degree"
        assert answer(pv.spec).option_feedback == {c: "TP splits each layer; the stages stay."}
        g = grade(pv, as_shown(pv, "a, b, c"))
        assert f"{c} (picked): TP splits each layer" in g.feedback
        assert grade(pv, pv.key.display).verdict == "correct"
    assert moved >= 10


def test_as_shown_leaves_text_that_picks_nothing_alone() -> None:
    pv = make_variant(parse_template(TEMPLATE, "t.toml"), 3).parts[0]
    assert as_shown(pv, "zz") == "zz"
    assert as_shown(pv, "") == ""


@pytest.mark.parametrize("cite", ["(c) is wrong because", "Option b is the trap.",
                                  "as in choice d,"])
def test_a_choice_text_citing_an_option_by_letter_fails_validation(cite: str) -> None:
    from questions.loader import TemplateFileError

    text = TEMPLATE.replace('correct = ["a", "b"]',
                            f'correct = ["a", "b"]\nexplanation = "{cite} Two levers."')
    with pytest.raises(TemplateFileError, match=r"answer\.explanation: .* cites an option by "
                       r"its letter"):
        parse_template(text, "t.toml")
