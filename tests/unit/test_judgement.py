"""Judgement on the newer half of the bank (issue 27): the forms candidates type are
read, the right slip is named, a count that must be a floor is exact, a convention the
prompt rules out is no variant, and a walk-through's yes-or-no step takes yes or no.

The rows themselves (typed text and the expert's verdict, with why) are in
``grading_corpus_newer.txt`` (``test_grading_corpus.py`` reads them); here are the
mechanisms, each over the whole bank where it applies.
"""

from __future__ import annotations

import pytest
import sympy as sp

from questions.catalog import load_bank
from questions.kinds.number import WHOLE_QUANTITIES
from questions.steps import walk
from questions.variants import make_variant
from quiz.core.grading import grade
from quiz.core.kinds.choice import yes_no_step
from quiz.core.reading import read_choice
from solver.inputs import Ctx
from solver.quantities import QUANTITIES

BANK = load_bank(bundled=True)


def test_the_whole_quantities_are_those_whose_formula_rounds() -> None:
    rounded = set()
    for name, q in QUANTITIES.items():
        formula, _ = q.build(Ctx())
        if isinstance(formula, sp.Basic) and isinstance(formula, sp.floor | sp.ceiling):
            rounded.add(name)
    assert rounded == set(WHOLE_QUANTITIES)


def test_a_count_of_requests_that_fit_is_exact_one_more_does_not_fit() -> None:
    pv = make_variant(BANK.get("inference/continuous-batching-capacity"), 0).parts[0]
    assert pv.key.value is not None
    fits = int(pv.key.value)
    assert grade(pv, str(fits)).verdict == "correct"
    assert grade(pv, f"{fits} requests").verdict == "correct"
    assert grade(pv, str(fits + 1)).verdict == "incorrect"
    assert grade(pv, str(fits - 1)).verdict == "incorrect"


def test_a_convention_the_prompt_rules_out_is_named_not_accepted() -> None:
    pv = make_variant(BANK.get("long-context/attention-flops-share"), 0).parts[0]
    assert "no causal halving" in pv.prompt
    halved = next(a for a in pv.accepted if a.name == "causal halving")
    g = grade(pv, f"{halved.value:.3f}")
    assert (g.verdict, g.mistake) == ("incorrect", "causal halving")


def test_the_gib_figure_a_tool_prints_is_asked_for_so_gb_names_the_slip() -> None:
    pv = make_variant(BANK.get("conventions/gib-display"), 0).parts[0]
    assert pv.key.value is not None
    gb = f"{pv.key.value / 1e9:.3g} GB"
    g = grade(pv, gb)
    assert (g.verdict, g.mistake) == ("partial", "right bytes, but the tool prints GiB")
    assert grade(pv, pv.key.display).verdict == "correct"


@pytest.mark.parametrize("typed", ["1.13 TiB", "1.03 TB"])
def test_a_tb_tib_slip_is_named_first_in_either_direction(typed: str) -> None:
    pv = make_variant(BANK.get("memory/model-state"), 0).parts[0]
    assert pv.key.display == "1.13 TB"
    g = grade(pv, typed)
    assert (g.verdict, g.mistake) == ("partial", "TB vs TiB"), g.feedback


def test_two_slips_giving_the_same_number_are_both_named() -> None:
    steps = walk(make_variant(BANK.get("layout/layout-memory"), 3)).steps
    pv = steps[0].pv  # activations of one layer on one GPU, with tp = 8
    assert pv.key.value is not None and pv.env.get("tp") == 8
    g = grade(pv, f"{8 * pv.key.value / 1e9:.3g} GB")
    assert g.mistake == "bits vs bytes"
    assert "not dividing by tp = 8" in g.feedback and "bits" in g.feedback


def test_a_yes_or_no_step_refuses_option_letters_and_reads_yes_or_no() -> None:
    found = 0
    for tid in ("communication/rail-optimized", "inference/decode-roofline-bound",
                "memory/does-it-fit", "parallelism/activations-only-axis"):
        for step in walk(make_variant(BANK.get(tid), 0)).steps:
            if not yes_no_step(step.pv):
                continue
            found += 1
            for letter in ("a", "b", "B"):
                g = grade(step.pv, letter)
                assert g.verdict == "invalid" and "answer yes or no" in g.feedback.lower()
            key = step.pv.key.display
            other = "no" if key == "yes" else "yes"
            assert grade(step.pv, key).verdict == "correct"
            assert grade(step.pv, f"{key.capitalize()}, because ...").verdict == "correct"
            assert grade(step.pv, other).verdict == "incorrect"
    assert found >= 4


