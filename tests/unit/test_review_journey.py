"""Reviewing what you got wrong: mistakes, leeches, flags, and their commands."""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import pytest
from helpers import bundled_bank, run_cli

from quiz import locations
from quiz.core.mistakes import LEECH_MISSES, by_mistake, leeches, mistakes
from quiz.core.practice import PracticeSession
from quiz.core.settings import Settings
from quiz.core.store import Store

BANK = bundled_bank()


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "data"


def practise(store: Store, topic: str, answers: list[str], seed: int = 0) -> PracticeSession:
    s = PracticeSession(BANK, store, Settings(), topic=topic, rng=random.Random(seed))
    for text in answers:
        q = s.next()
        assert q is not None
        s.submit(text if text != "KEY" else q.part.key.display)
    return s


def test_mistakes_come_newest_first_with_key_feedback_and_solution(data: Path) -> None:
    with Store.open(locations.db_path(data)) as store:
        practise(store, "memory/model-state", ["1 TB", "KEY"])
        practise(store, "compute/flops-formula", ["2*P*D"])
        found = mistakes(store, BANK)
        assert [m.attempt.template_id for m in found] == ["compute/flops-formula",
                                                          "memory/model-state"]
        formula, state = found
        assert formula.attempt.mistake and formula.key == "6*P*D"
        assert state.attempt.answer_text == "1 TB" and state.key.endswith("TB")
        assert "Worked" in state.explanation or state.explanation
        assert not state.stale and not state.leech
        assert [m.attempt.template_id for m in mistakes(store, BANK, topic="rapid-fire-2")] \
            == ["compute/flops-formula"]
        assert by_mistake(found) == [(formula.attempt.mistake, 1)]


def test_a_scenario_mistake_is_shown_against_its_own_part(data: Path) -> None:
    with Store.open(locations.db_path(data)) as store:
        practise(store, "scenario/serve-it", ["KEY", "1 B"])
        (wrong,) = mistakes(store, BANK)
        assert wrong.part == 2
        s = PracticeSession(BANK, store, Settings())
        q = s.ask("scenario/serve-it", wrong.attempt.seed)
        assert wrong.key == q.variant.parts[1].key.display


def test_a_template_missed_again_and_again_is_a_leech(data: Path) -> None:
    with Store.open(locations.db_path(data)) as store:
        practise(store, "memory/model-state", ["1 B"] * (LEECH_MISSES - 1))
        assert leeches(store) == []
        practise(store, "memory/model-state", ["1 B"])
        assert leeches(store) == ["memory/model-state"]
        assert all(m.leech for m in mistakes(store, BANK))


def test_flags_are_stored_with_the_history_and_listed(data: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    with Store.open(locations.db_path(data)) as store:
        s = practise(store, "memory/model-state", ["KEY"])
        out = s.answered[0]
        s.flag(out.question, "unclear", "  Which precision is the master copy?  ",
               out.attempt_id)
        q = s.next()
        assert q is not None
        s.flag(q, "wrong")
        with pytest.raises(ValueError, match="reason"):
            s.flag(q, "rude")
    code, text, _ = run_cli(capsys, "--data-dir", str(data), "flags", "--json")
    assert code == 0
    flags = json.loads(text)
    assert [f["reason"] for f in flags] == ["wrong", "unclear"]  # newest first
    assert flags[1]["note"] == "Which precision is the master copy?"
    assert flags[1]["variant"] == f"memory/model-state#{out.question.variant.seed}"
    assert flags[1]["attempt_id"] == out.attempt_id
    code, text, _ = run_cli(capsys, "--data-dir", str(data), "flags")
    assert code == 0 and "2 flags" in text and "Which precision" in text


def test_quiz_mistakes_prints_the_same_as_json(data: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    code, text, _ = run_cli(capsys, "--data-dir", str(data), "mistakes")
    assert code == 0 and "No mistakes" in text
    with Store.open(locations.db_path(data)) as store:
        practise(store, "compute/flops-formula", ["2*P*D"])
    code, text, _ = run_cli(capsys, "--data-dir", str(data), "mistakes", "--json")
    assert code == 0
    doc = json.loads(text)
    (entry,) = doc["mistakes"]
    assert entry["template"] == "compute/flops-formula" and entry["key"] == "6*P*D"
    assert entry["answer"] == "2*P*D" and entry["explanation"]
    code, text, _ = run_cli(capsys, "--data-dir", str(data), "mistakes")
    assert "1 answer not fully right" in text and f"quiz ask {entry['variant']}" in text
    with pytest.raises(SystemExit) as exit_:
        run_cli(capsys, "--data-dir", str(data), "mistakes", "--limit", "0")
    assert exit_.value.code == 2 and "whole number" in capsys.readouterr().err


def test_quiz_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        run_cli(capsys, "--version")
    assert exit_.value.code == 0
    assert capsys.readouterr().out.startswith("quiz ")


def test_practice_on_an_unknown_topic_fails_before_the_app_opens(
        data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "--data-dir", str(data), "practice", "rapidfire-3")
    assert code == 2
    assert err.count("\n") == 1 and "did you mean rapid-fire-3?" in err


def test_practice_takes_the_start_of_an_id(data: Path) -> None:
    from quiz.commands.app import unknown_topic

    args = argparse.Namespace(templates=None, data_dir=str(data))
    assert unknown_topic("layout/thirty", args) is None
    assert unknown_topic("layout/thirtyx", args) is not None


def test_stats_speak_english_for_one(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Store.open(locations.db_path(data)) as store:
        practise(store, "memory/model-state", ["KEY"])
    code, text, _ = run_cli(capsys, "--data-dir", str(data), "stats")
    assert code == 0
    assert text.startswith("1 attempt, 1 correct") and "streak 1 day\n" in text
    assert "1 attempts" not in text and "(s)" not in text
