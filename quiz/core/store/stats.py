"""What the stats screen and ``quiz stats --json`` show, computed from the history."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Collection, Iterable, Sequence
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import TYPE_CHECKING, Final, NamedTuple, TypedDict

from quiz.core.clock import from_utc_text, local_day, local_day_start
from quiz.core.store.schema import ODD_QUARTER, quarter_of

if TYPE_CHECKING:
    from quiz.core.store.database import Database

__all__ = ["DayAccuracy", "DayTally", "GroupStats", "HomeFigures", "Readable", "Stats",
           "TemplateStats", "home_figures", "readable", "recent_tallies", "stats"]


class GroupStats(TypedDict):
    """Totals for one topic or tag."""

    attempts: int
    correct: int
    accuracy: float
    mean_score: float


class TemplateStats(TypedDict):
    """Totals for one template (see ``Stats.weakest_templates``)."""

    template_id: str
    attempts: int
    mean_score: float


DayAccuracy = tuple[str, int, float]
"""(local date ISO, attempts that day, share correct that day)."""


class Stats(TypedDict):
    """What :meth:`Store.stats` returns; JSON-serializable as is."""

    attempts: int
    correct: int
    partial: int
    incorrect: int
    mean_score: float | None
    by_topic: dict[str, GroupStats]
    by_tag: dict[str, GroupStats]
    streak_days: int
    recent_accuracy: float | None
    weakest_templates: list[TemplateStats]
    accuracy_by_day: list[DayAccuracy]
    unreadable: list[str]
    """Attempts left out because their row cannot be read, each named by its id."""


class DayTally(NamedTuple):
    """Answers on one local day in one topic with one set of tags (the trends)."""

    day: date
    topic: str
    tags: tuple[str, ...]
    attempts: int
    correct: int


class Readable(NamedTuple):
    """The history's summary tables, with the attempts that cannot be read left out."""

    groups: dict[tuple[str, str, str], _Totals]
    """(template id, topic, tags text) -> totals."""
    days: dict[date, list[int]]
    """local day -> [attempts, correct]."""
    unreadable: list[str]
    """Each attempt left out, named by its id, with the reason."""
    left_out: set[int]
    """Their ids."""
    rest: _Rest | None = None
    """What more days read later need (see :func:`_window`)."""


def stats(store: Database, *, recent: int = 50, weakest: int = 5,
          base: Readable | None = None) -> Stats:
    """Summarize the history for ``quiz stats --json`` and the stats screen.

    Accuracy is the share of attempts graded ``correct``; partial credit counts
    in ``mean_score`` only. Days are local days.

    Reads the summary tables the triggers of schema migration 3 keep (a row per
    template and set of tags, and per quarter hour answered), never every attempt: a
    handful of queries whatever the history's size. Attempts whose row cannot be read
    (edited by hand, a damaged page) are left out whole and named.

    Args:
        recent: How many latest attempts ``recent_accuracy`` covers.
        weakest: How many templates ``weakest_templates`` lists (those with at
            least 2 attempts, lowest mean score first).
        base: :func:`readable` of the store, when already read.

    Returns:
        A JSON-serializable :class:`Stats` dict.
    """
    base = base if base is not None else readable(store)
    by_topic: dict[str, _Totals] = {}
    by_tag: dict[str, _Totals] = {}
    by_template: dict[str, _Totals] = {}
    everything = _Totals()
    for (template_id, topic, _), group in base.groups.items():
        everything.add(group)
        by_topic.setdefault(topic, _Totals()).add(group)
        by_template.setdefault(template_id, _Totals()).add(group)
        for tag in group.tags:
            by_tag.setdefault(tag, _Totals()).add(group)

    candidates: list[TemplateStats] = [
        {"template_id": tid, "attempts": t.attempts, "mean_score": t.score / t.attempts}
        for tid, t in by_template.items()
        if t.attempts >= 2
    ]
    candidates.sort(key=lambda t: (t["mean_score"], -t["attempts"], t["template_id"]))
    last = _latest_verdicts(store, recent, base.left_out)
    n = everything.attempts
    return {
        "attempts": n,
        "correct": everything.correct,
        "partial": everything.partial,
        "incorrect": n - everything.correct - everything.partial,
        "mean_score": everything.score / n if n else None,
        "by_topic": {topic: t.group() for topic, t in sorted(by_topic.items())},
        "by_tag": {tag: t.group() for tag, t in sorted(by_tag.items())},
        "streak_days": _streak(set(base.days), store.today()),
        "recent_accuracy": last.count("correct") / len(last) if last else None,
        "weakest_templates": candidates[:weakest],
        "accuracy_by_day": [
            (day.isoformat(), count, right / count)
            for day, (count, right) in sorted(base.days.items())
        ],
        "unreadable": base.unreadable,
    }


