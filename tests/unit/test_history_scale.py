"""A history of any size: the summaries read by the home screen and the stats.

The stats come from summary tables the triggers of schema migration 3 keep; these tests
hold them to the straightforward reading of every attempt (written out here), through
inserts, hand edits and deletes, damaged rows and zones with odd offsets, and check the
shape that makes them fast: a fixed number of SQL statements whatever the size.
"""

from __future__ import annotations

import io
import json
import sqlite3
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from helpers import T0, Clock
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from questions.loader import Bank
from quiz.core.clock import from_utc_text, local_day, local_day_start, to_utc_text
from quiz.core.learn import learned_templates, offers_walk, progress, progress_in
from quiz.core.mistakes import leeches, mistakes
from quiz.core.settings import Settings
from quiz.core.state import AppState
from quiz.core.store import Attempt, Store
from quiz.core.store.records import ATTEMPT_COLUMNS, attempt_to_row
from quiz.core.store.schema import MIGRATIONS, statements
from quiz.core.store.stats import STREAK_WINDOW, home_figures
from quiz.core.store.writer import write_history
from quiz.core.trends import history_trends, item_trends, topic_trends
from quiz.tui.data import TREND_DAYS, home_summary, stats_data

ZONES: list[tzinfo] = [UTC, timezone(timedelta(hours=-5)), ZoneInfo("Asia/Kolkata"),
                       ZoneInfo("Asia/Kathmandu"), ZoneInfo("America/New_York"),
                       ZoneInfo("Australia/Lord_Howe")]
TEMPLATES = [("mem/a", "memory", ("rapid-fire-1",)), ("mem/b", "memory", ("rapid-fire-1", "zero")),
             ("comm/c", "communication", ("rapid-fire-4",)), ("comm/d", "communication", ())]


def attempt(i: int, when: datetime, verdict: str = "correct", template: int = 0) -> Attempt:
    template_id, topic, tags = TEMPLATES[template % len(TEMPLATES)]
    return Attempt(template_id=template_id, template_version=1, seed=i, mode="drill",
                   answer_text="1", verdict=verdict,  # type: ignore[arg-type]
                   score={"correct": 1.0, "partial": 0.5, "incorrect": 0.0}[verdict],
                   topic=topic, answered_at=when, seconds=10.0, tags=tags)


def reference(store: Store, recent: int = 50, weakest: int = 5) -> dict[str, Any]:
    """The stats as reading every row gives them (what quiz computed before migration 3)."""
    rows = store.query("SELECT id, template_id, verdict, score, answered_at, topic, tags "
                        "FROM attempts ORDER BY answered_at, id")
    good, unreadable = [], []
    for row in rows:
        try:
            tags = json.loads(row["tags"])
            if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
                raise ValueError("tags is not a list of text")
            day = local_day(from_utc_text(row["answered_at"]), store.tz)
        except (ValueError, TypeError, OverflowError):
            unreadable.append(row["id"])
            continue
        good.append((row["template_id"], row["topic"], tags, row["verdict"], row["score"], day))

    def group(items: list[tuple[str, float]]) -> dict[str, Any]:
        right = sum(v == "correct" for v, _ in items)
        return {"attempts": len(items), "correct": right, "accuracy": right / len(items),
                "mean_score": sum(s for _, s in items) / len(items)}

    by_topic: dict[str, list[tuple[str, float]]] = {}
    by_tag: dict[str, list[tuple[str, float]]] = {}
    by_template: dict[str, list[float]] = {}
    by_day: dict[date, list[bool]] = {}
    for template_id, topic, tags, verdict, score, day in good:
        by_topic.setdefault(topic, []).append((verdict, score))
        for tag in tags:
            by_tag.setdefault(tag, []).append((verdict, score))
        by_template.setdefault(template_id, []).append(score)
        by_day.setdefault(day, []).append(verdict == "correct")
    weak = sorted(((sum(s) / len(s), -len(s), t) for t, s in by_template.items() if len(s) > 1))
    streak, day = 0, store.today()
    day -= timedelta(days=day not in by_day)
    while day in by_day:
        streak, day = streak + 1, day - timedelta(days=1)
    last = [g[3] for g in good][-recent:] if recent else []
    verdicts = [g[3] for g in good]
    return {
        "attempts": len(good), "correct": verdicts.count("correct"),
        "partial": verdicts.count("partial"), "incorrect": verdicts.count("incorrect"),
        "mean_score": sum(g[4] for g in good) / len(good) if good else None,
        "by_topic": {k: group(v) for k, v in sorted(by_topic.items())},
        "by_tag": {k: group(v) for k, v in sorted(by_tag.items())},
        "recent_accuracy": last.count("correct") / len(last) if last else None,
        "weakest_templates": [{"template_id": t, "attempts": -n, "mean_score": m}
                              for m, n, t in weak[:weakest]],
        "accuracy_by_day": [(d.isoformat(), len(v), sum(v) / len(v))
                            for d, v in sorted(by_day.items())],
        "unreadable": unreadable,
        "streak_days": streak,
        "tallies": sorted(Counter((day, topic, tuple(tags), verdict == "correct")
                                  for _, topic, tags, verdict, _, day in good).items()),
    }


