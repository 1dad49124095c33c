"""Variants read back from the cache (questions.stored) ask and grade exactly like drawn
ones, a template edit draws again, and asking a number or choice question from the
cache imports no sympy (issue 15: `quiz ask`/`quiz check` one-shot speed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import run_cli

from questions import stored
from questions.loader import load_bank, parse_template
from questions.schema import Template
from questions.variants import Variant, make_variant
from quiz.commands.ask import ask_json, check_json, render_ask

BANK = load_bank()
SEEDS = (0, 7)


def round_trip(v: Variant) -> Variant:
    """Through the JSON text the cache keeps."""
    return stored.from_json(v.template, v.seed, json.loads(json.dumps(stored.to_json(v))))


def answers(v: Variant, index: int) -> list[str]:
    """Typed answers that reach every branch of a part's grading: the key, each known
    mistake's value or formula or choice, an unreadable text and a plain wrong one."""
    pv = v.parts[index - 1]
    out = [pv.key.display, "", "zzz", "0", "7", "a", "6*P*D", "dp: w g o; tp: -"]
    for m in pv.mistakes:
        if m.formula:
            out.append(m.formula)
        elif m.choice:
            out.append(", ".join(m.choice))
        elif m.value is not None and pv.key.unit is not None:
            from solver.units import format_value

            out.append(format_value(m.value, pv.key.unit))
    return out


@pytest.mark.parametrize("tid", sorted(BANK.templates))
def test_a_stored_variant_asks_and_grades_byte_for_byte_like_a_drawn_one(tid: str) -> None:
    for seed in SEEDS:
        drawn = make_variant(BANK.get(tid), seed)
        back = round_trip(drawn)
        assert json.dumps(ask_json(back), indent=2) == json.dumps(ask_json(drawn), indent=2)
        assert render_ask(back) == render_ask(drawn)
        for pv, bpv in zip(drawn.parts, back.parts, strict=True):
            assert (bpv.spec, bpv.key, bpv.mistakes, bpv.accepted, bpv.labels) == (
                pv.spec, pv.key, pv.mistakes, pv.accepted, pv.labels)
            if pv.kind == "spoken":  # a paragraph: the model answer and one wrong figure
                texts = [pv.key.display, "It needs about 3 GB."]
            else:
                texts = answers(drawn, pv.index)
            for text in texts:
                earlier = [p.key.display for p in drawn.parts[:pv.index - 1]]
                want, _ = check_json(drawn, pv.index, text, earlier)
                got, _ = check_json(back, bpv.index, text, earlier)
                assert json.dumps(got, indent=2) == json.dumps(want, indent=2), text


def scenario() -> Template:
    """The follow-through example of AUTHORING.md."""
    guide = (Path(__file__).parents[2] / "AUTHORING.md").read_text(encoding="utf-8")
    section = guide.split("#### Worked example: a scenario with follow-through", 1)[1]
    return parse_template(section.split("```toml\n", 1)[1].split("```", 1)[0])


def test_a_stored_part_follows_through_from_earlier_answers_like_a_drawn_one() -> None:
    drawn = make_variant(scenario(), 0)
    back = round_trip(drawn)
    for earlier, part, text in [(["3 TB"], 2, "46.9 GB"), (["3 TB", "46.9 GB"], 3, "16.7")]:
        want, g = check_json(drawn, part, text, earlier)
        got, _ = check_json(back, part, text, earlier)
        assert g.feedback.startswith("Carried forward")
        assert json.dumps(got) == json.dumps(want)


def test_the_cache_returns_the_stored_variant_and_draws_again_after_an_edit(
        tmp_path: Path) -> None:
    cache = tmp_path / "variants.db"
    template = BANK.get("memory/model-state")
    first = stored.variant(template, 3, cache)
    again = stored.variant(template, 3, cache)
    assert "derivation" in again.parts[0].__dict__  # read back, not drawn: no solver work
    assert ask_json(again) == ask_json(first)
    edited = template.model_copy(update={"title": "Edited"})
    after = stored.variant(edited, 3, cache)
    assert ask_json(after) == ask_json(make_variant(edited, 3)) != ask_json(first)


