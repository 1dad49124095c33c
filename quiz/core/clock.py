"""Time as the history stores it: aware datetimes, UTC text, and local days.

Times are stored as UTC ISO-8601 text with a fixed format, so text order is time order.
"Days" (streaks, daily backups, the drill's "due today") are local days: an injected
``tz`` (a ``tzinfo``), or the system's local time zone when ``tz`` is None.

For trying the app over days that have not happened yet (a first week of drills, a
review falling due), the environment variable ``QUIZ_NOW`` moves the clock every part of
the app reads (:func:`utc_now`): an offset from now (``+3d``, ``-12h``, ``+90m``) or a
moment (``2026-12-03T09:00``, local time unless it names its offset; a bare date means
noon, local time). The clock still runs from there, so answers keep their order. Tests
inject their own clocks instead.
"""

from __future__ import annotations

import os
import re
import time as _time
from datetime import UTC, date, datetime, time, timedelta, tzinfo

__all__ = [
    "NOW_VARIABLE",
    "from_utc_text",
    "local_day",
    "local_day_start",
    "parse_now",
    "require_aware",
    "to_utc_text",
    "utc_now",
]

NOW_VARIABLE = "QUIZ_NOW"
"""The environment variable that moves the app's clock (see the module's docstring)."""

_OFFSET = re.compile(r"([+-])(\d{1,6})([dhm])")
_UNITS = {"d": "days", "h": "hours", "m": "minutes"}
_STARTED = (_time.monotonic(), datetime.now(UTC))
"""When this process started, by both clocks: a moved clock runs on from here."""


def parse_now(text: str, real_now: datetime) -> datetime:
    """The moment ``QUIZ_NOW`` names, as an aware UTC datetime.

    Args:
        text: an offset (``+3d``, ``-12h``, ``+90m``) or an ISO date or date-time.
        real_now: the real current time (what an offset is added to).

    Raises:
        ValueError: ``text`` is neither, with the forms that are understood.

    >>> start = datetime(2026, 12, 1, 1, 0, tzinfo=UTC)
    >>> parse_now("+2d", start).isoformat()
    '2026-12-03T01:00:00+00:00'
    >>> parse_now("2026-12-05T08:30+00:00", start).isoformat()
    '2026-12-05T08:30:00+00:00'
    """
    text = text.strip()
    offset = _OFFSET.fullmatch(text)
    if offset:
        sign, amount, unit = offset.groups()
        step = timedelta(**{_UNITS[unit]: int(amount)})
        return real_now + (step if sign == "+" else -step)
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{NOW_VARIABLE}={text!r}: give an offset such as +3d, -12h or "
                         "+90m, or a moment such as 2026-12-03 or 2026-12-03T09:00") from None
    if len(text) == 10:  # a bare date: noon, so that the local day is that date
        moment = moment.replace(hour=12)
    if moment.tzinfo is None:
        moment = moment.astimezone()  # local time, as the user reads their clock
    return moment.astimezone(UTC)


def utc_now() -> datetime:
    """Return the current time, timezone-aware, in UTC (moved by ``QUIZ_NOW``).

    Raises:
        ValueError: ``QUIZ_NOW`` is set but cannot be read (the command line checks it
            first and says so in one line).
    """
    moved = os.environ.get(NOW_VARIABLE)
    if not moved:
        return datetime.now(UTC)
    started_monotonic, started = _STARTED
    return parse_now(moved, started) + timedelta(seconds=_time.monotonic()
                                                 - started_monotonic)


def require_aware(value: datetime, what: str) -> None:
    """Refuse a naive datetime.

    Raises:
        ValueError: ``value`` has no time zone.
    """
    # A naive datetime is ambiguous (local? UTC?); refusing it is the only way to keep
    # "stored in UTC" true.
    if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
        raise ValueError(f"{what} must be timezone-aware, got naive {value.isoformat()}")


def to_utc_text(value: datetime) -> str:
    """Format an aware datetime as the fixed-width UTC text stored in the database.

    Raises:
        ValueError: if ``value`` is naive.

    >>> to_utc_text(datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC))
    '2025-01-02T03:04:05.000000+00:00'
    """
    require_aware(value, "time")
    return value.astimezone(UTC).isoformat(timespec="microseconds")


def from_utc_text(text: str) -> datetime:
    """Parse text written by :func:`to_utc_text` into an aware UTC datetime."""
    return datetime.fromisoformat(text).astimezone(UTC)


def local_day(value: datetime, tz: tzinfo | None = None) -> date:
    """Return the local calendar day of an aware datetime.

    Args:
        value: An aware datetime.
        tz: The local time zone; the system's when None.
    """
    require_aware(value, "time")
    return value.astimezone(tz).date()


def local_day_start(day: date, tz: tzinfo | None = None) -> datetime:
    """Return the UTC instant at which local ``day`` begins (local midnight).

    Args:
        day: A local calendar day.
        tz: The local time zone; the system's when None.
    """
    if tz is None:
        # A naive datetime passed to astimezone() is taken as system local time,
        # which gets the right UTC offset for that date (DST included).
        start = datetime.combine(day, time()).astimezone()
    else:
        start = datetime.combine(day, time(), tzinfo=tz)
    return start.astimezone(UTC)