def same_home(store: Store) -> None:
    """The home screen's figures (recent days only) are those of reading every row."""
    want = reference(store)
    assert rounded(list(home_figures(store))) == rounded(
        [want["attempts"], want["streak_days"], want["recent_accuracy"]])


def same_tallies(store: Store, since: date) -> None:
    """The trends' day tallies (by SQL over the time index) are those of every row."""
    want: dict[tuple[date, str, tuple[str, ...]], list[int]] = {}
    for (day, topic, tags, right), n in reference(store)["tallies"]:
        if day >= since:
            tally = want.setdefault((day, topic, tags), [0, 0])
            tally[0] += n
            tally[1] += n * right
    assert [tuple(t) for t in store.recent_tallies(since)] == [
        (day, topic, tags, n, right) for (day, topic, tags), (n, right) in sorted(want.items())]


def same_stats(store: Store) -> None:
    got: dict[str, Any] = dict(store.stats())
    want = reference(store)
    assert [int(p.split(":")[0].removeprefix("attempt ")) for p in got.pop("unreadable")] \
        == sorted(want.pop("unreadable"))
    del want["tallies"]
    assert rounded(got) == rounded(want)


def rounded(value: Any) -> Any:
    """Floats to 9 places, tuples as lists, all the way down (sums differ in the last bit)."""
    if isinstance(value, float):
        return round(value, 9)
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [rounded(v) for v in value]
    return value


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "history.db", now=Clock(T0), tz=ZoneInfo("Asia/Kolkata")) as s:
        yield s


edits = st.lists(st.tuples(st.sampled_from(["insert", "insert", "insert", "move", "regrade",
                                            "delete", "bad-tags", "bad-time", "odd-time"]),
                           st.integers(0, 10**6), st.integers(-3000, 3000),
                           st.sampled_from(["correct", "partial", "incorrect"])),
                 max_size=25)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits, st.sampled_from(ZONES))
def test_summaries_match_reading_every_row_through_edits_and_damage(
        tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, int, int, str]],
        zone: tzinfo) -> None:
    path = tmp_path_factory.mktemp("h") / "history.db"
    with Store.open(path, now=Clock(T0), tz=zone) as store:
        raw = sqlite3.connect(path)  # edits by hand, as another program would make them
        for n, (kind, pick, minutes, verdict) in enumerate(steps):
            when = T0 + timedelta(minutes=minutes * 7)
            ids = [r[0] for r in raw.execute("SELECT id FROM attempts ORDER BY id")]
            target = ids[pick % len(ids)] if ids else None
            if kind == "insert" or target is None:
                store.record_attempt(attempt(n, when, verdict, pick))
            elif kind == "move":
                raw.execute("UPDATE attempts SET answered_at = ? WHERE id = ?",
                            (when.isoformat(timespec="microseconds"), target))
            elif kind == "regrade":
                raw.execute("UPDATE attempts SET verdict = ?, score = ?, topic = 'other' "
                            "WHERE id = ?", (verdict, 0.25, target))
            elif kind == "delete":
                raw.execute("DELETE FROM attempts WHERE id = ?", (target,))
            elif kind == "bad-tags":
                raw.execute("UPDATE attempts SET tags = '{oops' WHERE id = ?", (target,))
            elif kind == "bad-time":
                raw.execute("UPDATE attempts SET answered_at = ? WHERE id = ?",
                            (["yesterday", "2025-13-01T00:00:00.000000+00:00",
                              "2025-01-01T25:00:00.000000+00:00"][pick % 3], target))
            else:  # a valid time in another format and zone
                raw.execute("UPDATE attempts SET answered_at = ? WHERE id = ?",
                            (when.astimezone(timezone(timedelta(hours=5, minutes=45)))
                             .isoformat(), target))
            raw.commit()
        raw.close()
        same_stats(store)
        same_home(store)
        same_tallies(store, store.today() - timedelta(days=8))


