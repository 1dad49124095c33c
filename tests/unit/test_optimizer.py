"""The scheduler fitted to the learner (quiz.core.optimizer, `quiz schedule ...`): the fit
beats the defaults on a synthetic learner's held-out reviews, is kept and used, can be
reset; bad stored parameters, bad retention values and empty histories are handled."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import fsrs_rs_python
import pytest
from fsrs import Card, Rating, Scheduler, State
from helpers import LOCAL, T0, Clock, run_cli
from learner import TRUE_PARAMETERS, synthetic_reviews, write
from pydantic import ValidationError

from quiz import locations
from quiz.core.errors import UsageError
from quiz.core.optimizer import (
    DEFAULT_PARAMETERS,
    LEECH_LAPSES,
    MIN_REVIEWS,
    calibration,
    forgetting_curve,
    histories,
    is_leech_at,
    optimize,
    parameters_in_force,
    parse_parameters,
    reset,
    scheduler_for,
    workload,
)
from quiz.core.schedule import Drill
from quiz.core.settings import Settings
from quiz.core.store import Review, Store


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "history.db", now=Clock(T0), tz=UTC) as opened:
        yield opened


@pytest.fixture(scope="module")
def learner_log() -> list[Review]:
    # 160 templates x 12 reviews: about 1,700 predicted reviews, 340 of them held out.
    return synthetic_reviews(160, 12, seed=7)


# ------------------------------------------------------------------ the published formulas


def test_defaults_are_fsrs6s_in_both_packages() -> None:
    assert tuple(Scheduler().parameters) == DEFAULT_PARAMETERS
    assert len(DEFAULT_PARAMETERS) == 21
    assert all(math.isclose(a, b, rel_tol=1e-6)  # fsrs-rs keeps them as float32
               for a, b in zip(DEFAULT_PARAMETERS, fsrs_rs_python.DEFAULT_PARAMETERS,
                               strict=True))


@pytest.mark.parametrize("stability", [0.5, 3.0, 40.0])
@pytest.mark.parametrize("days", [0, 1, 7, 30, 400])
def test_forgetting_curve_is_the_fsrs_packages(stability: float, days: int) -> None:
    card = Card(state=State.Review, stability=stability, difficulty=5.0,
                last_review=T0, due=T0)
    expected = Scheduler().get_card_retrievability(card, T0 + timedelta(days=days))
    assert forgetting_curve(days, stability) == pytest.approx(expected, rel=1e-12)


def test_forgetting_curve_is_ninety_percent_at_the_stability() -> None:
    for parameters in (DEFAULT_PARAMETERS, TRUE_PARAMETERS):
        assert forgetting_curve(12.0, 12.0, parameters) == pytest.approx(0.9)


# ------------------------------------------------------------------ the fit


def test_fit_predicts_a_synthetic_learners_held_out_reviews_better(
        store: Store, learner_log: list[Review]) -> None:
    write(store, learner_log)
    result = optimize(store)
    assert result.reviews >= MIN_REVIEWS
    assert 0 < result.held_out < result.reviews
    assert result.after.log_loss < result.before.log_loss
    assert result.after.rmse < result.before.rmse
    assert result.applied and result.parameters == result.fitted
    # The learner forgets new material faster than the average: the fit says so.
    assert result.fitted[2] < DEFAULT_PARAMETERS[2]
    assert parameters_in_force(store) == (result.fitted, None)


def test_the_next_drill_reviews_with_the_fitted_parameters(
        store: Store, learner_log: list[Review]) -> None:
    write(store, learner_log)
    assert tuple(Drill(store, Settings()).scheduler.parameters) == DEFAULT_PARAMETERS
    fitted = optimize(store).fitted
    drill = Drill(store, Settings(desired_retention=0.85))
    assert tuple(drill.scheduler.parameters) == fitted
    assert drill.scheduler.desired_retention == 0.85


def test_reset_with_too_few_reviews_still_resets(store: Store,
                                                 learner_log: list[Review]) -> None:
    store.set_fsrs_parameters(json.dumps(list(TRUE_PARAMETERS)))
    write(store, learner_log[:40])
    reviews, before, after = reset(store)
    assert 0 < reviews < MIN_REVIEWS and before is None and after is None
    assert parameters_in_force(store) == (DEFAULT_PARAMETERS, None)


def test_cli_reset_on_a_fresh_history(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "--data-dir", str(tmp_path), "schedule", "optimize",
                             "--reset", "--json")
    assert code == 0, err
    assert json.loads(out) == {"reviews": 0, "before": None, "after": None,
                               "parameters": list(DEFAULT_PARAMETERS), "reset": True}
    code, out, _ = run_cli(capsys, "--data-dir", str(tmp_path), "schedule", "optimize",
                           "--reset")
    assert code == 0 and "already in force" in out


def test_reset_restores_the_defaults_and_keeps_the_fit_on_record(
        store: Store, learner_log: list[Review]) -> None:
    write(store, learner_log)
    optimize(store)
    reset(store)
    assert parameters_in_force(store) == (DEFAULT_PARAMETERS, None)
    assert tuple(Drill(store, Settings()).scheduler.parameters) == DEFAULT_PARAMETERS
    assert store.rows("SELECT count(*) FROM fsrs_parameters")[0][0] == 2


def test_a_fit_no_better_than_the_parameters_in_force_is_not_applied(
        store: Store, learner_log: list[Review]) -> None:
    write(store, learner_log)
    first = optimize(store)
    second = optimize(store)  # the same data: the same fit, not lower than itself
    assert not second.applied
    assert second.parameters == first.fitted
    assert second.before.log_loss == pytest.approx(second.after.log_loss)


@pytest.mark.parametrize("pattern", ["all recalled", "all forgotten", "huge gaps"])
def test_one_sided_histories_fit_within_the_drills_bounds(store: Store, pattern: str) -> None:
    """Extreme logs push fsrs-rs to its bounds; what is kept must still be usable."""
    rows = []
    for t in range(60):
        for i in range(6):
            gap = 1_000 if pattern == "huge gaps" else 3
            rating = 1 if pattern == "all forgotten" or (pattern == "huge gaps" and i % 2) else 3
            rows.append(Review(template_id=f"t{t}", rating=rating, state_before=0 if i == 0 else 2,
                               reviewed_at=T0 + timedelta(days=gap * i, minutes=t)))
    write(store, rows)
    result = optimize(store)
    assert parse_parameters(json.dumps(list(result.fitted)))[1] is None
    assert parameters_in_force(store)[1] is None
    Drill(store, Settings()).review("t0", Rating.Good, T0 + timedelta(days=9_000))


def test_too_few_reviews_is_one_clear_line(store: Store, learner_log: list[Review]) -> None:
    write(store, learner_log[:30])
    with pytest.raises(UsageError, match=r"at least 200 reviews .* your history has \d+"):
        optimize(store)
    assert store.fsrs_parameters() is None


def test_a_history_with_no_reviews(store: Store) -> None:
    with pytest.raises(UsageError, match="your history has 0"):
        optimize(store)
    assert calibration(store) == []
    assert histories(store.review_rows(), UTC) == []


def test_reviews_all_on_one_day_predict_nothing(store: Store) -> None:
    write(store, [Review(template_id=f"t{i}", rating=3, reviewed_at=T0 + timedelta(minutes=j),
                         state_before=0) for i in range(100) for j in range(5)])
    with pytest.raises(UsageError, match="your history has 0"):
        optimize(store)


def test_days_are_local_days_of_the_store(tmp_path: Path) -> None:
    # 23:30 and 00:30 local are one hour and one local day apart.
    first = datetime(2026, 3, 2, 23, 30, tzinfo=LOCAL)
    with Store.open(tmp_path / "h.db", now=Clock(T0), tz=LOCAL) as store:
        write(store, [Review(template_id="a", rating=3, reviewed_at=first, state_before=0),
                      Review(template_id="a", rating=3, reviewed_at=first + timedelta(hours=1),
                             state_before=1)])
        [h] = histories(store.review_rows(), store.tz)
    assert h.delta_days == [0, 1]


def test_unreadable_log_rows_are_left_out() -> None:
    rows = [("a", 3, "2026-01-01T09:00:00.000000+00:00", 0),
            ("a", 3, "yesterday", 2), ("a", 9, "2026-01-02T09:00:00.000000+00:00", 2),
            ("a", 1, "2026-01-04T09:00:00.000000+00:00", 2)]
    [h] = histories(rows, UTC)
    assert (h.ratings, h.delta_days) == ([3, 1], [0, 3])


# ------------------------------------------------------------------ stored parameters


@pytest.mark.parametrize("text", [
    "not json", "[1, 2, 3]", "{}", "null", '"0.2"', "[" * 5000,
    json.dumps([*DEFAULT_PARAMETERS, 1.0]),
    json.dumps(list(DEFAULT_PARAMETERS)).replace("0.212", "NaN"),
    json.dumps(list(DEFAULT_PARAMETERS)).replace("0.212", "Infinity"),
    json.dumps(list(DEFAULT_PARAMETERS)).replace("0.212", "true"),
    json.dumps(list(DEFAULT_PARAMETERS)).replace("0.212", '"0.212"'),
    json.dumps(list(DEFAULT_PARAMETERS)).replace("0.212", "-5"),
    json.dumps(list(DEFAULT_PARAMETERS)).replace("0.212", "1e308"),
])
def test_corrupt_stored_parameters_fall_back_to_the_defaults(store: Store, text: str) -> None:
    store.set_fsrs_parameters(text)
    parameters, problem = parameters_in_force(store)
    assert parameters == DEFAULT_PARAMETERS
    assert problem is not None and "\n" not in problem
    assert tuple(Drill(store, Settings()).scheduler.parameters) == DEFAULT_PARAMETERS


def test_corrupt_stored_parameters_do_not_stop_a_review(store: Store) -> None:
    store.set_fsrs_parameters("[oops")
    Drill(store, Settings()).review("memory/x", Rating.Good, T0)
    assert store.get_card("memory/x") is not None


def test_hand_edited_scheduler_tables_do_not_stop_the_drill(store: Store) -> None:
    with store.batch():
        store._conn.execute("INSERT INTO fsrs_parameters (set_at, parameters) VALUES "
                            "('whenever', x'00ff')")
        store._conn.execute("INSERT INTO suspended VALUES ('memory/a', 'whenever', 'lots')")
    assert parameters_in_force(store)[0] == DEFAULT_PARAMETERS
    assert store.suspended() == {"memory/a": ("whenever", 0)}
    drill = Drill(store, Settings())
    assert drill.queue(["memory/a", "memory/b"]) == ["memory/b"]
    drill.review("memory/b", Rating.Good, T0)


def test_stored_parameters_are_read_back_exactly(store: Store) -> None:
    store.set_fsrs_parameters(json.dumps(list(TRUE_PARAMETERS)))
    assert parameters_in_force(store) == (TRUE_PARAMETERS, None)


def test_parse_parameters_accepts_integers() -> None:
    whole = [round(x) if x == round(x) else x for x in TRUE_PARAMETERS]
    assert parse_parameters(json.dumps(whole))[1] is None


# ------------------------------------------------------------------ retention and workload


@pytest.mark.parametrize("value", [0.79, 0.971, 0.0, 1.0, -0.9, 90, float("nan"),
                                   float("inf")])
def test_desired_retention_outside_080_to_097_is_refused(value: float) -> None:
    with pytest.raises(ValidationError):
        Settings(desired_retention=value)
    with pytest.raises(ValueError, match="desired retention"):
        workload(value, templates=100, new_per_day=10)


@pytest.mark.parametrize("value", ["0.9", True, None, [0.9]])
def test_desired_retention_of_the_wrong_type_is_refused(value: object) -> None:
    with pytest.raises(ValidationError):
        Settings.model_validate({"desired_retention": value})


def test_desired_retention_bounds_are_accepted() -> None:
    assert Settings(desired_retention=0.8).desired_retention == 0.8
    assert Settings(desired_retention=0.97).desired_retention == 0.97
    assert Settings().desired_retention == 0.9


def test_a_bad_retention_in_the_settings_file_falls_back(tmp_path: Path) -> None:
    from quiz.core.settings import load_settings

    path = tmp_path / "config.toml"
    path.write_text("new_per_day = 4\ndesired_retention = 0.99\n")
    settings, warnings = load_settings(path)
    assert (settings.new_per_day, settings.desired_retention) == (4, 0.9)
    assert len(warnings) == 1 and "config.toml:2: desired_retention" in warnings[0]


def test_scheduler_clamps_a_retention_it_is_handed(store: Store) -> None:
    assert scheduler_for(store, 0.5).desired_retention == 0.8
    assert scheduler_for(store, 2.0).desired_retention == 0.97
    assert scheduler_for(store, float("nan")).desired_retention == 0.9


def test_workload_grows_with_desired_retention() -> None:
    loads = [workload(r, templates=300, new_per_day=10) for r in (0.8, 0.9, 0.97)]
    assert 0 < loads[0] < loads[1] < loads[2]
    assert workload(0.9, templates=300, new_per_day=10) == loads[1]  # deterministic


def test_workload_of_nothing_to_learn_is_zero() -> None:
    assert workload(0.9, templates=0, new_per_day=10) == 0
    assert workload(0.9, templates=100, new_per_day=0) == 0


# ------------------------------------------------------------------ calibration


def test_calibration_bins_every_later_day_review(store: Store,
                                                 learner_log: list[Review]) -> None:
    write(store, learner_log)
    bins = calibration(store)
    predicted = sum(1 for h in histories(store.review_rows(), UTC)
                    for d in h.delta_days[1:] if d)
    assert sum(b.count for b in bins) == predicted
    assert all(b.low <= b.predicted < b.low + 0.1 + 1e-9 for b in bins)
    assert all(0 <= b.actual <= 1 for b in bins)


def test_calibration_under_the_true_curve_is_closer_than_under_the_defaults(
        store: Store, learner_log: list[Review]) -> None:
    write(store, learner_log)

    def gap() -> float:
        bins = calibration(store)
        return sum(b.count * abs(b.predicted - b.actual) for b in bins) / sum(
            b.count for b in bins)

    default_gap = gap()
    store.set_fsrs_parameters(json.dumps(list(TRUE_PARAMETERS)))
    assert gap() < default_gap / 2


# ------------------------------------------------------------------ leeches


def test_leech_rule_suspends_at_8_then_every_4() -> None:
    assert LEECH_LAPSES == 8
    assert [n for n in range(30) if is_leech_at(n)] == [8, 12, 16, 20, 24, 28]


def _lapse_until_suspended(drill: Drill, store: Store, template_id: str,
                           when: datetime) -> tuple[int, datetime]:
    """Review a template the way a forgetful learner does: graduate it, then forget it
    and relearn it again and again; return the lapses when it got suspended."""
    for _ in range(3):
        drill.review(template_id, Rating.Good, when)
        when += timedelta(days=1)
    for _ in range(20):
        drill.review(template_id, Rating.Again, when)
        if template_id in store.suspended():
            return store.lapses(template_id), when
        when += timedelta(hours=1)
        drill.review(template_id, Rating.Good, when)
        when += timedelta(days=2)
    raise AssertionError("never suspended")


def test_a_template_forgotten_8_times_leaves_the_drill_until_brought_back(
        store: Store) -> None:
    drill = Drill(store, Settings(), scheduler=Scheduler(enable_fuzzing=False))
    lapses, when = _lapse_until_suspended(drill, store, "memory/leech", T0)
    assert lapses == 8
    assert store.suspended()["memory/leech"][1] == 8
    later = Drill(store, Settings(), now=lambda: when + timedelta(days=400))
    assert "memory/leech" not in later.queue(["memory/leech", "memory/other"])
    assert later.counts_today(["memory/leech"])["new_available"] == 0
    assert later.due_forecast(3) == [(d, 0) for d, _ in later.due_forecast(3)]
    assert store.unsuspend("memory/leech")
    assert not store.unsuspend("memory/leech")
    assert "memory/leech" in later.queue(["memory/leech"])


def test_the_review_that_suspends_a_leech_says_so(store: Store) -> None:
    drill = Drill(store, Settings(), scheduler=Scheduler(enable_fuzzing=False))
    _lapse_until_suspended(drill, store, "memory/leech", T0)
    assert drill.suspended_by_review == ("memory/leech", 8)
    drill.review("memory/other", Rating.Good, T0)
    assert drill.suspended_by_review is None


def test_a_leech_brought_back_is_suspended_again_4_lapses_later(store: Store) -> None:
    drill = Drill(store, Settings(), scheduler=Scheduler(enable_fuzzing=False))
    _, when = _lapse_until_suspended(drill, store, "memory/leech", T0)
    store.unsuspend("memory/leech")
    lapses, _ = _lapse_until_suspended(drill, store, "memory/leech", when + timedelta(days=3))
    assert lapses == 12


def test_failing_while_still_learning_is_no_lapse(store: Store) -> None:
    drill = Drill(store, Settings(), scheduler=Scheduler(enable_fuzzing=False))
    for i in range(12):
        drill.review("memory/new", Rating.Again, T0 + timedelta(minutes=i))
    assert store.lapses("memory/new") == 0
    assert store.suspended() == {}


# ------------------------------------------------------------------ the command line


def _cli_store(tmp_path: Path) -> Store:
    return Store.open(locations.db_path(tmp_path))


def test_cli_optimize_json_on_held_out_reviews(
        tmp_path: Path, learner_log: list[Review],
        capsys: pytest.CaptureFixture[str]) -> None:
    with _cli_store(tmp_path) as store:
        write(store, learner_log)
    code, out, err = run_cli(capsys, "--data-dir", str(tmp_path), "schedule", "optimize",
                             "--json")
    assert code == 0, err
    result = json.loads(out)
    assert set(result) >= {"reviews", "before", "after", "parameters"}
    assert set(result["before"]) == set(result["after"]) == {"log_loss", "rmse"}
    assert result["after"]["log_loss"] < result["before"]["log_loss"]
    assert len(result["parameters"]) == 21 and result["applied"] is True
    code, out, _ = run_cli(capsys, "--data-dir", str(tmp_path), "schedule", "optimize",
                           "--reset", "--json")
    reset_result = json.loads(out)
    assert code == 0 and reset_result["parameters"] == list(DEFAULT_PARAMETERS)
    assert reset_result["reviews"] == result["reviews"]
    # Back from the fit (before) to the defaults (after): the figures swap.
    assert reset_result["before"]["log_loss"] == pytest.approx(result["after"]["log_loss"])
    assert reset_result["after"]["log_loss"] == pytest.approx(result["before"]["log_loss"])
    with _cli_store(tmp_path) as store:
        assert parameters_in_force(store) == (DEFAULT_PARAMETERS, None)


def test_cli_optimize_text(tmp_path: Path, learner_log: list[Review],
                           capsys: pytest.CaptureFixture[str]) -> None:
    with _cli_store(tmp_path) as store:
        write(store, learner_log)
    code, out, _ = run_cli(capsys, "--data-dir", str(tmp_path), "schedule", "optimize")
    assert code == 0
    assert "log loss" in out and "RMSE" in out and "in force from the next review" in out


@pytest.mark.parametrize("reviews", [0, 50])
def test_cli_too_few_reviews_is_one_line_and_exit_2(
        tmp_path: Path, learner_log: list[Review], reviews: int,
        capsys: pytest.CaptureFixture[str]) -> None:
    with _cli_store(tmp_path) as store:
        write(store, learner_log[:reviews])
    code, out, err = run_cli(capsys, "--data-dir", str(tmp_path), "schedule", "optimize",
                             "--json")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "at least 200 reviews" in err


def test_cli_warns_about_corrupt_parameters_and_fits_anyway(
        tmp_path: Path, learner_log: list[Review],
        capsys: pytest.CaptureFixture[str]) -> None:
    with _cli_store(tmp_path) as store:
        write(store, learner_log)
        store.set_fsrs_parameters('{"w": "oops"}')
    code, out, err = run_cli(capsys, "--data-dir", str(tmp_path), "schedule", "optimize",
                             "--json")
    assert code == 0 and "not 21 numbers" in err
    assert json.loads(out)["applied"] is True


def test_cli_leeches_and_unsuspend(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with _cli_store(tmp_path) as store:
        store.suspend("memory/a", 8, T0)
        store.suspend("memory/b", 9, T0 + timedelta(days=1))
    base = ("--data-dir", str(tmp_path), "schedule")
    code, out, _ = run_cli(capsys, *base, "leeches", "--json")
    assert code == 0
    assert [(e["template"], e["lapses"]) for e in json.loads(out)] == [
        ("memory/a", 8), ("memory/b", 9)]
    code, out, _ = run_cli(capsys, *base, "leeches")
    assert "memory/a" in out and "8 lapses" in out
    code, _, err = run_cli(capsys, *base, "unsuspend", "memory/zzz\nrm -rf", "memory/a")
    assert code == 2 and err.count("\n") == 1 and "not suspended" in err
    code, _, err = run_cli(capsys, *base, "unsuspend")
    assert code == 2 and "--all" in err
    code, out, _ = run_cli(capsys, *base, "unsuspend", "memory/a")
    assert code == 0 and "memory/a" in out
    code, out, _ = run_cli(capsys, *base, "unsuspend", "--all")
    assert code == 0 and "memory/b" in out
    code, out, _ = run_cli(capsys, *base, "leeches")
    assert "No leeches" in out


# ------------------------------------------------------------------ export and import


def test_export_and_import_leave_fitted_parameters_and_suspensions_behind(
        tmp_path: Path, learner_log: list[Review], capsys: pytest.CaptureFixture[str]) -> None:
    """Deliberate: the parameters are derived from the review log, which travels; the
    importing machine keeps its own (``quiz schedule optimize`` there refits on the
    merged log). Suspensions are the machine's too."""
    source, target = tmp_path / "a", tmp_path / "b"
    with _cli_store(source) as store:
        write(store, learner_log)
        fitted = optimize(store).fitted
        store.suspend("synthetic/t00001", 8)
    with _cli_store(target) as store:
        store.set_fsrs_parameters(json.dumps(list(TRUE_PARAMETERS)))
    out = tmp_path / "history.json"
    assert run_cli(capsys, "--data-dir", str(source), "history", "export",
                   "--out", str(out))[0] == 0
    exported = out.read_text()
    assert "fsrs_parameters" not in exported and "suspended" not in exported
    assert str(fitted[0]) not in exported
    assert run_cli(capsys, "--data-dir", str(target), "history", "import", str(out))[0] == 0
    with _cli_store(target) as store:
        assert parameters_in_force(store) == (TRUE_PARAMETERS, None)
        assert store.suspended() == {}