@pytest.mark.parametrize(("typed", "picked"), [
    ("memory-bound", 0), ("Memory bound", 0), ("it is memory-bound", 0),
    ("bandwidth-bound", 0), ("compute-bound", 1), ("compute bound", 1),
    ("arithmetic", 1),
])
def test_a_short_label_typed_in_other_words_is_that_option(typed: str, picked: int) -> None:
    choices = ["Memory bandwidth: the intensity is below the ridge point",
               "Arithmetic: the intensity is above the ridge point"]
    assert read_choice(typed, choices, False).picked == (choices[picked],)


@pytest.mark.parametrize(("typed", "picked"), [
    ("No, it needs two GPUs", 1), ("nope", 1), ("Yes", 0), ("yes, with room", 0),
])
def test_yes_and_no_options_read_from_the_answer_s_first_word(typed: str,
                                                              picked: int) -> None:
    for choices in (["Yes", "No"], ["Yes: it fits.", "No: it does not fit."]):
        assert read_choice(typed, choices, False).picked == (choices[picked],)


def test_options_without_short_labels_are_not_guessed_from_a_first_word() -> None:
    choices = ["Pipeline parallelism: one activation", "Pipeline parallelism: a copy",
               "Data parallelism: nothing"]
    with pytest.raises(ValueError):
        read_choice("pipeline", choices, False)  # two options share the label


# ------------------------------------------------------- the bank-wide property

def _number_parts() -> list[tuple[str, int]]:
    return [(tid, seed) for tid in sorted(BANK.templates)
            for seed in (0, 1) if any(p.answer_kind == "number"
                                      for p in BANK.templates[tid].all_parts())]


@pytest.mark.parametrize(("tid", "seed"), _number_parts())
def test_words_around_the_key_a_currency_and_a_bare_count_never_change_its_grade(
        tid: str, seed: int) -> None:
    from quiz.core.kinds.number import money_question
    from solver.formula import compact
    from solver.units import COUNT_FAMILY

    for pv in make_variant(BANK.get(tid), seed).parts:
        if pv.kind != "number":
            continue
        key = pv.key
        assert key.value is not None and key.unit is not None
        base = grade(pv, key.display)
        assert base.verdict == "correct", (pv.index, key.display, base.feedback)
        forms = [f"about {key.display}", f"~{key.display}", f"≈ {key.display}",
                 f"roughly {key.display}", f"{key.display} (unchanged)",
                 f"approximately {key.display}"]
        if money_question(pv):
            forms += [f"${key.display}", f"about ${key.display}", f"{key.display} dollars",
                      f"{key.display} USD"]
        if key.unit in COUNT_FAMILY:
            forms += [compact(key.value), f"about {compact(key.value)}"]
        for typed in forms:
            g = grade(pv, typed)
            assert (g.verdict, g.mistake) == (base.verdict, base.mistake), (
                pv.index, typed, g.verdict, g.feedback)


# ------------------------------------------------------- hostile text on the new paths

@pytest.mark.parametrize(("tid", "typed"), [
    ("cost/training-run-dollars", "$" * 150 + "1"),
    ("cost/training-run-dollars", "$1 " + "dollars " * 25),
    ("cost/training-run-dollars", "1 " + "cents " * 30),
    ("cost/serving-cost-per-million-tokens", "1 $/" + "M" * 150 + "tok"),
    ("cost/serving-cost-per-million-tokens", "about " * 30 + "$1"),
    ("inference/decode-crossover-batch", "B " + ">" * 150 + " 3"),
    ("inference/decode-crossover-batch", "at least " * 20 + "3"),
    ("memory/model-state", "747 GB" + " (x)" * 45),
    ("memory/model-state", "747 GB" + " roughly" * 25),
    ("moe/dropped-tokens", "5 " + "copies " * 28),
    ("cost/gpu-hours", "1 " + "GPU hours " * 18),
    ("communication/rail-optimized", "n" * 190),
])
def test_hostile_text_on_the_new_reading_paths_is_read_or_refused_in_one_line(
        tid: str, typed: str) -> None:
    from helpers import cpu_guard

    pv = make_variant(BANK.get(tid), 0).parts[0]
    with cpu_guard(10):
        g = grade(pv, typed)
    assert g.verdict in ("invalid", "incorrect", "partial", "correct")
    if g.verdict == "invalid":
        assert "\n" not in g.feedback


def test_hostile_text_on_a_yes_or_no_step_is_refused() -> None:
    from helpers import cpu_guard

    step = next(s for s in walk(make_variant(BANK.get("communication/rail-optimized"), 0)).steps
                if yes_no_step(s.pv))
    for typed in ("", "\x00yes", "y" * 5000, "__import__('os')", "１"):
        with cpu_guard(10):
            g = grade(step.pv, typed)
        assert g.verdict in ("invalid", "correct", "incorrect")