def test_a_history_from_before_the_summaries_is_summarized_when_opened(tmp_path: Path) -> None:
    path = tmp_path / "history.db"
    conn = sqlite3.connect(path)
    for script in MIGRATIONS[:2]:
        for statement in statements(script):
            conn.execute(statement)
    conn.execute("PRAGMA user_version = 2")
    conn.execute("PRAGMA application_id = 1364543834")
    for i in range(30):
        template_id, topic, tags = TEMPLATES[i % 4]
        conn.execute("INSERT INTO attempts (template_id, template_version, seed, mode, "
                     "answer_text, verdict, score, seconds, answered_at, topic, tags) "
                     "VALUES (?, 1, ?, 'drill', '1', ?, ?, 1, ?, ?, ?)",
                     (template_id, i, "correct" if i % 3 else "incorrect", float(i % 3 > 0),
                      (T0 - timedelta(hours=5 * i)).isoformat(timespec="microseconds"),
                      topic, json.dumps(list(tags))))
    conn.commit()
    conn.close()
    with Store.open(path, now=Clock(T0), tz=ZoneInfo("America/New_York")) as store:
        assert store.count_attempts() == 30
        same_stats(store)


@pytest.mark.parametrize("zone", [ZoneInfo("Australia/Lord_Howe"), ZoneInfo("America/New_York")])
@pytest.mark.parametrize("gap", [None, 5, STREAK_WINDOW + 1, 5 * STREAK_WINDOW])
def test_a_streak_longer_than_the_days_read_first_is_read_on_to_its_start(
        tmp_path: Path, zone: tzinfo, gap: int | None) -> None:
    # An answer a day for 700 days (zones with half-hour and hour DST shifts), at a time
    # near local midnight, with one day missed ``gap`` days ago (or none).
    now = datetime(2025, 11, 20, 12, tzinfo=UTC)
    with Store.open(tmp_path / "h.db", now=Clock(now), tz=zone) as store:
        today = store.today()
        rows = []
        for back in range(700):
            if back == gap:
                continue
            start = datetime.combine(today - timedelta(days=back), datetime.min.time(), zone)
            rows.append(attempt_to_row(attempt(back, start + timedelta(minutes=back % 3),
                                               "correct", back)))
        insert(store, rows)
        want = gap if gap is not None else 700
        seen: list[str] = []
        store._conn.set_trace_callback(seen.append)
        assert home_figures(store).streak_days == want
        store._conn.set_trace_callback(None)
        assert want == store.stats()["streak_days"]
        same_home(store)
        # The last 64 days are counted; before them the streak is followed back in
        # windows of 256, 1,024 ... days, one query each that tests each day for an
        # answer (an index look-up) and stops at the first day without: no answer and
        # no summary row before that day is read.
        assert sum("JOIN attempt_quarters" in q for q in seen) == 1, seen
        walks = [q for q in seen if "NOT EXISTS" in q]
        assert len(walks) == sum(want >= STREAK_WINDOW * (4**k - 1) // 3
                                 for k in range(1, 5)), seen
        assert all("LIMIT" in q and "total(" not in q for q in walks)


