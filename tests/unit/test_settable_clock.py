"""QUIZ_NOW moves the clock of the whole app (for trying a week of drills today)."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from helpers import run_cli

from quiz.core.clock import local_day, parse_now, utc_now

REAL = datetime(2026, 12, 1, 1, 0, tzinfo=UTC)


@pytest.mark.parametrize(("text", "expected"), [
    ("+3d", REAL + timedelta(days=3)),
    ("-12h", REAL - timedelta(hours=12)),
    ("+90m", REAL + timedelta(minutes=90)),
    ("2026-12-05T08:30+01:00", datetime(2026, 12, 5, 7, 30, tzinfo=UTC)),
])
def test_offsets_and_moments(text: str, expected: datetime) -> None:
    assert parse_now(text, REAL) == expected


def test_a_bare_date_is_noon_that_local_day() -> None:
    moment = parse_now("2026-12-05", REAL)
    assert local_day(moment).isoformat() == "2026-12-05"


@pytest.mark.parametrize("text", ["tomorrow", "+3", "3d", "+3w", "2026-13-01"])
def test_anything_else_is_refused_with_the_forms_understood(text: str) -> None:
    with pytest.raises(ValueError, match=r"\+3d"):
        parse_now(text, REAL)


def test_the_moved_clock_keeps_running(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUIZ_NOW", "+2d")
    first = utc_now()
    assert first - datetime.now(UTC) > timedelta(days=1, hours=23)
    assert utc_now() >= first


def test_a_bad_quiz_now_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUIZ_NOW", "next week")
    code, out, err = run_cli(capsys, "stats")
    assert code == 2 and out == ""
    assert err.startswith("quiz: QUIZ_NOW='next week': give an offset")
    assert len(err.strip().splitlines()) == 1


def test_answers_given_under_a_moved_clock_are_stored_at_that_time(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "data"
    monkeypatch.setenv("QUIZ_NOW", "2030-06-15T09:00+00:00")
    monkeypatch.setattr("sys.stdin", io.StringIO("1 TB\n:quit\n"))
    code, out, err = run_cli(capsys, "--data-dir", str(data), "drill", "--plain")
    assert code == 0, err
    code, out, err = run_cli(capsys, "--data-dir", str(data), "history", "export")
    (attempt,) = json.loads(out)["attempts"]
    # the moved clock runs on from when this process started (a test worker may have run
    # for many minutes before this test): at or after 09:00 that day, never before
    answered = datetime.fromisoformat(attempt["answered_at"])
    moment = datetime(2030, 6, 15, 9, 0, tzinfo=UTC)
    assert moment <= answered < moment + timedelta(hours=2)