def test_a_drill_answer_that_suspends_a_leech_warns_the_learner(store: Store) -> None:
    from questions.catalog import load_bank
    from quiz.core.drill import DrillSession

    template_id = "memory/model-state"
    drill = Drill(store, Settings(), scheduler=Scheduler(enable_fuzzing=False))
    when = T0
    for _ in range(3):
        drill.review(template_id, Rating.Good, when)
        when += timedelta(days=1)
    for _ in range(LEECH_LAPSES - 1):  # one lapse short of a leech, learned again
        drill.review(template_id, Rating.Again, when)
        drill.review(template_id, Rating.Good, when + timedelta(hours=1))
        when += timedelta(days=2)
    assert store.lapses(template_id) == LEECH_LAPSES - 1 and not store.suspended()
    due = Card.from_json(store.get_card(template_id) or "").due + timedelta(hours=1)
    bank = load_bank(only=[template_id])
    session = DrillSession(bank, store, Settings(new_per_day=0), now=lambda: due)
    q = session.next()
    assert q is not None and q.template.id == template_id
    assert session.submit("1 B").grade.verdict == "incorrect"
    assert template_id in store.suspended()
    [warning] = session.warnings
    assert warning.startswith(f"{template_id} was forgotten 8 times since you learned it")
    assert session.next() is None  # and it is not asked again today
