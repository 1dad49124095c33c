"""Time as the history stores it: aware datetimes, UTC text, and local days.

Times are stored as UTC ISO-8601 text with a fixed format, so text order is time order.
"Days" (streaks, daily backups, the drill's "due today") are local days: an injected
``tz`` (a ``tzinfo``), or the system's local time zone when ``tz`` is None.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, tzinfo

__all__ = [
    "from_utc_text",
    "local_day",
    "local_day_start",
    "require_aware",
    "to_utc_text",
    "utc_now",
]


def utc_now() -> datetime:
    """Return the current time, timezone-aware, in UTC."""
    return datetime.now(UTC)


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