def test_options_labelled_by_a_number_are_picked_by_the_number_said() -> None:
    choices = ["1: FSDP alone", "8: a full node", "16: two nodes", "64: eight nodes"]
    assert read_choice("TP 8", choices, False).picked == ("8: a full node",)
    assert read_choice("tp=16", choices, False).picked == ("16: two nodes",)
    with pytest.raises(ValueError):
        read_choice("TP 8 or 16", choices, False)


@pytest.mark.parametrize(("text", "denied"), [
    ("It is NOT true that TP spans nodes. FSDP does.", "It is NOT true that TP spans nodes"),
    ("None of this is true: TP 8 inside.", "None of this is true: TP 8 inside."),
    ("TP 8 inside. All of that is wrong.", "TP 8 inside. All of that is wrong."),
    ("TP 8 inside. All of this is true.", ""),
    ("TP 8 inside. That is not wrong.", ""),
    ("TP 8 inside the node, which is right.", ""),
])
def test_a_sentence_or_an_answer_denied_as_a_whole(text: str, denied: str) -> None:
    from quiz.core.rubric import denied_scopes

    assert "".join(text[a:b] for a, b in denied_scopes(text)) == denied


def test_an_answer_denying_the_model_answer_scores_at_most_half() -> None:
    pv = make_variant(BANK.get("layout/thirty-second-answer"), 1).parts[0]
    assert grade(pv, pv.key.display).verdict == "correct"
    for text in (f"It is not true that: {pv.key.display}",
                 f"{pv.key.display} Just kidding.", f"None of this is true. {pv.key.display}"):
        g = grade(pv, text)
        assert g.score <= 0.5 and g.verdict != "correct", text


def test_a_parallelism_degree_or_a_count_of_other_things_is_no_figure() -> None:
    pv = make_variant(BANK.get("layout/thirty-second-answer"), 1).parts[0]
    g = grade(pv, "16 B per parameter, 1.13 TB of model state. TP 8 inside each node, "
                  "FSDP across the nodes; Llama 3 70B has 80 layers.")
    assert g.checklist is not None
    gpus = next(i for i in g.checklist.items if i.id == "gpus_mem")
    assert gpus.status == "missing"  # TP 8 is no count of GPUs, 80 layers neither
    assert not any(i.status == "wrong" for i in g.checklist.items if i.kind == "figure")


def test_a_spoken_figure_is_right_within_the_rounding_said_and_no_further() -> None:
    from quiz.core.kinds.spoken import said_rounding

    assert said_rounding("1.3 TB") == pytest.approx(0.05 / 1.3)
    assert said_rounding("190 requests") == pytest.approx(5 / 190)
    assert said_rounding("185 requests") == pytest.approx(0.5 / 185)
    assert said_rounding("20 bytes") == pytest.approx(0.5 / 20)
    assert said_rounding("0.2 s") == 0.0
    pv = make_variant(BANK.get("inference/serve-70b-one-node"), 1).parts[0]
    requests = next(f for f in pv.key.figures if f.id == "requests")
    assert requests.value == 185

    def status(text: str) -> str:
        g = grade(pv, text)
        assert g.checklist is not None
        return next(i.status for i in g.checklist.items if i.id == "requests")

    assert status("The weights are 141 GB; about 185 requests fit.") == "right"
    assert status("The weights are 141 GB; about 190 requests fit.") == "right"
    assert status("The weights are 141 GB; about 191 requests fit.") == "wrong"
    assert status("The weights are 141 GB; about 186 requests fit.") == "wrong"


@pytest.mark.parametrize("typed", [
    "Twice the gradient allreduce traffic since the recomputed",
    "twice the gradient all reduce traffic",
    "Sharding covers the model state only each rank",
    "The 18byte count keeps the gradients in FP32",
])
def test_an_option_typed_without_its_punctuation_is_that_option(typed: str) -> None:
    choices = ["A second forward pass: about a third more FLOPs (8PD)",
               "Twice the gradient all-reduce traffic, since the recomputed layers ...",
               "Sharding covers the model state only; each rank still saves ...",
               "The 18-byte count keeps the gradients in FP32 instead of BF16"]
    picked = read_choice(typed, choices, False).picked
    assert len(picked) == 1 and _same_words(picked[0], typed)


def _same_words(option: str, typed: str) -> bool:
    import re

    def glued(text: str) -> str:
        return re.sub(r"[\W_]+", "", text).casefold()

    return glued(option).startswith(glued(typed))
