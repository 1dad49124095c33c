"""The summary sums an import adds up in Python (sums.Summaries) are those the
summary trigger (schema migration 3) would have made row by row."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from quiz.core.clock import to_utc_text
from quiz.core.store.schema import quarter_of
from quiz.core.store.sums import quarter_key

stored = st.datetimes(min_value=datetime(1970, 1, 1), max_value=datetime(9998, 12, 31),
                      timezones=st.just(UTC)).map(to_utc_text)
odd = st.one_of(st.text(max_size=40), st.sampled_from([
    "2024-03-01T09:3x:00.000000+00:00", "2024-03-01T09:30:00.000000+01:00",
    "2024-03-01T09:30:00+00:00", "", "2024-03-01T09:30:00.000000+00:00 ",
    "2024-03-01T09:+5:00.000000+00:00", "2024-03-01T09:75:00.000000+00:00",
    "2024-03-01T09:30:00.00\x000000+00:00"]),
    # 32 characters ending +00:00 (what the SQL takes apart), anything before
    st.builds(lambda head, minutes, tail: head + minutes + tail + "+00:00",
              st.text(min_size=14, max_size=14), st.text(min_size=2, max_size=2) | st.from_regex(
                  r"[0-9]{2}", fullmatch=True), st.text(min_size=10, max_size=10)))


@settings(max_examples=500, deadline=None)
@given(st.one_of(stored, odd))
def test_the_quarter_is_sqlites(at: str) -> None:
    conn = sqlite3.connect(":memory:")
    expected = conn.execute(f"SELECT {quarter_of('?1')}", (at,)).fetchone()[0]
    assert quarter_key(at, conn) == expected


def test_the_quarters_of_an_hour() -> None:
    conn = sqlite3.connect(":memory:")
    base = datetime(2024, 3, 1, 9, tzinfo=UTC)
    keys = {quarter_key(to_utc_text(base + timedelta(minutes=m)), conn) for m in range(60)}
    assert keys == {f"2024-03-01T09:{q:02d}" for q in (0, 15, 30, 45)}