def insert(store: Store, rows: list[tuple[object, ...]]) -> None:
    marks = ", ".join("?" * len(ATTEMPT_COLUMNS.split(",")))
    with store.transaction() as conn:
        conn.executemany(f"INSERT INTO attempts ({ATTEMPT_COLUMNS}) VALUES ({marks})", rows)


def test_streak_counts_local_days_in_a_half_hour_zone(store: Store) -> None:
    # Kolkata is UTC+5:30: 18:29 UTC is 23:59 on the 9th there, 18:31 UTC is the 10th.
    for when in (datetime(2025, 3, 8, 12, tzinfo=UTC), datetime(2025, 3, 9, 18, 29, tzinfo=UTC),
                 datetime(2025, 3, 9, 18, 31, tzinfo=UTC)):
        store.record_attempt(attempt(0, when))
    s = store.stats()
    assert [d for d, _, _ in s["accuracy_by_day"]] == ["2025-03-08", "2025-03-09", "2025-03-10"]
    assert s["streak_days"] == 3


def test_recent_trends_are_the_running_shares_of_every_attempt(tmp_path: Path) -> None:
    zone = ZoneInfo("America/New_York")  # days of 23 and 25 hours in the window
    now = datetime(2025, 11, 20, 12, tzinfo=UTC)
    with Store.open(tmp_path / "h.db", now=Clock(now), tz=zone) as store:
        for i in range(400):
            when = now - timedelta(hours=11 * i + 3)
            store.record_attempt(attempt(i, when, ("correct", "incorrect")[i % 3 == 0], i % 7))
        state = AppState(tmp_path, store, [], settings=Settings())
        data = stats_data(state, None, lambda: now)
        everything = store.attempts()
        since = (store.today() - timedelta(days=TREND_DAYS - 1)).isoformat()

        def window(trends: dict[str, list[tuple[str, float]]]) -> dict[str, Any]:
            return {k: [p for p in v if p[0] >= since] for k, v in trends.items()}

        assert data.topic_trend == window(topic_trends(everything, zone))
        assert data.item_trend == window(item_trends(everything, zone))
        assert len(data.topic_trend["memory"]) > 30


def test_trends_of_an_empty_window_are_empty() -> None:
    assert history_trends([("memory", (), 3, 1)], []) == ({}, {})


def queries_for(folder: Path, size: int) -> dict[str, list[str]]:
    """The SQL statements behind each screen and command that summarizes the history,
    for a history of ``size`` attempts spread over many days (an answer every 10 hours,
    some missed, some guided), the last three days ago. (A streak reads on by windows
    four times longer each: see the streak test.)"""
    now = T0 + timedelta(days=size * 10 // 24 + 3)
    folder.mkdir()
    with Store.open(folder / "h.db", now=Clock(now), tz=ZoneInfo("Asia/Kolkata")) as store:
        insert(store, [attempt_to_row(replace(
            attempt(i, T0 + timedelta(hours=10 * i), ("correct", "incorrect")[i % 3 == 0], i),
            guided=i % 50 == 7)) for i in range(size)])
        state = AppState(folder, store, [], settings=Settings())
        seen: dict[str, list[str]] = {}

        def trace(name: str, call: Callable[[], object]) -> None:
            seen[name] = []
            store._conn.set_trace_callback(seen[name].append)
            call()
            store._conn.set_trace_callback(None)

        trace("home", lambda: home_summary(store, state.settings, [t for t, _, _ in TEMPLATES],
                                          lambda: now))
        trace("stats screen", lambda: stats_data(state, None, lambda: now))
        trace("stats --json", lambda: (store.stats(), progress_in(store, TEMPLATES)))
        trace("mistakes", lambda: (mistakes(store, Bank()), leeches(store)))
        trace("walk offer", lambda: offers_walk(store, "mem/a"))
        trace("export", lambda: write_history(store, "json", io.StringIO()))
        trace("learn progress", lambda: progress_in(store, TEMPLATES))
        # An hour after the last answer: every day since the first has one, so the
        # streak runs back to it, past the days counted first.
        store.now = Clock(T0 + timedelta(hours=10 * (size - 1) + 1))
        trace("home, a streak to the first day", lambda: home_figures(store))
    return seen


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(-50, 50), st.booleans(),
                          st.sampled_from(["correct", "partial", "incorrect"])), max_size=30))