def readable(store: Database, since: date | None = None) -> Readable:
    """Totals per (template, topic, tags) and per local day, from the summary tables.

    The attempts behind tags or a time that cannot be read are found by a scan (only
    when there are some), named, and taken out of both.

    Args:
        since: Only the local days from this one on (the totals are all-time): what the
            home screen's streak reads first, a few weeks whatever the history's size.
    """
    groups, bad_tags = _groups(store)
    times, bad_quarters = _odd_keys(store)
    odd_days = _odd_days(store, times)
    bad = _bad_rows(store, bad_tags, bad_quarters) if bad_tags or bad_quarters else []
    unreadable: list[str] = []
    left_out: set[int] = set()
    for row in bad:
        left_out.add(row["id"])
        tags_problem = bad_tags.get(row["tags"])
        unreadable.append(f"attempt {row['id']}: "
                          f"{tags_problem or bad_quarters.get(row['quarter'])}")
        if tags_problem is None:  # counted in its group: take it out
            group = groups.get((str(row["template_id"]), str(row["topic"]), row["tags"]))
            if group is not None:
                group.subtract(row["verdict"] == "correct", row["verdict"] == "partial",
                               float(row["score"]))
    rest = _Rest(bad, bad_quarters, odd_days, [*times, *bad_quarters])
    return Readable({key: g for key, g in groups.items() if g.attempts > 0},
                    _window(store, since, None, rest), unreadable, left_out, rest)


class HomeFigures(NamedTuple):
    """What the home screen shows of the history."""

    attempts: int
    """Readable attempts."""
    streak_days: int
    """Local days in a row with an answer, up to today (or yesterday)."""
    recent_accuracy: float | None
    """Share correct of the latest readable answers (None: no answer yet)."""


STREAK_WINDOW: Final = 64
"""Local days the home screen reads first for the streak; a longer streak is followed
back, four times as many days each time, until it ends."""


def home_figures(store: Database, *, recent: int = 50) -> HomeFigures:
    """The home screen's figures, reading the last few weeks of days, not every one.

    The streak reads :data:`STREAK_WINDOW` days back from today; a streak that goes on
    past them is followed back by an indexed test per day (is any answer on it?) until
    its first missed day, never by reading the days' answers. The totals come from the
    per-template summary (a row per template and set of tags), the recent accuracy from
    the latest answers.
    """
    today = store.today()
    since = today - timedelta(days=STREAK_WINDOW - 1)
    base = readable(store, since)
    days = set(base.days)
    streak = _streak(days, today)
    end = today if today in days else today - timedelta(days=1)
    assert base.rest is not None
    # The first day answered: of the well-formed keys, or of a time in another format.
    first = min((day for day in (_first_day(store), *base.rest.odd_days) if day is not None),
                default=None)
    span = STREAK_WINDOW
    while streak and first is not None and first < since \
            and _streak_start(days, today, streak) <= since:
        # The streak goes on past the days read: look for its start before them.
        span *= 4
        earlier = max(first, since - timedelta(days=span))
        gap = _last_gap(store, earlier, since - timedelta(days=1), base.rest)
        since = earlier if gap is None else gap + timedelta(days=1)
        streak = (end - since).days + 1
        if gap is not None:
            break
    everything = sum(g.attempts for g in base.groups.values())
    last = _latest_verdicts(store, recent, base.left_out)
    return HomeFigures(everything, streak,
                       last.count("correct") / len(last) if last else None)


