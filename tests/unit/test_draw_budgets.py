"""Drawing a template's parameters is bounded by budgets of work, never by a clock
(issue 30: "No test depends on timing"): a variant, a refusal and a draw-coverage
report are the same on a fast machine, a loaded one, and in a process whose clock
races; a hostile template (constraints that reject nearly every draw, or that cost
much to evaluate) is still refused, by its file, field and reason, after a number of
tries that its own size fixes."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import race_the_clocks, run_cli

from questions.errors import TemplateError
from questions.loader import parse_template
from questions.params import (
    COVERAGE_STEPS,
    MAX_DRAW_STEPS,
    MAX_DRAWS,
    PARAM_STEPS,
    TRY_STEPS,
    compiled,
    draw_coverage,
    draw_params,
)
from questions.schema import Template
from quiz.core.selftest import Tries
from quiz.core.selftest import _noted as noted

BROKEN = Path(__file__).parent / "broken"
BASE = (BROKEN / "unsatisfiable_constraint.toml").read_text(encoding="utf-8")
LONG = "(" + "+".join(["tp*2"] * 59) + ") > 0"
"""A constraint of full length (questions.expr.MAX_LENGTH characters) that always holds:
414 terms to evaluate at each try."""


def text_with(*constraints: str, extra: str = "") -> str:
    listed = ", ".join(f'"{c}"' for c in constraints)
    return BASE.replace('constraints = ["tp > 16"]', f"constraints = [{listed}]") + extra


def template(*constraints: str, extra: str = "") -> Template:
    return parse_template(text_with(*constraints, extra=extra), "hostile.toml")


def steps_of(t: Template) -> int:
    return TRY_STEPS + PARAM_STEPS * len(t.params) + compiled(t).terms


def tries(t: Template, seed: int) -> tuple[int, TemplateError | None]:
    """How many draws a seed's variant tried, and the refusal (None: it was drawn)."""
    seen: list[object] = []
    try:
        draw_params(t, seed, lambda *args: seen.append(args))
    except TemplateError as exc:
        return len(seen), exc
    return len(seen), None


def test_constraints_that_cost_much_are_refused_after_the_tries_their_size_allows() -> None:
    t = template("tp > 16", *[LONG] * 30)
    steps = steps_of(t)
    assert steps == TRY_STEPS + 2 * PARAM_STEPS + 5 + 30 * 414
    allowed = MAX_DRAW_STEPS // steps
    assert allowed < MAX_DRAWS
    n, refused = tries(t, 0)
    assert n == allowed and refused is not None
    assert "drawing a variant is too costly: each draw evaluates 12,425 terms" in str(refused)
    assert "constraint 'tp > 16' failed" in str(refused)
    assert refused.field == ("constraints", 0)  # the constraint that rejects every draw


def test_costly_constraints_that_hold_are_drawn_at_the_first_try() -> None:
    t = template(*[LONG] * 30)
    assert tries(t, 0) == (1, None)


def test_a_costly_template_is_reported_on_its_file_field_and_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("QUIZ_TEMPLATES", raising=False)
    monkeypatch.setenv("QUIZ_DATA_DIR", str(tmp_path / "data"))
    path = tmp_path / "costly.toml"
    path.write_text(text_with("tp > 16", *[LONG] * 30), encoding="utf-8")
    code, out, err = run_cli(capsys, "templates", "validate", str(path))
    assert code == 1 and "Traceback" not in out + err
    assert f"{path}:9: constraints[0]: drawing a variant is too costly" in out
    assert "shorten the constraints, or make them hold more often" in out


def test_a_constraint_that_rejects_nearly_everything_is_refused_after_max_draws() -> None:
    # x % 1000 == 7 keeps one draw in a thousand: most seeds find none in 200 draws
    t = template("x % 1000 == 7", extra="\n[params.x]\nrange = [1, 1000000]\ninteger = true\n"
                 "free = true\n")
    results = [tries(t, seed) for seed in range(10)]
    refused = [(n, exc) for n, exc in results if exc is not None]
    assert refused and all(n == MAX_DRAWS for n, _ in refused)
    assert all(exc.field == ("constraints", 0) and "no draw of the parameters meets "
               "'x % 1000 == 7' (tried 200)" in (exc.reason or "") for _, exc in refused)


def test_many_parameters_count_in_the_cost_of_a_try() -> None:
    many = "".join(f"\n[params.p{i}]\nrange = [1, 2]\nfree = true\n" for i in range(5000))
    t = template("tp > 16", extra=many)
    n, refused = tries(t, 0)
    assert n == MAX_DRAW_STEPS // steps_of(t) < MAX_DRAWS
    assert refused is not None and "over 5002 parameters" in str(refused)


def test_the_coverage_of_a_costly_template_stops_at_its_budget() -> None:
    t = template(*[LONG] * 30)  # every draw is kept at its first try: a try per seed
    report = draw_coverage(t, 1000)
    assert report.seeds == report.tries == -(-COVERAGE_STEPS // steps_of(t)) < 1000
    assert report.failed == 0


def test_the_coverage_counts_the_tries_it_was_given_as_its_own() -> None:
    t = template(*[LONG] * 30)
    seen: dict[int, Tries] = {}
    for seed in range(20):
        draw_params(t, seed, noted(seen.setdefault(seed, [])))
    given = draw_coverage(t, 1000, {}, seen)
    assert given == draw_coverage(t, 1000)


def test_a_racing_clock_changes_no_draw_and_no_coverage(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Regression (issue 30): a CPU clock stopped the coverage after 2 s and refused a
    # variant after 1 s, so a loaded machine reported fewer seeds, or a refusal.
    cases = [template("tp > 16", *[LONG] * 30), template("x % 1000 == 7", extra=(
        "\n[params.x]\nrange = [1, 1000000]\ninteger = true\nfree = true\n")),
             template(*[LONG] * 30)]

    def drawn() -> list[tuple[list[tuple[int, str]], object]]:
        return [([(n, str(exc)) for n, exc in (tries(t, seed) for seed in range(3))],
                 draw_coverage(t, 300)) for t in cases]

    normal = drawn()
    race_the_clocks(monkeypatch)
    assert drawn() == normal
