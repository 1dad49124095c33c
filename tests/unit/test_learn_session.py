"""Learn mode without any UI: a walk-through, its guided and cold attempts, progress."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from helpers import bundled_bank, run_cli

from questions.variants import make_variant
from quiz.core.drill import DrillSession
from quiz.core.learn import Walkthrough, bank_templates, learned_templates, plan, progress
from quiz.core.settings import Settings
from quiz.core.store import Attempt, Store
from quiz.core.store.schema import APPLICATION_ID, MIGRATIONS

BANK = bundled_bank()
T0 = datetime(2025, 3, 10, 15, 0, tzinfo=UTC)


class Now:
    def __init__(self) -> None:
        self.t = T0

    def __call__(self) -> datetime:
        self.t += timedelta(seconds=30)
        return self.t


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store.open(tmp_path / "history.db")


def _walk(store: Store | None, seed: int = 3, cold: int | None = None) -> Walkthrough:
    t = BANK.get("memory/model-state")
    return Walkthrough(make_variant(t, seed), store, Settings(),
                       cold=make_variant(t, cold) if cold is not None else None, now=Now())


def test_a_wrong_step_is_explained_and_asked_again(store: Store) -> None:
    w = _walk(store)
    assert w.phase == "step" and w.label == "Step 1 of 1"
    a = w.submit("12 B")
    assert not a.advanced and a.grade.mistake == "12 bytes per parameter"
    assert "2 + 2 + 4 + 8" in a.explanation and w.position == 0 and w.wrong_tries == 1
    a = w.submit("16 bytes")
    assert a.advanced and w.label == "The whole question"
    assert store.attempts() == []  # steps are not attempts


def test_a_one_part_question_is_not_asked_twice(store: Store) -> None:
    """Regression: the last step of a one-part number question is the question itself,
    and learn mode asked it as a step and then again whole. It is asked once, whole,
    with what the step would have shown before it."""
    w = _walk(store)
    last = w.walk.steps[-1]
    assert last.final and last.pv is w.variant.parts[0]
    assert w.lead_in is last and last not in w.steps
    asked = []
    while not w.finished:
        part = w.part
        assert part is not None
        asked.append(part.key.display)
        w.submit(part.key.display)
    assert asked == ["16 B", "128 GB"]
    (attempt,) = store.attempts()
    assert attempt.guided


def test_a_scenario_keeps_every_parts_last_step() -> None:
    v = make_variant(BANK.get("scenario/serve-it"), 0)
    w = Walkthrough(v, None, Settings(), now=Now())
    assert w.lead_in is None and w.steps == w.walk.steps


def test_unreadable_step_costs_nothing(store: Store) -> None:
    w = _walk(store)
    a = w.submit("sixteen-ish")
    assert a.grade.verdict == "invalid" and not a.advanced and w.wrong_tries == 0


def test_after_the_steps_the_whole_question_is_a_guided_attempt(store: Store) -> None:
    w = _walk(store)
    w.submit("16 B")
    assert w.phase == "whole" and w.prompt == w.variant.parts[0].prompt
    a = w.submit("128 GB")
    assert a.advanced and a.attempt_id is not None and w.finished
    (attempt,) = store.attempts()
    assert attempt.guided and attempt.verdict == "correct"


def test_a_revealed_step_moves_on(store: Store) -> None:
    w = _walk(store)
    step = w.reveal()
    assert step is not None and step.key.display == "16 B" and w.phase == "whole"
    assert w.done[0].revealed


def test_learn_mode_ends_with_a_fresh_variant_cold(store: Store) -> None:
    w = _walk(store, cold=11)
    for text in ("16 B", "128 GB"):
        w.submit(text)
    assert w.phase == "cold" and w.asked_variant.seed == 11
    assert w.label == "Now cold: a fresh variant"
    w.submit(w.cold.parts[0].key.display if w.cold else "")
    assert w.finished
    guided, cold = store.attempts()
    assert guided.guided and not cold.guided and cold.seed == 11
    walked, learned = learned_templates(store.attempts())
    assert walked == learned == {"memory/model-state"}


def test_a_guided_attempt_never_moves_the_card(store: Store) -> None:
    w = _walk(store)
    for text in ("16 B", "128 GB"):
        w.submit(text)
    assert store.get_card("memory/model-state") is None
    assert store.reviews() == []


def test_a_guided_success_is_not_a_learned_template(store: Store) -> None:
    w = _walk(store)
    for text in ("16 B", "128 GB"):
        w.submit(text)
    walked, learned = learned_templates(store.attempts())
    assert walked == {"memory/model-state"} and learned == set()
    assert store.walked_attempts() == store.attempts()
    groups = progress(store.walked_attempts(), bank_templates(BANK))
    item = next(p for p in groups if p.group == "rapid-fire-1")
    assert item.walked == 1 and item.learned == 0 and item.templates >= 3


def test_a_plan_goes_easiest_first() -> None:
    ids = plan(BANK, "rapid-fire-1")
    difficulties = [BANK.templates[i].difficulty for i in ids]
    assert difficulties == sorted(difficulties) and len(ids) >= 3


def test_a_scenario_is_walked_part_by_part_then_asked_whole(store: Store) -> None:
    v = make_variant(BANK.get("scenario/serve-it"), 0)
    w = Walkthrough(v, store, Settings(), now=Now())
    parts = [s.part for s in w.steps]
    assert parts == sorted(parts) and set(parts) == {p.index for p in v.parts}
    while w.phase == "step":
        assert w.step is not None
        w.submit(w.step.key.display)
    for pv in v.parts:
        assert w.part is pv
        w.submit(pv.key.display)
    assert w.finished and [a.guided for a in store.attempts()] == [True] * len(v.parts)


def test_the_guided_migration_keeps_old_attempts_unguided(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    for script in MIGRATIONS[:2]:
        conn.executescript(script)
    conn.execute("PRAGMA user_version = 2")
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("INSERT INTO attempts (template_id, template_version, seed, mode, "
                 "answer_text, verdict, score, seconds, answered_at, topic) VALUES "
                 "('memory/model-state', 1, 0, 'drill', '1 TB', 'correct', 1, 5, "
                 "'2025-03-10T15:00:00+00:00', 'memory')")
    conn.commit()
    conn.close()
    with Store.open(path) as store:
        (a,) = store.attempts()
        assert not a.guided and store.schema_version == len(MIGRATIONS)
        assert store.walked_attempts() == []


def test_drill_counts_a_guided_attempt_as_no_review(store: Store) -> None:
    now = Now()
    store.record_attempt(Attempt(template_id="memory/model-state", template_version=1,
                                 seed=0, mode="drill", answer_text="1 TB",
                                 verdict="correct", score=1.0, topic="memory",
                                 answered_at=now(), seconds=5.0, guided=True))
    drill = DrillSession(BANK, store, Settings(), now=now)
    assert "memory/model-state" in drill.queue()  # still new: no review happened


# ---------------------------------------------------------------- quiz learn --plain


def test_learn_plain_walks_through_one_variant(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("12 B\n:reveal\n128 GB\n"))
    code, out, _ = run_cli(capsys, "--data-dir", str(tmp_path), "learn",
                           "memory/model-state#3", "--plain")
    assert code == 0
    assert "Step 1 of 1. First, work out the bytes of model state per parameter." in out
    assert "Mistake: 12 bytes per parameter" in out and "Try again, or :reveal." in out
    assert "Answer: 16 B" in out and "The whole question:" in out
    assert "(guided attempt saved)" in out and out.rstrip().endswith("Done.")
    with Store.open(tmp_path / "history.db") as store:
        (a,) = store.attempts()
        assert a.guided and a.verdict == "correct"


def test_learn_plain_without_a_target_lists_progress(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code, out, _ = run_cli(capsys, "--data-dir", str(tmp_path), "learn", "--plain")
    assert code == 0 and "rapid-fire-1" in out and "0 of" in out


def test_learn_an_unknown_target_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code, _, err = run_cli(capsys, "--data-dir", str(tmp_path), "learn", "nothing-here",
                           "--plain")
    assert code == 2 and "no template matches nothing-here" in err
    assert len(err.strip().splitlines()) == 1


def test_learn_a_misspelt_topic_suggests_the_close_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code, _, err = run_cli(capsys, "--data-dir", str(tmp_path), "learn", "memroy", "--plain")
    assert code == 2 and "did you mean memory?" in err


def test_the_drill_offers_a_walk_after_two_cold_misses(store: Store) -> None:
    from quiz.core.learn import offers_walk

    now = Now()

    def miss(guided: bool) -> None:
        store.record_attempt(Attempt(template_id="memory/model-state", template_version=1,
                                     seed=0, mode="drill", answer_text="1 GB",
                                     verdict="incorrect", score=0.0, topic="memory",
                                     answered_at=now(), seconds=5.0, guided=guided))

    miss(False)
    miss(True)  # a miss in a walk-through is no cold miss
    assert not offers_walk(store, "memory/model-state")
    miss(False)
    assert offers_walk(store, "memory/model-state")