def _last_gap(store: Database, first: date, last: date, rest: _Rest) -> date | None:
    """The latest local day from ``first`` to ``last`` with no readable answer (None:
    every one has one), by one indexed look-up per day, latest first, stopping at it.

    The few days where hand edits left attempts in another format or unreadable (see
    :class:`_Rest`) are counted exactly, in one more query.
    """
    local = _LocalDays(store.tz)
    special = {day for day in rest.odd_days if first <= day <= last}
    special |= {day for row in rest.bad_rows if row["quarter"] not in rest.bad_quarters
                and first <= (day := local.day(row["quarter"])) <= last}
    counted = _window_of(store, sorted(special), rest) if special else {}
    # A day special and without a well-formed key may still have an answer: ask for
    # one empty day more than there are special days.
    bounds = _bounds(store.tz, first, last)
    empty = [date.fromisoformat(iso) for (iso,) in store.rows(
        f"WITH {_DAYS_CTE} SELECT days.day FROM days WHERE NOT EXISTS (SELECT 1 FROM "
        "attempt_quarters AS q WHERE q.quarter >= days.lo AND q.quarter < days.hi "
        f"AND q.quarter NOT IN ({_marks(rest.odd_keys)})) ORDER BY days.day DESC LIMIT ?",
        (bounds, *rest.odd_keys, len(special) + 1))]
    gaps = [day for day in empty if day not in special][:1]
    gaps += [day for day in special if day not in counted]
    return max(gaps, default=None)


def recent_tallies(store: Database, since: date) -> list[DayTally]:
    """Readable answers per local day, topic and tags, from local day ``since`` on.

    Counted and grouped by SQL over the time index, day by local day (only those days'
    attempts are read, and a row per day, topic and tags comes back, not one per
    answer); the few attempts whose time is stored in another format are read one by one.
    """
    times, bad = _odd_keys(store)
    odd = [*times, *bad]
    last = _last_day(store)
    bounds = _bounds(store.tz, since, last) if last is not None else "[]"
    # (local day ISO, topic, tags text) -> [answers, correct]
    answers: dict[tuple[str, str, str], list[int]] = {}
    for iso, topic, text, count, right in store.rows(
            f"WITH {_DAYS_CTE} SELECT days.day, a.topic, a.tags, count(*), "
            "total(a.verdict = 'correct') FROM days JOIN attempts AS a "
            "ON a.answered_at >= days.lo AND a.answered_at < days.hi "
            f"WHERE {quarter_of('a.answered_at')} NOT IN ({_marks(odd)}) GROUP BY 1, 2, 3",
            (bounds, *odd)):
        answers[(iso, str(topic), text)] = [count, int(right)]
    if times:  # times in another format: their days are worked out one by one
        local = _LocalDays(store.tz)
        for when, topic, text, verdict in store.rows(
                "SELECT answered_at, topic, tags, verdict FROM attempts "
                f"WHERE answered_at IN ({_marks(times)})", list(times)):
            tally = answers.setdefault((local.day(when).isoformat(), str(topic), text), [0, 0])
            tally[0] += 1
            tally[1] += verdict == "correct"
    tags_of: dict[str, tuple[str, ...] | None] = {}
    for text in {key[2] for key in answers}:
        try:
            tags_of[text] = _tags(text)
        except (ValueError, TypeError):
            tags_of[text] = None
    by_key: dict[tuple[str, str, tuple[str, ...]], list[int]] = {}
    first = since.isoformat()
    for (iso, topic, text), (count, right) in answers.items():
        tags = tags_of[text]
        if tags is not None and iso >= first:
            tally = by_key.setdefault((iso, topic, tags), [0, 0])
            tally[0] += count
            tally[1] += right
    return [DayTally(date.fromisoformat(iso), topic, tags, n, right)
            for (iso, topic, tags), (n, right) in sorted(by_key.items())]


