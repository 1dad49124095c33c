"""A new answer kind is one module per layer and one registry line each: registered at
test time through the three registries only (nothing else edited), a toy kind loads,
asks, checks and renders like the bundled ones (docs/ARCHITECTURE.md, "Answer kinds")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import cast

import pytest
from helpers import run_cli
from pydantic import Field

from questions.errors import FieldError
from questions.fields import AnswerFields, PartFields
from questions.kinds.base import DrawnKey, KeyContext, QuestionKind
from questions.model import Key, PartVariant
from quiz.core.kinds.base import AnswerKind, Grade, Read, invalid
from quiz.core.reading import Unreadable

WORD = "word"
"""The toy kind: type the right option's word (not its letter)."""


# ---- questions/kinds/answers/word.py


class WordAnswer(AnswerFields):
    """A word answer: the label of the option whose word is typed."""

    correct: list[str] = Field(default_factory=list)
    """The right option's label."""


# ---- questions/kinds/word.py


def _answer(part: PartFields) -> WordAnswer:
    return cast("WordAnswer", part.answer)


def _check_part(part: PartFields) -> None:
    if len(part.choices) < 2 or len(_answer(part).correct) != 1:
        raise FieldError(("answer", "correct"), "a word answer names one of its choices")


def _draw_key(ctx: KeyContext) -> DrawnKey:
    label = _answer(ctx.part).correct[0]
    return DrawnKey(Key(WORD, ctx.part.choices[ord(label) - ord("a")]))


QUESTION_KIND = QuestionKind(_check_part, _draw_key, part_fields=frozenset({"choices"}),
                             answer_fields=lambda: WordAnswer)


# ---- quiz/core/kinds/word.py


def _read(pv: PartVariant, text: str) -> Read:
    word = text.strip().lower()
    if not word or " " in word:
        raise Unreadable("type one word", pv.spec.choices[0])
    return Read(word, word)


def _grade(pv: PartVariant, text: str, scale: float) -> Grade:
    try:
        word = _read(pv, text).value
    except Unreadable as exc:
        return invalid(pv, exc.message, exc.example)
    if word == pv.key.display.lower():
        return Grade("correct", 1.0, word, None, "Correct.", pv.key)
    return Grade("incorrect", 0.0, word, None, f"The word is {pv.key.display}.", pv.key)


CORE_KIND = AnswerKind(_read, _grade,
                       prompt_lines=lambda pv: [f"  Type one of: {', '.join(pv.spec.choices)}"])


# ---- quiz/tui/kinds/word.py (registered only where Textual is installed)


TEMPLATE = '''id = "memory/toy-word"
title = "Which state is the largest"
topic = "memory"
prompt = "Which of these takes the most memory per parameter under mixed-precision Adam?"
answer_kind = "word"
choices = ["weights", "optimizer", "gradients"]

[answer]
correct = ["b"]
'''


@pytest.fixture
def word_kind(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The toy kind in every layer's registry, and a template folder that uses it."""
    from questions.kinds import KINDS as QUESTION_KINDS
    from quiz.core.kinds import KINDS as CORE_KINDS

    monkeypatch.setitem(QUESTION_KINDS, WORD, QUESTION_KIND)
    monkeypatch.setitem(CORE_KINDS, WORD, CORE_KIND)
    try:
        from quiz.tui.kinds import KINDS as TUI_KINDS
        from quiz.tui.kinds.base import AskedAs
    except ImportError:
        pass
    else:
        monkeypatch.setitem(TUI_KINDS, WORD, AskedAs(
            how_to_answer=lambda pv: "Type the option's [b]word[/b].",
            placeholder=lambda pv: "a word"))
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "toy-word.toml").write_text(TEMPLATE)
    return tmp_path


def test_a_kind_registered_in_every_layer_loads_asks_checks_and_renders(
        word_kind: Path, capsys: pytest.CaptureFixture[str]) -> None:
    common = ["--data-dir", str(word_kind / "data"), "--templates",
              str(word_kind / "templates")]
    code, out, err = run_cli(capsys, *common, "ask", "memory/toy-word#0", "--json")
    assert code == 0, err
    asked = json.loads(out)
    assert asked["answer_kind"] == WORD
    assert asked["expected"] == {"display": "optimizer"}
    for typed, verdict in (("Optimizer", "correct"), ("weights", "incorrect"),
                           ("two words", "invalid")):
        code, out, err = run_cli(capsys, *common, "check", "memory/toy-word#0",
                                 "--answer", typed, "--json")
        assert code == 0, err
        checked = json.loads(out)
        assert checked["verdict"] == verdict, checked
        assert checked["expected"] == asked["expected"]
    code, out, _ = run_cli(capsys, *common, "ask", "memory/toy-word#0")
    assert code == 0 and "Type one of: weights, optimizer, gradients" in out


def test_the_toy_kind_is_checked_by_its_own_rules_and_asked_by_its_own_words(
        word_kind: Path) -> None:
    from questions.loader import parse_template
    from questions.variants import make_variant

    broken = TEMPLATE.replace('correct = ["b"]', 'correct = ["a", "b"]')
    with pytest.raises(Exception, match="a word answer names one of its choices"):
        parse_template(broken, "toy-word.toml")
    # its [answer] is its own model: a number's field is refused, naming whose it is
    with pytest.raises(Exception, match=r"answer.tolerance: 'tolerance' is a field of "
                       r"number answers, not of a word answer"):
        parse_template(TEMPLATE + "tolerance = 0.1\n", "toy-word.toml")
    assert isinstance(parse_template(TEMPLATE, "toy-word.toml").answer, WordAnswer)
    pv = make_variant(parse_template(TEMPLATE, "toy-word.toml"), 0).parts[0]
    assert pv.key == Key(WORD, "optimizer")
    pytest.importorskip("textual")
    from quiz.tui.widgets.question_card import how_to_answer

    assert how_to_answer(pv) == "Type the option's [b]word[/b]."


def test_without_its_registration_the_kind_is_refused(tmp_path: Path) -> None:
    from questions.loader import parse_template

    with pytest.raises(Exception, match=r"answer_kind: Input should be 'number'"):
        parse_template(TEMPLATE, "toy-word.toml")