def test_learn_progress_by_sql_is_that_of_every_attempt(
        steps: list[tuple[int, int, bool, str]]) -> None:
    with tempfile.TemporaryDirectory() as folder, \
            Store.open(Path(folder) / "h.db", now=Clock(T0), tz=UTC) as store:
        for n, (template, hours, guided, verdict) in enumerate(steps):
            store.record_attempt(replace(attempt(n, T0 + timedelta(hours=hours), verdict,
                                                 template), guided=guided))
        assert store.learn_marks() == learned_templates(store.attempts())
        assert progress_in(store, TEMPLATES) == progress(store.attempts(), TEMPLATES)


def test_every_summary_issues_a_fixed_number_of_queries_whatever_the_size(
        tmp_path: Path) -> None:
    small = queries_for(tmp_path / "small", 40)
    big = queries_for(tmp_path / "big", 2000)
    # A streak is followed back a window at a time, each four times longer (16 days of
    # streak: none; 833 days: windows of 256 and 1,024 days), one query each.
    streak = "home, a streak to the first day"
    followed = big.pop(streak)
    walks = [q for q in followed if "NOT EXISTS" in q]
    assert len(followed) - len(small.pop(streak)) == len(walks) == 2, followed
    assert all("LIMIT" in q and "total(" not in q for q in walks)
    assert {k: len(q) for k, q in small.items()} == {k: len(q) for k, q in big.items()}
    assert len(big["home"]) <= 14 and len(big["stats screen"]) <= 16, big
    # None reads every attempt: a query of the attempts table has a bound (a time range,
    # a limit, an existence test, an index look-up), but for the export, which reads
    # them all as a stream (see test_export_streams).
    unbounded = [q for name, queries in [*big.items(), (streak, followed)]
                 if name != "export" for q in queries
                 if "FROM attempts" in q and not any(
                     bound in q for bound in ("WHERE", "LIMIT", "EXISTS", "JOIN attempts"))]
    assert unbounded == []


def test_the_mistakes_list_reads_the_latest_misses_not_every_attempt(tmp_path: Path) -> None:
    """Newest first, stopping at the limit: rows read grow with the limit, not the size."""
    for size in (200, 4000):
        with Store.open(tmp_path / f"{size}.db", now=Clock(T0), tz=UTC) as store:
            insert(store, [attempt_to_row(attempt(i, T0 - timedelta(minutes=i), "incorrect"))
                           for i in range(size)])
            read = counting_rows(store)
            found = mistakes(store, Bank(), limit=30)
            assert [m.attempt.seed for m in found] == list(range(30))
            assert read() == 30


def counting_rows(store: Store) -> Callable[[], int]:
    """Count the rows the store's streamed queries hand out from now on."""
    read = 0
    stream = store.stream

    def counting(sql: str, params: Sequence[object] = (), size: int = 500
                 ) -> Iterator[sqlite3.Row]:
        nonlocal read
        for row in stream(sql, params, size):
            read += 1
            yield row

    store.stream = counting  # type: ignore[method-assign]
    return lambda: read


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["mem/a", "mem/ab", "memx/a", "comm/c", "ü/ä"]),
                          st.sampled_from(["memory", "comm", "mem"]),
                          st.lists(st.sampled_from(["rapid-fire-1", "mem", "a, b", "ü"]),
                                   max_size=2),
                          st.sampled_from(["correct", "partial", "incorrect"])), max_size=25),
       st.sampled_from(["mem", "mem/", "memory", "mem/a", "rapid-fire-1", "a, b", "ü", "ü/",
                        "comm", "nothing", ""]))