class _LocalDays:
    """Local days of stored times (``YYYY-MM-DDTHH:MM:SS.ffffff+00:00``) and of
    ``attempt_quarters`` keys (their first 16 characters, minutes rounded down to a
    quarter hour); any other text is parsed as a time in full.

    A zone's offset is looked up once per UTC day (and per time on a day where it
    changes), so tens of thousands of times cost milliseconds.
    """

    def __init__(self, tz: tzinfo | None) -> None:
        self.tz = tz
        self._utc_days: dict[str, tuple[int, tuple[date, date, date]] | None] = {}

    def day(self, text: str) -> date:
        """The local day of a stored time or a quarter key.

        Raises:
            ValueError: the text is no time.
        """
        if not (len(text) == 16 or (len(text) == 32 and text.endswith("+00:00"))) \
                or text[10] != "T" or text[13] != ":":
            return local_day(from_utc_text(text), self.tz)
        hour, minute = int(text[11:13]), int(text[14:16])
        if not (0 <= hour < 24 and 0 <= minute < 60):
            raise ValueError(f"{text!r} is not a time")
        utc_date = text[:10]
        if utc_date not in self._utc_days:
            self._utc_days[utc_date] = self._offset_on(utc_date)
        known = self._utc_days[utc_date]
        if known is None:  # the offset changes on this UTC day: look this time up
            when = datetime.fromisoformat(text[:16]).replace(tzinfo=UTC)
            return local_day(when, self.tz)
        offset, (before, same, after) = known
        local = hour * 60 + minute + offset
        return before if local < 0 else same if local < 24 * 60 else after

    def _offset_on(self, utc_date: str) -> tuple[int, tuple[date, date, date]] | None:
        """The zone's offset in minutes all through a UTC day, or None if it changes."""
        start = datetime.fromisoformat(utc_date).replace(tzinfo=UTC)
        first, last = self._minutes(start), self._minutes(start + timedelta(minutes=1439))
        if first != last:
            return None
        day = start.date()
        return first, (day - timedelta(days=1), day, day + timedelta(days=1))

    def _minutes(self, when: datetime) -> int:
        offset = when.astimezone(self.tz).utcoffset()
        assert offset is not None
        return round(offset.total_seconds() / 60)


class _Totals:
    """Running totals of a set of attempts."""

    __slots__ = ("attempts", "correct", "partial", "score", "tags")

    def __init__(self, attempts: int = 0, correct: int = 0, partial: int = 0,
                 score: float = 0.0, tags: tuple[str, ...] = ()) -> None:
        self.attempts, self.correct, self.partial, self.score = attempts, correct, partial, score
        self.tags = tags

    def add(self, other: _Totals) -> None:
        self.attempts += other.attempts
        self.correct += other.correct
        self.partial += other.partial
        self.score += other.score

    def subtract(self, correct: bool, partial: bool, score: float) -> None:
        self.attempts -= 1
        self.correct -= correct
        self.partial -= partial
        self.score -= score

    def group(self) -> GroupStats:
        return {"attempts": self.attempts, "correct": self.correct,
                "accuracy": self.correct / self.attempts,
                "mean_score": self.score / self.attempts}


def _tags(text: str) -> tuple[str, ...]:
    tags = json.loads(text)
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise ValueError("tags is not a list of text")
    return tuple(tags)


def _groups(store: Database) -> tuple[dict[tuple[str, str, str], _Totals], dict[str, str]]:
    """Totals per (template, topic, tags text); and tags texts that cannot be read, each
    with the reason."""
    groups: dict[tuple[str, str, str], _Totals] = {}
    bad: dict[str, str] = {}
    for row in store.query("SELECT template_id, topic, tags, attempts, correct, partial, "
                            "score_sum FROM attempt_groups"):
        text = row["tags"]
        try:
            tags = _tags(text)
        except (ValueError, TypeError) as exc:
            bad[text] = str(exc)
            continue
        groups[(str(row["template_id"]), str(row["topic"]), text)] = _Totals(
            row["attempts"], row["correct"], row["partial"], row["score_sum"], tags)
    return groups, bad


_DAYS_CTE: Final = ("days(day, lo, hi) AS MATERIALIZED (SELECT json_extract(value, '$[0]'), "
                    "json_extract(value, '$[1]'), json_extract(value, '$[2]') "
                    "FROM json_each(?))")
"""Local days as a table: ISO date, and the first quarter key of it and of the next day,
from the JSON list that :func:`_bounds` writes. A time's local day is then a range of
the summary's keys (or of the time index), and SQL works days out: no time is parsed in
Python. (Materialized: else each row's day would parse the JSON again.)"""


def _bounds(tz: tzinfo | None, first: date, last: date) -> str:
    """The local days from ``first`` to ``last`` as :data:`_DAYS_CTE` reads them."""
    return _bounds_of(tz, (first + timedelta(days=n) for n in range((last - first).days + 1)))


