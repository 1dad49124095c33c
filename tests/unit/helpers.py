"""Helpers shared by the unit tests (importable as `helpers`: pytest puts this folder on
the path)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from quiz.cli import main

# UTC-5 without DST: local days differ from UTC days between 19:00 and 24:00 local.
LOCAL = timezone(timedelta(hours=-5))
T0 = datetime(2025, 3, 10, 15, 0, tzinfo=UTC)  # 10:00 local on 2025-03-10


class Clock:
    """A settable wall clock (aware datetimes) for the store and the scheduler."""

    def __init__(self, now: datetime) -> None:
        self.value = now

    def __call__(self) -> datetime:
        return self.value


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run `quiz ARGV...` in-process: (exit code, stdout, stderr)."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err