def test_a_damaged_cache_only_costs_a_draw(tmp_path: Path) -> None:
    cache = tmp_path / "variants.db"
    cache.write_bytes(b"not a database" * 100)
    template = BANK.get("memory/model-state")
    want = ask_json(make_variant(template, 1))
    assert ask_json(stored.variant(template, 1, cache)) == want
    assert ask_json(stored.variant(template, 1, cache)) == want  # rebuilt, then read
    import sqlite3

    with sqlite3.connect(cache) as conn:  # a record of another shape: drawn again
        conn.execute("UPDATE variants SET data = '{\"parts\": 1}'")
    assert ask_json(stored.variant(template, 1, cache)) == want


def test_the_cache_keeps_a_bounded_number_of_variants(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stored, "MAX_ROWS", 3)
    cache = tmp_path / "variants.db"
    template = BANK.get("memory/model-state")
    for seed in range(6):
        stored.variant(template, seed, cache)
    import sqlite3

    with sqlite3.connect(cache) as conn:
        kept = [r[0] for r in conn.execute("SELECT variant FROM variants ORDER BY rowid")]
    assert kept == [f"memory/model-state#{s}" for s in (3, 4, 5)]


TEMPLATE = """\
id = "mine/state"
version = 1
title = "Model state"
topic = "memory"
difficulty = 1
prompt = "How many bytes of model state does {model.title} need with Adam?"

[params]
model = {choices = ["llama3-8b", "llama3-70b"]}

[answer]
quantity = "model_state_bytes"
"""


def test_quiz_ask_and_check_json_are_the_same_cold_warm_and_after_an_edit(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mine = tmp_path / "mine" / "memory"
    mine.mkdir(parents=True)
    (mine / "state.toml").write_text(TEMPLATE, encoding="utf-8")
    base = ["--data-dir", str(tmp_path / "data"), "--templates", str(tmp_path / "mine")]
    calls = [["ask", "mine/state#2", "--json"], ["ask", "mine/state#2"],
             ["check", "mine/state#2", "--answer", "1.13 TB", "--json"],
             ["check", "mine/state#2", "--answer", "0.5 TB"]]
    cold = [run_cli(capsys, *base, *c) for c in calls]
    warm = [run_cli(capsys, *base, *c) for c in calls]
    assert warm == cold and all(code == 0 for code, _, _ in cold)
    (mine / "state.toml").write_text(TEMPLATE.replace("with Adam", "with Adam (edited)"),
                                     encoding="utf-8")
    edited = run_cli(capsys, *base, *calls[0])
    assert "(edited)" in json.loads(edited[1])["prompt"]


def test_asking_and_checking_number_and_choice_answers_from_the_cache_import_no_sympy(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = str(tmp_path / "data")
    calls = [["ask", "memory/model-state#3", "--json"],
             ["check", "memory/model-state#3", "--answer", "128 GB", "--json"],
             ["ask", "parallelism/activations-only-axis#1"],
             ["check", "parallelism/activations-only-axis#1", "--answer", "b"]]
    for call in calls:  # draws and stores them
        assert run_cli(capsys, "--data-dir", data, *call)[0] == 0
    script = ("import contextlib, io, sys\n"
              "from quiz.cli import main\n"
              f"for call in {calls!r}:\n"
              "    with contextlib.redirect_stdout(io.StringIO()):\n"
              f"        assert main(['--data-dir', {data!r}, *call]) == 0\n"
              "print(sorted(m for m in ('sympy', 'textual', 'solver.engine', 'mpmath')\n"
              "             if m in sys.modules))\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("QUIZ_")}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, check=True).stdout
    assert out.strip() == "[]"