def _bounds_of(tz: tzinfo | None, days: Iterable[date]) -> str:
    """The local days ``days`` (in order) as :data:`_DAYS_CTE` reads them.

    A day starts 24 hours after the day before it unless the zone's offset changed
    between the two midnights: one conversion a day, rather than each local midnight
    worked out from the calendar.
    """
    out: list[tuple[str, str, str]] = []
    one = timedelta(days=1)
    start: datetime | None = None
    start_text = ""
    offset: timedelta | None = None
    previous: date | None = None
    for day in days:
        if start is None or day != previous:
            start = local_day_start(day, tz)
            offset = start.astimezone(tz).utcoffset()
            start_text = start.isoformat(timespec="minutes")[:16]
        end = start + one
        seen = end.astimezone(tz)
        # (the date too: a zone may skip a whole day, as Samoa did on 2011-12-30)
        if seen.utcoffset() == offset and not (seen.hour or seen.minute) \
                and seen.date() == day + one:
            end_text = end.date().isoformat() + start_text[10:]  # the same time of day
        else:  # the offset changed that day
            end = local_day_start(day + one, tz)
            seen = end.astimezone(tz)
            end_text = end.isoformat(timespec="minutes")[:16]
        out.append((day.isoformat(), start_text, end_text))
        start, start_text, offset, previous = end, end_text, seen.utcoffset(), day + one
    return json.dumps(out)


def _key_day(tz: tzinfo | None, key: str) -> date:
    """The local day of a well-formed quarter key (one :data:`ODD_QUARTER` leaves out)."""
    return local_day(datetime.fromisoformat(key).replace(tzinfo=UTC), tz)


def _first_day(store: Database) -> date | None:
    """The local day of the first well-formed quarter key (by the key's order)."""
    rows = store.rows(f"SELECT quarter FROM attempt_quarters WHERE NOT {ODD_QUARTER} "
                       "ORDER BY quarter LIMIT 1")
    return _key_day(store.tz, rows[0][0]) if rows else None


def _last_day(store: Database) -> date | None:
    """The local day of the last well-formed quarter key."""
    rows = store.rows(f"SELECT quarter FROM attempt_quarters WHERE NOT {ODD_QUARTER} "
                       "ORDER BY quarter DESC LIMIT 1")
    return _key_day(store.tz, rows[0][0]) if rows else None


def _days_between(store: Database, first: date | None, last: date | None,
                  odd: Collection[str]) -> dict[date, list[int]]:
    """[attempts, correct] per local day from ``first`` to ``last`` (None: the first or
    the last day answered), from the quarter keys that are not ``odd``: a row per day."""
    if first is None:
        first = _first_day(store)
    if last is None:
        last = _last_day(store)
    # With no day to read the query runs all the same (over no day): the same statements
    # whatever the history holds.
    bounds = _bounds(store.tz, first, last) if first is not None and last is not None \
        else "[]"
    return _day_counts(store, bounds, odd)


def _day_counts(store: Database, bounds: str, odd: Collection[str]) -> dict[date, list[int]]:
    """[attempts, correct] per local day of ``bounds`` (see :func:`_bounds`), from the
    quarter keys that are not ``odd``: a row per day."""
    days: dict[date, list[int]] = {}
    for iso, count, right in store.rows(
            f"WITH {_DAYS_CTE} SELECT days.day, total(q.attempts), total(q.correct) "
            "FROM days JOIN attempt_quarters AS q ON q.quarter >= days.lo "
            f"AND q.quarter < days.hi WHERE q.quarter NOT IN ({_marks(odd)}) "
            "GROUP BY days.day", (bounds, *odd)):
        _add(days, date.fromisoformat(iso), int(count), int(right))
    return days


def _odd_keys(store: Database) -> tuple[dict[str, tuple[int, int]], dict[str, str]]:
    """The summary's odd keys (migration 5 indexes them: only hand edits make them):
    those that are times in another format, with their [attempts, correct]; and those
    that are no time, each with the reason."""
    times: dict[str, tuple[int, int]] = {}
    bad: dict[str, str] = {}
    local = _LocalDays(store.tz)
    for quarter, count, right in store.rows(
            f"SELECT quarter, attempts, correct FROM attempt_quarters WHERE {ODD_QUARTER}"):
        try:
            local.day(quarter)
        except (ValueError, TypeError, OverflowError) as exc:
            bad[quarter] = str(exc)
            continue
        if len(quarter) == 16:  # a UTC quarter key, of the year 1 or 9999
            bad[quarter] = f"{quarter!r} is too close to the end of the calendar"
            continue
        times[quarter] = (count, right)
    return times, bad