def test_the_mistakes_filter_in_sql_keeps_what_the_topic_matches(
        rows: list[tuple[str, str, list[str], str]], topic: str) -> None:
    from quiz.core.mistakes import _matches

    with tempfile.TemporaryDirectory() as folder, \
            Store.open(Path(folder) / "h.db", now=Clock(T0), tz=UTC) as store:
        for n, (template_id, topic_of, tags, verdict) in enumerate(rows):
            store.record_attempt(replace(attempt(n, T0 + timedelta(minutes=n), verdict),
                                         template_id=template_id, topic=topic_of,
                                         tags=tuple(tags)))
        want = [a.seed for a in reversed(store.attempts())
                if a.verdict != "correct" and _matches(a, topic)]
        got = [m.attempt.seed for m in mistakes(store, Bank(), topic=topic, limit=None)]
        assert got == want


def bounds_day_by_day(tz: tzinfo | None, first: date, last: date) -> str:
    """Each local day's first and next day's first quarter key, each worked out from the
    calendar (what the days' bounds were before they were stepped 24 hours at a time)."""
    days = []
    day = first
    while day <= last:
        following = day + timedelta(days=1)
        days.append((day.isoformat(), to_utc_text(local_day_start(day, tz))[:16],
                     to_utc_text(local_day_start(following, tz))[:16]))
        day = following
    return json.dumps(days)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([*ZONES, None, ZoneInfo("America/Santiago"), ZoneInfo("Africa/Casablanca"),
                        ZoneInfo("Pacific/Apia"), ZoneInfo("America/Havana")]),
       st.dates(date(1890, 1, 1), date(2090, 1, 1)), st.integers(0, 400))
@example(ZoneInfo("Pacific/Apia"), date(2011, 11, 1), 100)  # 2011-12-30 was skipped there
def test_days_stepped_a_day_at_a_time_start_at_local_midnight(
        zone: tzinfo | None, first: date, length: int) -> None:
    from quiz.core.store.stats import _bounds

    last = first + timedelta(days=length)
    assert _bounds(zone, first, last) == bounds_day_by_day(zone, first, last)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["bad-tags", "bad-time", "odd-time", "delete",
                                           "extra"]), st.integers(0, 599)), max_size=8),
       st.sampled_from(ZONES), st.integers(0, 600))
def test_a_long_streak_followed_back_past_hand_edits_is_that_of_every_row(
        steps: list[tuple[str, int]], zone: tzinfo, length: int) -> None:
    # An answer a day for ``length`` days (past the days counted first), then hand edits
    # on days before them: an unreadable answer leaves its day empty, an answer whose
    # time is stored in another format keeps its day answered.
    now = datetime(2025, 11, 20, 12, tzinfo=UTC)
    with tempfile.TemporaryDirectory() as folder, \
            Store.open(Path(folder) / "h.db", now=Clock(now), tz=zone) as store:
        today = store.today()
        rows = []
        for back in range(length):
            start = datetime.combine(today - timedelta(days=back), datetime.min.time(), zone)
            rows.append(attempt_to_row(attempt(back, start + timedelta(hours=back % 23))))
        insert(store, rows)
        raw = sqlite3.connect(Path(folder) / "h.db")
        for kind, back in steps:
            if kind == "extra":
                start = datetime.combine(today - timedelta(days=back), datetime.min.time(),
                                         zone)
                store.record_attempt(attempt(10**6 + back, start + timedelta(minutes=30)))
                continue
            ids = [r[0] for r in raw.execute("SELECT id FROM attempts WHERE seed = ?",
                                             (back,))] or [0]
            if kind == "bad-tags":
                raw.execute("UPDATE attempts SET tags = '{oops' WHERE id = ?", ids[:1])
            elif kind == "bad-time":
                raw.execute("UPDATE attempts SET answered_at = 'then' WHERE id = ?", ids[:1])
            elif kind == "delete":
                raw.execute("DELETE FROM attempts WHERE id = ?", ids[:1])
            else:  # the same instant, written with another offset
                for (when,) in raw.execute("SELECT answered_at FROM attempts WHERE id = ?",
                                           ids[:1]).fetchall():
                    if when == "then":  # a "bad-time" step broke this row already
                        continue
                    moved = from_utc_text(when).astimezone(
                        timezone(timedelta(hours=5, minutes=45))).isoformat()
                    raw.execute("UPDATE attempts SET answered_at = ? WHERE id = ?",
                                (moved, ids[0]))
            raw.commit()
        raw.close()
        same_home(store)
