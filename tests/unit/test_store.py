"""Behaviour of the SQLite history store (quiz.core.store)."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from helpers import LOCAL, T0, Clock
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from quiz.core.clock import from_utc_text, local_day, local_day_start, to_utc_text
from quiz.core.store import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    Attempt,
    MockResult,
    Review,
    Store,
    StoreError,
)


def make_attempt(**overrides: object) -> Attempt:
    fields: dict[str, object] = {
        "template_id": "memory/model-state",
        "template_version": 1,
        "seed": 7,
        "mode": "drill",
        "answer_text": "1.13 TB",
        "verdict": "correct",
        "score": 1.0,
        "topic": "memory",
        "answered_at": T0,
        "seconds": 42.0,
        "tags": ("rapid-fire-1",),
    }
    fields.update(overrides)
    return Attempt(**fields)  # type: ignore[arg-type]


@pytest.fixture
def clock() -> Clock:
    return Clock(T0)


@pytest.fixture
def store(tmp_path: Path, clock: Clock) -> Iterator[Store]:
    with Store.open(tmp_path / "history.db", now=clock, tz=LOCAL) as opened:
        yield opened


def raw(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(str(path))


# ----------------------------------------------------------------------- schema


def test_fresh_store_is_created_at_the_latest_schema(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "history.db"
    with Store.open(path) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert store.recovered_from is None
        assert store.recovery_message is None
    conn = raw(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"attempts", "cards", "review_log", "mock_sessions", "meta"} <= tables
    conn.close()


def test_reopening_keeps_data_and_runs_no_migration_twice(tmp_path: Path) -> None:
    path = tmp_path / "history.db"
    with Store.open(path) as store:
        store.record_attempt(make_attempt())
    for _ in range(3):
        with Store.open(path) as store:
            assert store.recovered_from is None
            assert store.schema_version == SCHEMA_VERSION
            assert len(store.attempts()) == 1


def test_empty_file_is_initialised_in_place(tmp_path: Path) -> None:
    path = tmp_path / "history.db"
    path.write_bytes(b"")
    with Store.open(path) as store:
        assert store.recovered_from is None
        assert store.schema_version == SCHEMA_VERSION
    assert list(tmp_path.glob("*.corrupt-*")) == []


def test_connection_is_durable_wal_with_full_sync_and_foreign_keys(store: Store) -> None:
    conn = store._conn
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1


# ----------------------------------------------------------------------- attempts


def test_attempt_round_trips_every_field(store: Store) -> None:
    session = store.start_mock(minutes=30, n_questions=8)
    local_time = datetime(2025, 3, 10, 10, 0, 0, 123456, tzinfo=LOCAL)
    original = make_attempt(
        verdict="partial",
        score=0.5,
        mistake="forgot-optimizer-states",
        hints_used=2,
        hint_cost=0.25,
        seconds=61.5,
        answered_at=local_time,
        tags=("rapid-fire-2", "zero"),
        session_id=session,
        mode="mock",
        answer_text="70 GB ≈ 65 GiB",
        seed=2**62,
    )
    attempt_id = store.record_attempt(original)
    (loaded,) = store.attempts()
    assert loaded.id == attempt_id
    assert loaded.answered_at == local_time  # same instant...
    assert loaded.answered_at.utcoffset() == timedelta(0)  # ...returned in UTC
    assert replace(loaded, id=None, answered_at=local_time) == original


def test_times_are_stored_as_utc_text(store: Store) -> None:
    store.record_attempt(make_attempt(answered_at=datetime(2025, 1, 1, 23, 30, tzinfo=LOCAL)))
    text = store._conn.execute("SELECT answered_at FROM attempts").fetchone()[0]
    assert text == "2025-01-02T04:30:00.000000+00:00"


@pytest.mark.parametrize("verdict", ["invalid", "wrong", ""])
def test_invalid_verdict_is_not_stored_as_an_attempt(store: Store, verdict: str) -> None:
    with pytest.raises(ValueError, match="verdict"):
        store.record_attempt(make_attempt(verdict=verdict))
    assert store.attempts() == []
    assert store.stats()["attempts"] == 0


@pytest.mark.parametrize(
    "overrides",
    [
        {"score": 1.5},
        {"score": float("nan")},
        {"seconds": -1.0},
        {"hints_used": -1},
        {"mode": "exam"},
        {"template_id": ""},
        {"answered_at": datetime(2025, 1, 1, 12, 0)},  # naive: ambiguous
        {"seed": 2**64},
    ],
)
def test_out_of_range_attempt_is_rejected(store: Store, overrides: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        store.record_attempt(make_attempt(**overrides))
    assert store.attempts() == []


def test_attempt_in_unknown_mock_session_is_rejected(store: Store) -> None:
    with pytest.raises(sqlite3.IntegrityError):
        store.record_attempt(make_attempt(session_id=999))
    assert store.attempts() == []


def test_attempts_filter_by_time_and_template(store: Store) -> None:
    for hours, template in [(0, "a"), (1, "b"), (2, "a"), (3, "b")]:
        store.record_attempt(
            make_attempt(template_id=template, answered_at=T0 + timedelta(hours=hours))
        )
    assert [a.template_id for a in store.attempts()] == ["a", "b", "a", "b"]
    assert len(store.attempts(since=T0 + timedelta(hours=2))) == 2
    assert len(store.attempts(template_id="a")) == 2
    (only,) = store.attempts(since=T0 + timedelta(minutes=30), template_id="a")
    assert only.answered_at == T0 + timedelta(hours=2)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    answer=st.text(max_size=200),
    tags=st.lists(st.text(min_size=1, max_size=20), max_size=5).map(tuple),
    score=st.floats(min_value=0, max_value=1),
    seconds=st.floats(min_value=0, max_value=1e6),
    mistake=st.none() | st.text(max_size=30),
    offset_minutes=st.integers(min_value=-14 * 60, max_value=14 * 60),
)
def test_any_attempt_round_trips(
    tmp_path: Path,
    answer: str,
    tags: tuple[str, ...],
    score: float,
    seconds: float,
    mistake: str | None,
    offset_minutes: int,
) -> None:
    when = datetime(2024, 2, 29, 12, tzinfo=timezone(timedelta(minutes=offset_minutes)))
    original = make_attempt(
        answer_text=answer,
        tags=tags,
        score=score,
        seconds=seconds,
        mistake=mistake,
        answered_at=when,
        verdict="partial",
    )
    with Store.open(tmp_path / "prop.db") as store:
        attempt_id = store.record_attempt(original)
        loaded = next(a for a in store.attempts() if a.id == attempt_id)
    assert (loaded.answer_text, loaded.tags, loaded.score) == (answer, tags, score)
    assert (loaded.seconds, loaded.mistake, loaded.answered_at) == (seconds, mistake, when)


# ----------------------------------------------------------------------- stats


def test_stats_of_an_empty_history(store: Store) -> None:
    stats = store.stats()
    assert stats["attempts"] == 0
    assert stats["correct"] == 0
    assert stats["by_topic"] == {}
    assert stats["by_tag"] == {}
    assert stats["streak_days"] == 0
    assert stats["recent_accuracy"] is None
    assert stats["mean_score"] is None
    assert stats["weakest_templates"] == []
    assert stats["accuracy_by_day"] == []
    json.dumps(stats)


def test_stats_count_topics_tags_and_weakest_templates(store: Store) -> None:
    rows = [
        ("mem/a", "memory", ("rapid-fire-1",), "correct", 1.0),
        ("mem/a", "memory", ("rapid-fire-1",), "incorrect", 0.0),
        ("mem/b", "memory", ("rapid-fire-1", "zero"), "correct", 1.0),
        ("comm/c", "communication", ("rapid-fire-4",), "partial", 0.5),
        ("comm/c", "communication", ("rapid-fire-4",), "incorrect", 0.0),
        ("comm/d", "communication", (), "correct", 1.0),
    ]
    for i, (template, topic, tags, verdict, score) in enumerate(rows):
        store.record_attempt(
            make_attempt(
                template_id=template,
                topic=topic,
                tags=tags,
                verdict=verdict,
                score=score,
                answered_at=T0 + timedelta(minutes=i),
            )
        )
    stats = store.stats()
    assert (stats["attempts"], stats["correct"], stats["partial"], stats["incorrect"]) == (
        6,
        3,
        1,
        2,
    )
    assert stats["by_topic"]["memory"] == {
        "attempts": 3,
        "correct": 2,
        "accuracy": pytest.approx(2 / 3),
        "mean_score": pytest.approx(2 / 3),
    }
    assert stats["by_topic"]["communication"]["accuracy"] == pytest.approx(1 / 3)
    assert stats["by_topic"]["communication"]["mean_score"] == pytest.approx(0.5)
    assert stats["by_tag"]["rapid-fire-1"]["attempts"] == 3
    assert stats["by_tag"]["zero"] == {
        "attempts": 1,
        "correct": 1,
        "accuracy": 1.0,
        "mean_score": 1.0,
    }
    # Only templates with at least two attempts, lowest mean score first.
    assert [t["template_id"] for t in stats["weakest_templates"]] == ["comm/c", "mem/a"]
    assert stats["weakest_templates"][0]["mean_score"] == pytest.approx(0.25)
    assert stats["recent_accuracy"] == pytest.approx(0.5)
    assert stats["accuracy_by_day"] == [("2025-03-10", 6, 0.5)]
    json.dumps(stats)


def test_recent_accuracy_covers_only_the_last_50_attempts(store: Store) -> None:
    for i in range(60):
        verdict = "incorrect" if i < 10 else "correct"
        store.record_attempt(
            make_attempt(
                verdict=verdict,
                score=float(verdict == "correct"),
                answered_at=T0 + timedelta(seconds=i),
            )
        )
    stats = store.stats()
    assert stats["recent_accuracy"] == 1.0
    assert stats["correct"] == 50


def _attempt_on_local_day(store: Store, day: date, hour: int = 12) -> None:
    when = datetime(day.year, day.month, day.day, hour, tzinfo=LOCAL)
    store.record_attempt(make_attempt(answered_at=when))


def test_streak_counts_consecutive_local_days_ending_today(store: Store) -> None:
    today = date(2025, 3, 10)
    for back in (0, 1, 2, 4):
        _attempt_on_local_day(store, today - timedelta(days=back))
    assert store.stats()["streak_days"] == 3


def test_streak_survives_until_the_end_of_the_day_after(store: Store, clock: Clock) -> None:
    today = date(2025, 3, 10)
    for back in (1, 2):
        _attempt_on_local_day(store, today - timedelta(days=back))
    assert store.stats()["streak_days"] == 2  # nothing today yet: still alive
    clock.value = T0 + timedelta(days=1)
    assert store.stats()["streak_days"] == 0  # a whole local day was missed


def test_streak_and_daily_accuracy_use_local_days_not_utc_days(store: Store, clock: Clock) -> None:
    # 23:30 local on the 9th is 04:30 UTC on the 10th; 01:00 local on the 10th.
    store.record_attempt(make_attempt(answered_at=datetime(2025, 3, 9, 23, 30, tzinfo=LOCAL)))
    store.record_attempt(
        make_attempt(
            answered_at=datetime(2025, 3, 10, 1, 0, tzinfo=LOCAL),
            verdict="incorrect",
            score=0.0,
        )
    )
    stats = store.stats()
    assert stats["streak_days"] == 2
    assert stats["accuracy_by_day"] == [("2025-03-09", 1, 1.0), ("2025-03-10", 1, 0.0)]
    # Seen from UTC, both attempts fall on the same day: no two-day streak there.
    with Store.open(store.path, now=clock, tz=UTC) as utc_store:
        assert utc_store.stats()["streak_days"] == 1


def test_local_day_boundaries_follow_daylight_saving() -> None:
    new_york = ZoneInfo("America/New_York")
    # DST began on 2025-03-09 at 02:00 local: midnight was UTC-5, the next one UTC-4.
    assert local_day_start(date(2025, 3, 9), new_york) == datetime(2025, 3, 9, 5, tzinfo=UTC)
    assert local_day_start(date(2025, 3, 10), new_york) == datetime(2025, 3, 10, 4, tzinfo=UTC)
    assert local_day(datetime(2025, 3, 10, 3, 59, tzinfo=UTC), new_york) == date(2025, 3, 9)
    assert local_day(datetime(2025, 3, 10, 4, 0, tzinfo=UTC), new_york) == date(2025, 3, 10)


def test_utc_text_round_trips_and_sorts_like_time() -> None:
    times = [
        datetime(2025, 1, 1, 0, 0, tzinfo=LOCAL),
        datetime(2025, 1, 1, 4, 59, 59, 999999, tzinfo=UTC),
        datetime(2025, 1, 1, 5, 0, 0, 1, tzinfo=UTC),
    ]
    texts = [to_utc_text(t) for t in times]
    assert [from_utc_text(t) for t in texts] == times
    assert sorted(texts, key=lambda t: t) == [to_utc_text(t) for t in sorted(times)]


# ----------------------------------------------------------------------- recovery


def test_garbage_file_is_moved_aside_and_a_fresh_store_works(tmp_path: Path, clock: Clock) -> None:
    path = tmp_path / "history.db"
    garbage = bytes(range(256)) * 64
    path.write_bytes(garbage)
    with Store.open(path, now=clock) as store:
        assert store.recovered_from is not None
        assert store.recovered_from.name == "history.db.corrupt-20250310T150000Z"
        assert store.recovered_from.read_bytes() == garbage  # kept, byte for byte
        assert store.recovery_message is not None
        assert "history.db.corrupt-20250310T150000Z" in store.recovery_message
        assert "not an SQLite database" in store.recovery_message
        store.record_attempt(make_attempt())
        assert len(store.attempts()) == 1
        assert store.integrity_ok()
    with Store.open(path, now=clock) as store:
        assert store.recovered_from is None
        assert len(store.attempts()) == 1


def test_damaged_pages_are_detected_and_the_file_moved_aside(tmp_path: Path) -> None:
    path = tmp_path / "history.db"
    with Store.open(path) as store:
        for i in range(200):
            store.record_attempt(make_attempt(seed=i, answer_text="x" * 100))
    data = bytearray(path.read_bytes())
    page = 4096
    assert len(data) > 5 * page
    for offset in range(2 * page, 5 * page):  # scramble b-tree pages, keep the header
        data[offset] = (data[offset] * 7 + 13) % 256
    path.write_bytes(bytes(data))
    with Store.open(path) as store:
        assert store.recovered_from is not None
        assert store.recovered_from.read_bytes() == bytes(data)
        assert "damaged" in (store.recovery_message or "")
        assert store.attempts() == []


def test_foreign_sqlite_file_is_moved_aside_untouched(tmp_path: Path) -> None:
    path = tmp_path / "history.db"
    conn = raw(path)
    conn.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
    conn.execute("INSERT INTO users (name) VALUES ('ada')")
    conn.commit()
    conn.close()
    assert raw(path).execute("PRAGMA user_version").fetchone()[0] == 0
    with Store.open(path) as store:
        assert store.recovered_from is not None
        assert "not a quiz history" in (store.recovery_message or "")
        assert "users" in (store.recovery_message or "")
        assert store.schema_version == SCHEMA_VERSION
        aside = raw(store.recovered_from)
        assert aside.execute("SELECT name FROM users").fetchall() == [("ada",)]
        aside.close()


def test_history_from_a_newer_quiz_is_refused_not_moved_or_downgraded(tmp_path: Path) -> None:
    """Moving it aside as damaged would hide it from the newer quiz too: say upgrade."""
    path = tmp_path / "history.db"
    with Store.open(path) as store:
        store.record_attempt(make_attempt())
    conn = raw(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreError, match="upgrade quiz"):
        Store.open(path)
    assert not list(tmp_path.glob("*.corrupt-*"))
    conn = raw(path)
    assert conn.execute("SELECT count(*) FROM attempts").fetchone()[0] == 1
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
    conn.close()


def test_wal_and_shm_files_move_with_the_corrupt_file(tmp_path: Path, clock: Clock) -> None:
    path = tmp_path / "history.db"
    path.write_bytes(b"not a database at all" * 100)
    Path(f"{path}-wal").write_bytes(b"old wal")
    Path(f"{path}-shm").write_bytes(b"old shm")
    with Store.open(path, now=clock) as store:
        aside = store.recovered_from
        assert aside is not None
        assert Path(f"{aside}-wal").read_bytes() == b"old wal"
        assert Path(f"{aside}-shm").read_bytes() == b"old shm"
        store.record_attempt(make_attempt())
        assert len(store.attempts()) == 1


def test_two_recoveries_in_the_same_second_keep_both_files(tmp_path: Path, clock: Clock) -> None:
    path = tmp_path / "history.db"
    asides = []
    for content in (b"first garbage" * 10, b"second garbage" * 10):
        path.write_bytes(content)
        for side in ("-wal", "-shm"):
            Path(f"{path}{side}").unlink(missing_ok=True)
        with Store.open(path, now=clock) as store:
            assert store.recovered_from is not None
            asides.append(store.recovered_from)
    assert asides[0] != asides[1]
    assert asides[0].read_bytes() == b"first garbage" * 10
    assert asides[1].read_bytes() == b"second garbage" * 10


def test_unopenable_path_raises_and_moves_nothing(tmp_path: Path) -> None:
    path = tmp_path / "history.db"
    path.mkdir()  # a folder where the file should be: not corruption, an error
    with pytest.raises(StoreError, match=r"history\.db"):
        Store.open(path)
    assert path.is_dir()
    assert list(tmp_path.glob("*.corrupt-*")) == []


def test_integrity_check_passes_on_a_healthy_store(store: Store) -> None:
    store.record_attempt(make_attempt())
    assert store.integrity_ok()


# ----------------------------------------------------------------------- mocks


def test_mock_session_lifecycle(store: Store, clock: Clock) -> None:
    first = store.start_mock(minutes=30, n_questions=2)
    store.record_attempt(make_attempt(mode="mock", session_id=first))
    store.record_attempt(make_attempt(mode="mock", session_id=first, verdict="incorrect", score=0))
    clock.value = T0 + timedelta(minutes=25)
    store.finish_mock(first, score=0.5, report={"per_topic": {"memory": 0.5}})
    clock.value = T0 + timedelta(hours=1)
    abandoned = store.start_mock(minutes=10, n_questions=3)

    newest, oldest = store.mock_history()
    assert newest.id == abandoned
    assert newest.finished_at is None
    assert newest.score is None
    assert oldest.id == first
    assert oldest.started_at == T0
    assert oldest.finished_at == T0 + timedelta(minutes=25)
    assert oldest.score == 0.5
    assert oldest.report == {"per_topic": {"memory": 0.5}}
    assert len(store.attempts(session_id=first)) == 2
    assert store.mock_history(limit=1) == [newest]
    with pytest.raises(KeyError):
        store.finish_mock(12345, score=1.0, report={})


def test_record_mock_stores_a_complete_session(store: Store) -> None:
    result = MockResult(
        started_at=T0,
        finished_at=T0 + timedelta(minutes=30),
        minutes=30,
        n_questions=8,
        score=0.75,
        report={"answered": 8},
    )
    session = store.record_mock(result)
    (loaded,) = store.mock_history()
    assert loaded == MockResult(
        id=session,
        started_at=T0,
        finished_at=T0 + timedelta(minutes=30),
        minutes=30,
        n_questions=8,
        score=0.75,
        report={"answered": 8},
    )


# ----------------------------------------------------------------------- cards, meta


def test_card_and_its_review_are_saved_together(store: Store) -> None:
    assert store.get_card("t") is None
    review = Review(template_id="t", rating=3, reviewed_at=T0, state_before=0)
    store.put_card("t", '{"v": 1}', review)
    store.put_card(
        "t",
        '{"v": 2}',
        Review(template_id="t", rating=1, reviewed_at=T0 + timedelta(days=1), state_before=2),
    )
    assert store.get_card("t") == '{"v": 2}'
    assert store.cards() == {"t": '{"v": 2}'}
    first, second = store.reviews()
    assert (first.rating, first.state_before, first.reviewed_at) == (3, 0, T0)
    assert (second.rating, second.state_before) == (1, 2)
    assert store.reviews(since=T0 + timedelta(hours=1)) == [second]
    assert store.reviews(template_id="other") == []


def test_review_for_another_template_is_rejected_and_nothing_saved(store: Store) -> None:
    with pytest.raises(ValueError):
        store.put_card("t", "{}", Review(template_id="u", rating=3, reviewed_at=T0, state_before=0))
    with pytest.raises(ValueError):
        store.put_card("t", "{}", Review(template_id="t", rating=5, reviewed_at=T0, state_before=0))
    assert store.get_card("t") is None
    assert store.reviews() == []


def test_store_can_be_used_from_worker_threads(store: Store) -> None:
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(5):
                store.record_attempt(make_attempt(seed=n * 100 + i))
                store.stats()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(store.attempts()) == 20


def test_two_processes_worth_of_connections_share_the_file(tmp_path: Path) -> None:
    path = tmp_path / "history.db"
    with Store.open(path) as first, Store.open(path) as second:
        first.record_attempt(make_attempt(seed=1))
        second.record_attempt(make_attempt(seed=2))
        assert {a.seed for a in first.attempts()} == {1, 2}


# ----------------------------------------------------------------------- backups


def test_backups_are_written_once_per_local_day_and_pruned(
    tmp_path: Path, store: Store, clock: Clock
) -> None:
    backups = tmp_path / "backups"
    store.record_attempt(make_attempt())
    first = store.backup_if_due(backups, keep=3)
    assert first is not None
    assert first.name == "history-2025-03-10.db"
    assert store.backup_if_due(backups, keep=3) is None  # same local day
    clock.value = T0 + timedelta(hours=8)  # 23:00 local: still the 10th locally
    assert store.backup_if_due(backups, keep=3) is None
    for day in range(1, 6):
        clock.value = T0 + timedelta(days=day)
        assert store.backup_if_due(backups, keep=3) is not None
    names = sorted(p.name for p in backups.iterdir())
    assert names == ["history-2025-03-13.db", "history-2025-03-14.db", "history-2025-03-15.db"]


def test_backup_is_a_self_contained_quiz_history(tmp_path: Path, store: Store) -> None:
    store.record_attempt(make_attempt(seed=11))
    backup = store.backup_if_due(tmp_path / "backups")
    assert backup is not None
    assert [p.name for p in backup.parent.iterdir()] == [backup.name]  # no -wal, no .partial
    with Store.open(backup) as restored:
        assert restored.recovered_from is None
        assert [a.seed for a in restored.attempts()] == [11]


def test_pruning_leaves_unrelated_files_alone(tmp_path: Path, store: Store) -> None:
    backups = tmp_path / "backups"
    backups.mkdir()
    (backups / "notes.txt").write_text("mine")
    (backups / "history-2020-01-01.db").write_bytes(b"old")
    store.backup_if_due(backups, keep=1)
    assert sorted(p.name for p in backups.iterdir()) == ["history-2025-03-10.db", "notes.txt"]