def _odd_days(store: Database, times: dict[str, tuple[int, int]]) -> dict[date, list[int]]:
    """[attempts, correct] per local day of the odd keys that are times."""
    local = _LocalDays(store.tz)
    days: dict[date, list[int]] = {}
    for quarter, (count, right) in times.items():
        _add(days, local.day(quarter), count, right)
    return days


def _marks(values: Collection[object]) -> str:
    return ", ".join("?" * len(values))


def _add(days: dict[date, list[int]], day: date, count: int, right: int) -> None:
    tally = days.setdefault(day, [0, 0])
    tally[0] += count
    tally[1] += right


class _Rest(NamedTuple):
    """What :func:`readable` found that reading more days needs: the unreadable attempts'
    rows, the keys that are no time, and the days of keys that are times in another
    format."""

    bad_rows: list[sqlite3.Row]
    bad_quarters: dict[str, str]
    odd_days: dict[date, list[int]]
    odd_keys: list[str]


def _window(store: Database, first: date | None, last: date | None,
            rest: _Rest) -> dict[date, list[int]]:
    """[attempts, correct] per local day from ``first`` to ``last`` (None: no bound),
    readable attempts only, days without any left out."""
    return _readable(store, _days_between(store, first, last, rest.odd_keys), rest,
                     lambda day: (first is None or day >= first)
                     and (last is None or day <= last))


def _window_of(store: Database, some: Sequence[date], rest: _Rest) -> dict[date, list[int]]:
    """:func:`_window` of the days ``some`` (in order) alone: one query."""
    wanted = set(some)
    return _readable(store, _day_counts(store, _bounds_of(store.tz, some), rest.odd_keys),
                     rest, wanted.__contains__)


def _readable(store: Database, days: dict[date, list[int]], rest: _Rest,
              within: Callable[[date], bool]) -> dict[date, list[int]]:
    """``days`` (counted from the well-formed keys) with the odd keys' answers on days
    ``within`` added and the unreadable attempts taken out; days left empty dropped."""
    for day, (count, right) in rest.odd_days.items():
        if within(day):
            _add(days, day, count, right)
    local = _LocalDays(store.tz)
    for row in rest.bad_rows:
        if row["quarter"] not in rest.bad_quarters:  # counted on its day: take it out
            tally = days.get(local.day(row["quarter"]))
            if tally is not None:
                tally[0] -= 1
                tally[1] -= row["verdict"] == "correct"
    return {day: tally for day, tally in days.items() if tally[0] > 0}


def _bad_rows(store: Database, bad_tags: dict[str, str],
              bad_quarters: dict[str, str]) -> list[sqlite3.Row]:
    """The attempts behind unreadable tags or times (a scan: only when there are some)."""
    marks = ", ".join("?" * len(bad_tags))
    quarter_marks = ", ".join("?" * len(bad_quarters))
    quarter = quarter_of("answered_at")
    return store.query(
        f"SELECT id, template_id, topic, tags, verdict, score, {quarter} AS quarter "
        f"FROM attempts WHERE tags IN ({marks}) OR {quarter} IN ({quarter_marks}) "
        "ORDER BY id", [*bad_tags, *bad_quarters])


def _latest_verdicts(store: Database, recent: int, leave_out: set[int]) -> list[str]:
    """The verdicts of the ``recent`` latest readable attempts (by the time index)."""
    if recent <= 0:
        return []
    rows = store.query("SELECT id, verdict FROM attempts ORDER BY answered_at DESC, id DESC "
                        "LIMIT ?", (recent + len(leave_out),))
    return [row["verdict"] for row in rows if row["id"] not in leave_out][:recent]


def _streak_start(days: set[date], today: date, streak: int) -> date:
    """The first day of a streak of ``streak`` days (see :func:`_streak`)."""
    end = today if today in days else today - timedelta(days=1)
    return end - timedelta(days=streak - 1)


def _streak(days: set[date], today: date) -> int:
    # The streak is still alive if the user has not practised yet today: it
    # counts back from today, or from yesterday when today is still empty.
    day = today
    if day not in days:
        day -= timedelta(days=1)
    streak = 0
    while day in days:
        streak += 1
        day -= timedelta(days=1)
    return streak
