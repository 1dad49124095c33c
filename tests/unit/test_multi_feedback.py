"""Multi-select: the template's reason for each option picked wrongly or missed, and a
named mistake that never scores below the same picks as an unnamed slip."""

from __future__ import annotations

from questions.loader import parse_template
from questions.variants import PartVariant, make_variant
from quiz.core.grading import grade
from quiz.core.kinds.choice import as_shown

TEMPLATE = '''
id = "pipeline/multi-test"
title = "What shrinks the pipeline bubble?"
topic = "pipeline"
answer_kind = "multi"
prompt = "With pp = {pp} and m = {microbatches} the bubble is {pp_bubble:.0%}. What shrinks it?"
choices = ["more micro-batches", "interleaved stages", "a larger tensor-parallel degree",
           "more pipeline stages"]

[params.pp]
choices = [4]

[fixed]
microbatches = 8

[answer]
correct = ["a", "b"]

[answer.option_feedback]
b = "Interleaving v chunks per GPU divides the bubble by v."
c = "Tensor parallelism splits each layer; the number of stages, and the bubble, stay."
d = "More stages make it worse: the bubble is (pp - 1) / m = {pp_bubble:.0%} here."

[[mistakes]]
name = "only micro-batches"
choice = ["a"]
credit = 0.25
feedback = "Micro-batches help, but they are not the only lever."
'''


def part() -> PartVariant:
    return make_variant(parse_template(TEMPLATE, "t.toml"), 0).parts[0]


def picks(pv: PartVariant, written: str) -> str:
    """The template's letters (the order written) in the letters the variant shows."""
    return as_shown(pv, written)


def test_each_wrong_or_missed_option_says_why() -> None:
    pv = part()
    shown = pv.labels
    g = grade(pv, picks(pv, "a, c"))
    assert g.verdict != "correct"
    assert f"{shown['b']} (missed): Interleaving v chunks per GPU divides the bubble by v." \
        in g.feedback
    assert f"{shown['c']} (picked): Tensor parallelism splits each layer" in g.feedback
    assert f"{shown['d']} (" not in g.feedback


def test_option_feedback_renders_placeholders() -> None:
    pv = part()
    g = grade(pv, picks(pv, "a, b, d"))
    assert f"{pv.labels['d']} (picked): More stages make it worse: the bubble is "\
        "(pp - 1) / m = 38% here." in g.feedback


def test_a_named_mistake_scores_at_least_the_automatic_partial_credit() -> None:
    pv = part()
    g = grade(pv, picks(pv, "a"))
    assert g.mistake == "only micro-batches"
    assert g.score == 0.5  # one of two right, none wrong: more than the listed 0.25
    assert g.feedback.startswith("Micro-batches help")
    assert f"{pv.labels['b']} (missed):" in g.feedback


def test_a_right_answer_is_plainly_correct() -> None:
    pv = part()
    g = grade(pv, picks(pv, "b, a"))
    assert g.verdict == "correct" and g.score == 1.0


def test_the_authoring_guides_worked_example_loads_and_grades_as_it_says() -> None:
    from pathlib import Path

    guide = (Path(__file__).parents[2] / "AUTHORING.md").read_text(encoding="utf-8")
    section = guide.split("#### Worked example: a multi-select", 1)[1]
    text = section.split("```toml\n", 1)[1].split("```", 1)[0]
    pv = make_variant(parse_template(text, "AUTHORING.md"), 0).parts[0]
    shown = pv.labels
    g = grade(pv, picks(pv, "a, c"))
    assert f"Missed: {shown['b']}; wrongly picked: {shown['c']}." in g.feedback
    assert f"{shown['b']} (missed): Each GPU holds v chunks" in g.feedback
    assert f"{shown['c']} (picked): Tensor parallelism" in g.feedback
    assert grade(pv, picks(pv, "a")).score == 0.5


def test_a_mistakes_own_picks_in_its_feedback_have_no_stop_before_a_semicolon() -> None:
    """``{mistake}`` in a choice mistake's feedback shows its options' text, joined as a
    key is ("x; y.", once "x.; y.")."""
    sentences = TEMPLATE.replace(
        '"more micro-batches", "interleaved stages"',
        '"Add micro-batches.", "Interleave stages."').replace(
        'choice = ["a"]', 'choice = ["a", "d"]').replace(
        'feedback = "Micro-batches help,', 'feedback = "{mistake} Micro-batches help,')
    pv = make_variant(parse_template(sentences, "t.toml"), 0).parts[0]
    assert pv.mistakes[0].feedback.startswith(
        "Add micro-batches; more pipeline stages Micro-batches help")
