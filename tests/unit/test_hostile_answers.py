"""Hostile answers: typed text that once crashed or hung the grader.

Every case either grades (usually "invalid" or "incorrect") or is refused in one line;
none may raise or run away. The limits are in the code (sizes, exponents, deadlines);
`cpu_guard` only stops a regression from hanging the test run.
"""

from __future__ import annotations

import json

import pytest
from helpers import bundled_bank, cpu_guard, run_cli

from questions.variants import PartVariant, make_variant
from quiz.core.grading import grade
from quiz.core.kinds.number import MAX_TOLERANCE
from quiz.core.reading import MAX_ANSWER_CHARS
from quiz.core.session import preview

BANK = bundled_bank()


def part(template_id: str, seed: int = 3) -> PartVariant:
    return make_variant(BANK.get(template_id), seed).parts[0]


# (template, answer, verdicts it may get)
CASES: list[tuple[str, str, set[str]]] = [
    # _constant_ratio once evaluated these with sympy.subs and no budget: an
    # OverflowError traceback, a MemoryError, and 15+ minutes at 800 MB and growing.
    ("compute/flops-formula", "P^P^P^P", {"incorrect", "invalid"}),
    ("compute/flops-formula", ".5^9^--9^P", {"incorrect", "invalid"}),
    ("compute/flops-formula", "D^D^D^D^D", {"incorrect", "invalid"}),
    ("compute/flops-formula", "(P^P^P)^(D^D^D)", {"incorrect", "invalid"}),
    ("compute/flops-formula", "P^P^P^P^P^P^P^P", {"incorrect", "invalid"}),
    ("compute/flops-formula", "(P^P^P^P)/(D^D^D^D)", {"incorrect", "invalid"}),
    ("compute/flops-formula", "P^-P^-P^-P", {"incorrect", "invalid"}),
    ("compute/flops-formula", "(-P)^(1/3)^P", {"incorrect", "invalid"}),
    ("compute/flops-formula", "9^9^9^9", {"invalid"}),
    ("compute/flops-formula", "(" * 60 + "P" + ")" * 60, {"invalid"}),
    ("compute/flops-formula", "P" + "*P" * 300, {"invalid"}),
    # a still-constant ratio is found, cheaply (and named in the feedback, but an
    # unnamed factor earns no credit: issue 9)
    ("compute/flops-formula", "12*P*D", {"incorrect"}),
    # _BARE ran a quadratic regex before the length limit: 16k digits took 9 s, 100k
    # about 6 minutes, on every keystroke of the TUI.
    ("communication/allreduce-time", "1" * 16_000, {"invalid"}),
    ("communication/allreduce-time", "1" * 100_000, {"invalid"}),
    ("communication/allreduce-time", "1," * 50_000 + "x", {"invalid"}),
    ("communication/allreduce-time", " " * 50_000 + "1", {"invalid"}),
    ("memory/model-state", "9" * 5000 + "e9", {"invalid"}),
    ("memory/model-state", "1e99999999 B", {"invalid"}),
    ("memory/model-state", "\x00\x1b[2J 1 TB", {"invalid", "incorrect", "correct"}),
    ("memory/model-state", "١٢٣ GB", {"invalid", "incorrect"}),
    ("memory/model-state", "nan", {"invalid"}),
    ("memory/model-state", "inf TB", {"invalid"}),
    ("memory/model-state", "-inf", {"invalid"}),
    ("memory/model-state", "1/0", {"invalid"}),
    ("memory/model-state", "__import__('os').system('true')", {"invalid"}),
    # A product past float range once crashed the number reader (OverflowError, issue
    # 26); one below it read as 0.
    ("memory/model-state", "9e307*9 TB", {"invalid"}),
    ("memory/model-state", "9e307*9", {"invalid"}),
    ("memory/model-state", "1e308/1e-308 B", {"invalid"}),
    ("memory/model-state", "1e-300*1e-300 TB", {"invalid"}),
    ("memory/model-state", "9e999*9e999*9e999 B", {"invalid"}),
]


@pytest.mark.parametrize(("template_id", "answer", "verdicts"), CASES,
                         ids=[f"{i}-{c[1][:20]!r}" for i, c in enumerate(CASES)])
def test_hostile_answer_grades_without_crashing(template_id: str, answer: str,
                                                verdicts: set[str]) -> None:
    pv = part(template_id)
    with cpu_guard():
        g = grade(pv, answer)
        shown = preview(pv, answer)
    assert g.verdict in verdicts, g.feedback
    assert "\n" not in g.feedback and "Traceback" not in g.feedback
    assert isinstance(shown, str)


@pytest.mark.parametrize("answer", ["P^P^P^P", "D^D^D^D^D", "1" * 16_000])
def test_hostile_answer_on_the_command_line_is_graded_as_json(
    capsys: pytest.CaptureFixture[str], answer: str
) -> None:
    template = "compute/flops-formula" if "^" in answer else "communication/allreduce-time"
    with cpu_guard():
        code, out, err = run_cli(capsys, "check", template, "--seed", "3", "--answer",
                                 answer, "--json")
    assert code == 0 and err == ""
    assert json.loads(out)["verdict"] in ("incorrect", "invalid")


@pytest.mark.parametrize("scale", [1.0, 20.0, 34.0, 50.0, 100.0])
@pytest.mark.parametrize("answer", ["0", "-1", "-1 TB", "0 B"])
def test_no_tolerance_setting_accepts_zero_or_a_negative(scale: float, answer: str) -> None:
    """tolerance_scale up to 100 once made 0 and -1 grade correct from about 34 up."""
    g = grade(part("memory/model-state"), answer, tolerance_scale=scale)
    assert g.verdict in ("incorrect", "invalid")
    assert g.score == 0


def test_a_huge_tolerance_still_accepts_the_key() -> None:
    pv = part("memory/model-state")
    assert grade(pv, pv.key.display, tolerance_scale=100).verdict == "correct"
    assert MAX_TOLERANCE < 1


def test_the_answer_box_stops_at_the_longest_answer_a_reader_takes() -> None:
    from quiz.tui.widgets.answer_box import AnswerBox

    box = AnswerBox()
    (answer_input, *_rest) = list(box.compose())
    assert answer_input.max_length == MAX_ANSWER_CHARS  # type: ignore[attr-defined]
