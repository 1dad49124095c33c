"""Portable history: export every attempt to JSON or CSV, and merge such a file back in.

A history file moves progress between machines (or into a spreadsheet). It holds every
attempt with its template, version, seed, answer, verdict, score, time and named
mistake, plus the FSRS rating the attempt gave its template's card (if it gave one).
JSON also carries the mock interview sessions the attempts belong to; CSV is one row
per attempt, for spreadsheets, and leaves mock sessions out.

Import is a merge, made safe to repeat:

* every row is validated first, and one bad row refuses the whole file (naming the row);
* a file written by a newer history format is refused, never half-read;
* a copy of the history is taken (:func:`backup_before_import`) before anything changes;
* an attempt already in the history is not added again (rows are compared on all of
  their fields, as a multiset: a file holding the same attempt twice adds it twice to
  an empty history, and nothing to one that has both);
* the attempts, their reviews and the rebuilt FSRS cards are written in one
  transaction: the merge happens whole or not at all.

FSRS state is rebuilt from the merged review log: every review is replayed in time
order with fuzzing off, so the cards are a function of the log alone, wherever each
review came from.

The files carry no export time, so exporting the same history twice gives the same
bytes, and export → import into an empty history → export gives the same file.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import re
import sqlite3
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any, Final, Literal, TextIO

from fsrs import Card, Rating, Scheduler, State
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from questions.private import private_folder
from questions.seeds import MAX_SEED
from quiz.core.clock import from_utc_text, to_utc_text
from quiz.core.errors import QuizError, StoreError
from quiz.core.schedule import NEW, _card_id
from quiz.core.store import reader
from quiz.core.store.history import Store
from quiz.core.store.reader import too_deep
from quiz.core.store.records import MODES, VERDICTS, row_to_attempt
from quiz.core.store.schema import quarter_of

__all__ = [
    "FORMATS",
    "FORMAT_NAME",
    "HISTORY_FORMAT",
    "PLAIN_FORMAT",
    "AttemptRow",
    "HistoryFile",
    "HistoryFileError",
    "ImportResult",
    "MockRow",
    "backup_before_import",
    "dump",
    "export_history",
    "import_history",
    "parse",
    "rebuild_cards",
    "write_history",
]

FORMAT_NAME: Final = "quiz-history"
"""The ``format`` field of a JSON history file."""

HISTORY_FORMAT: Final = 2
"""The newest file layout, read up to here; files from a newer one are refused.

Format 2 added ``guided`` (an attempt answered right after a walk-through of the same
variant, never to be read as a cold answer), so only a file holding a guided attempt is
written as format 2: a reader of format 1 refuses it as newer, rather than read its
guided answers as cold ones. Any other file is written as format 1, which every version
reads."""

PLAIN_FORMAT: Final = 1
"""The layout of a file without guided attempts."""

FORMATS: Final = ("json", "csv")


MAX_VERSION: Final = 2**63 - 1
"""The largest template version a row may carry: SQLite's largest integer (a larger
one crashed the insert)."""
MAX_COUNT: Final = 10_000
"""The most hints, minutes or questions a row may name."""


class HistoryFileError(QuizError, ValueError):
    """A history file that cannot be imported: unreadable, wrong format, a bad row, or
    written by a newer quiz. The message is one line naming the file (and row)."""


# --------------------------------------------------------------------------- rows


def _utc_time(value: str | None) -> str | None:
    # Any offset is accepted; the stored text is UTC with a fixed width (text order is
    # time order), so a file from another zone merges without duplicates.
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(f"not an ISO-8601 time: {value!r}") from None
    if parsed.tzinfo is None:
        raise ValueError(f"time {value!r} has no UTC offset")
    if _STORED_TIME.fullmatch(value):  # already as stored (an export's): keep the text
        return value
    try:
        return to_utc_text(parsed)
    except OverflowError:  # 9999-12-31T23:00-05:00 is past the last UTC time
        raise ValueError(f"time {value!r} is out of range") from None


class AttemptRow(BaseModel):
    """One attempt as it appears in a history file (a CSV row or a JSON object)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    template: Annotated[str, Field(min_length=1, max_length=200)]
    """Template id, e.g. ``memory/model-state``."""
    version: Annotated[int, Field(ge=0, le=MAX_VERSION)]
    """Template version when the question was asked."""
    seed: Annotated[int, Field(ge=0, le=MAX_SEED)]
    """Variant seed: with the template it reproduces the question (what ``quiz ask
    ID#SEED`` takes: 0 to 999,999,999,999)."""
    mode: Literal["drill", "practice", "mock"]
    """Session kind."""
    answer: Annotated[str, Field(max_length=2000)]
    """The answer exactly as typed."""
    verdict: Literal["correct", "partial", "incorrect"]
    """The grade (unreadable answers are never attempts)."""
    score: Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]
    """Credit in [0, 1], hint costs deducted."""
    mistake: str | None = None
    """The named mistake the answer matched, if any."""
    hints_used: Annotated[int, Field(ge=0, le=MAX_COUNT)] = 0
    """Hints revealed before answering."""
    hint_cost: Annotated[float, Field(ge=0, allow_inf_nan=False)] = 0.0
    """Credit the hints cost."""
    seconds: Annotated[float, Field(ge=0, allow_inf_nan=False)]
    """Time taken to answer."""
    answered_at: str
    """When the answer was submitted: ISO-8601 with a UTC offset (stored in UTC)."""
    topic: Annotated[str, Field(min_length=1)]
    """The template's topic."""
    tags: tuple[str, ...] = ()
    """The template's tags."""
    rating: Annotated[int, Field(ge=1, le=4)] | None = None
    """FSRS rating the attempt gave its card (1 Again … 4 Easy), or None: no review."""
    mock: str | None = None
    """``started_at`` of the mock session the attempt belongs to (JSON only)."""
    guided: bool = False
    """Answered after a learn-mode walk-through (written only when true, so a history
    without guided attempts reads in older versions too)."""

    _times = field_validator("answered_at", "mock")(_utc_time)

    @model_validator(mode="after")
    def _verdict_fits_score(self) -> AttemptRow:
        # A right answer earned something (hints may cost part of it); a wrong one
        # earned less than everything. "correct" with score 0 was once taken as it was.
        if self.verdict == "correct" and self.score + self.hint_cost <= 0:
            raise ValueError(f"verdict 'correct' with score {self.score}: a correct "
                             "answer scores more than 0")
        if self.verdict == "incorrect" and self.score >= 1:
            raise ValueError(f"verdict 'incorrect' with score {self.score}: an incorrect "
                             "answer scores less than 1")
        return self

    def key(self) -> tuple[object, ...]:
        """What makes two rows the same attempt (every field but the mock link)."""
        return (self.template, self.version, self.seed, self.mode, self.answer,
                self.verdict, self.score, self.mistake, self.hints_used, self.hint_cost,
                self.seconds, self.answered_at, self.topic, self.tags, self.rating,
                self.guided)


class MockRow(BaseModel):
    """One mock interview session in a JSON history file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    started_at: str
    """When the session began (ISO-8601 with offset); identifies the session."""
    finished_at: str | None = None
    """When it ended, or None if it was abandoned."""
    minutes: Annotated[int, Field(gt=0, le=MAX_COUNT)]
    """Time limit."""
    n_questions: Annotated[int, Field(gt=0, le=MAX_COUNT)]
    """Questions planned."""
    score: Annotated[float, Field(allow_inf_nan=False)] | None = None
    """Overall score, if finished."""
    report: dict[str, Any] | None = None
    """The session's report, as the mock screen wrote it."""

    _times = field_validator("started_at", "finished_at")(_utc_time)


@dataclass(frozen=True, slots=True)
class HistoryFile:
    """A parsed, validated history file."""

    attempts: tuple[AttemptRow, ...]
    """Every attempt, in file order."""
    mocks: tuple[MockRow, ...] = ()
    """Mock sessions (JSON files only)."""


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What :func:`import_history` did."""

    added: int
    """Attempts that were new to the history."""
    already: int
    """Attempts already in the history (skipped)."""
    mocks_added: int
    """Mock sessions that were new to the history."""
    cards: int
    """FSRS cards after the rebuild."""


# --------------------------------------------------------------------------- export

_CSV_COLUMNS: Final = ("history_format", "template", "version", "seed", "mode", "answer",
                       "verdict", "score", "mistake", "hints_used", "hint_cost", "seconds",
                       "answered_at", "topic", "tags", "rating")
_CSV_OPTIONAL: Final = ("guided",)
"""Columns written only when used (a learn-mode history), so older versions read the
rest."""


def _mocks(store: Store) -> tuple[list[MockRow], dict[int | None, str]]:
    """The mock sessions (a few per week of use: held whole), oldest first, and each
    one's start by id."""
    mocks = sorted(store.mock_history(), key=lambda m: (m.started_at, m.id or 0))
    rows = [MockRow(started_at=to_utc_text(m.started_at),
                    finished_at=to_utc_text(m.finished_at) if m.finished_at else None,
                    minutes=m.minutes, n_questions=m.n_questions, score=m.score,
                    report=dict(m.report) if m.report is not None else None)
            for m in mocks]
    return rows, {m.id: to_utc_text(m.started_at) for m in mocks}


_ATTEMPTS_SQL: Final = (
    "SELECT id, template_id, template_version, seed, mode, answer_text, verdict, score, "
    "mistake, hints_used, hint_cost, seconds, answered_at, topic, tags, session_id, guided, "
    "(SELECT rating FROM review_log AS r WHERE r.attempt_id = attempts.id "
    "ORDER BY r.reviewed_at, r.id LIMIT 1) AS first_rating FROM attempts {where} "
    "ORDER BY answered_at, id")
"""Every attempt (or those ``where`` keeps), oldest first, each with the rating of the
first review it gave (by the review log's index)."""


def _attempt_rows(store: Store, mock_start: dict[int | None, str],
                  where: str = "", params: Sequence[object] = ()) -> Iterator[AttemptRow]:
    """Every attempt as a file row, oldest first, streamed (a page of rows at a time)."""
    for row in store.stream(_ATTEMPTS_SQL.format(where=where), params):
        yield _file_row(store, row, mock_start)


def _file_row(store: Store, row: sqlite3.Row, mock_start: dict[int | None, str]) -> AttemptRow:
    """A stored attempt as a file row, every field validated."""
    a = store.read_row(row_to_attempt, row, "attempt")
    try:
        return AttemptRow(
            template=a.template_id, version=a.template_version, seed=a.seed, mode=a.mode,
            answer=a.answer_text, verdict=a.verdict, score=a.score, mistake=a.mistake,
            hints_used=a.hints_used, hint_cost=a.hint_cost, seconds=a.seconds,
            answered_at=to_utc_text(a.answered_at), topic=a.topic, tags=a.tags,
            rating=row["first_rating"], mock=mock_start.get(a.session_id), guided=a.guided)
    except ValidationError as exc:
        # Only a hand-edited history holds such a row (the store's CHECK constraints
        # keep them out): the export refuses it by name rather than write a file that
        # no quiz would import.
        raise StoreError(f"{store.path}: attempt {row['id']} cannot be exported: "
                         f"{_problem(exc)}; "
                         "fix or delete that row, or run quiz history restore to pick a "
                         "backup") from None


def _written(row: AttemptRow) -> dict[str, Any]:
    """A file row as the file holds it (``guided`` only when true)."""
    return row.model_dump(exclude=None if row.guided else {"guided"})


_STORED_TIME: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}"
                                 r"\.[0-9]{6}\+00:00")
"""A time as :func:`to_utc_text` writes it (which it then writes back unchanged)."""


def _attempt_items(store: Store, mock_start: dict[int | None, str]) -> Iterator[dict[str, Any]]:
    """Every attempt as the file holds it (:func:`_written` of its :class:`AttemptRow`),
    oldest first, streamed.

    A row is checked against :class:`AttemptRow`'s rules with plain comparisons, and
    only a row that fails one (or holds a value of another type) goes through the model,
    which then names the problem: the same items as validating each row, for a few
    comparisons a row instead of a model built and dumped.
    """
    tags_of: dict[str, tuple[str, ...] | None] = {}
    for row in store.stream(_ATTEMPTS_SQL.format(where=""), ()):
        item = _plain_item(row, mock_start, tags_of)
        yield item if item is not None else _written(_file_row(store, row, mock_start))


def _plain_item(row: sqlite3.Row, mock_start: dict[int | None, str],
                tags_of: dict[str, tuple[str, ...] | None]) -> dict[str, Any] | None:
    """The file's item for a stored attempt that meets every rule of :class:`AttemptRow`
    as it is (None for any other: see :func:`_attempt_items`)."""
    (_, template, version, seed, mode, answer, verdict, score, mistake, hints_used,
     hint_cost, seconds, answered_at, topic, tags_text, session_id, guided, rating) = row
    if not (type(template) is str and 0 < len(template) <= 200
            and type(version) is int and version >= 0
            and type(seed) is int and 0 <= seed <= MAX_SEED
            and version <= MAX_VERSION and type(hints_used) is int and hints_used <= MAX_COUNT
            and mode in MODES and verdict in VERDICTS
            and type(answer) is str and len(answer) <= 2000
            and type(score) is float and 0.0 <= score <= 1.0
            and (mistake is None or type(mistake) is str)
            and type(hints_used) is int and hints_used >= 0
            and type(hint_cost) is float and 0.0 <= hint_cost < math.inf
            and type(seconds) is float and 0.0 <= seconds < math.inf
            and type(answered_at) is str and _STORED_TIME.fullmatch(answered_at)
            and type(topic) is str and topic
            and type(tags_text) is str
            and (rating is None or (type(rating) is int and 1 <= rating <= 4))
            and guided in (0, 1) and type(guided) is int
            and (verdict != "correct" or score + hint_cost > 0)
            and (verdict != "incorrect" or score < 1)):
        return None
    if tags_text not in tags_of:
        tags_of[tags_text] = _plain_tags(tags_text)
    tags = tags_of[tags_text]
    if tags is None:
        return None
    try:
        datetime.fromisoformat(answered_at)  # a real day and time of day
    except ValueError:
        return None
    item: dict[str, Any] = _PlainItem({
        "template": template, "version": version, "seed": seed, "mode": mode,
        "answer": answer, "verdict": verdict, "score": score, "mistake": mistake,
        "hints_used": hints_used, "hint_cost": hint_cost, "seconds": seconds,
        "answered_at": answered_at, "topic": topic, "tags": tags, "rating": rating,
        "mock": mock_start.get(session_id)})
    if guided:
        item["guided"] = True
    return item


class _PlainItem(dict[str, Any]):
    """An item of :func:`_plain_item`: its keys in the file's order, each value of the
    type the file's rules allow (:func:`_indented` writes it by a fixed pattern)."""

    __slots__ = ()


def _plain_text(item: _PlainItem) -> str:
    """:func:`_indented` of a :class:`_PlainItem`."""
    tags = item["tags"]
    tags_text = "[\n  " + ",\n  ".join(map(_string, tags)) + "\n ]" if tags else "[]"
    mistake, rating, mock = item["mistake"], item["rating"], item["mock"]
    return (f'{{\n "template": {_string(item["template"])},\n "version": {item["version"]:d},'
            f'\n "seed": {item["seed"]:d},\n "mode": {_string(item["mode"])},'
            f'\n "answer": {_string(item["answer"])},\n "verdict": {_string(item["verdict"])},'
            f'\n "score": {float.__repr__(item["score"])},'
            f'\n "mistake": {"null" if mistake is None else _string(mistake)},'
            f'\n "hints_used": {item["hints_used"]:d},'
            f'\n "hint_cost": {float.__repr__(item["hint_cost"])},'
            f'\n "seconds": {float.__repr__(item["seconds"])},'
            f'\n "answered_at": {_string(item["answered_at"])},'
            f'\n "topic": {_string(item["topic"])},'
            f'\n "tags": {tags_text},'
            f'\n "rating": {"null" if rating is None else f"{rating:d}"},'
            f'\n "mock": {"null" if mock is None else _string(mock)}'
            + (',\n "guided": true\n}' if "guided" in item else "\n}"))


def _plain_tags(text: str) -> tuple[str, ...] | None:
    """Stored tags that are a JSON list of text, as a tuple (None for anything else)."""
    try:
        tags = json.loads(text)
    except ValueError:
        return None
    if type(tags) is not list or not all(type(tag) is str for tag in tags):
        return None
    return tuple(tags)


def _json_list(items: Iterable[dict[str, Any]], out: TextIO) -> int:
    """Write a list of objects as ``json.dumps(..., indent=1)`` writes it two levels
    deep (an object's text, its line ends indented two more spaces: a JSON string never
    holds a raw line end); return how many."""
    count = 0
    for item in items:
        out.write(",\n  " if count else "[\n  ")
        out.write(_indented(item).replace("\n", "\n  "))
        count += 1
    out.write("\n ]" if count else "[]")
    return count


def _indented(item: dict[str, Any]) -> str:
    """``json.dumps(item, indent=1, ensure_ascii=False)``, by the C encoder's string
    escapes for an object of text, numbers, booleans, nulls and lists of text (the
    module's indenting encoder is Python code, a few times slower); any other object
    goes to ``json.dumps``."""
    if type(item) is _PlainItem:
        return _plain_text(item)
    lines = []
    for key, value in item.items():
        kind = type(value)
        if kind is str:
            text = _string(value)
        elif value is None or kind is bool or kind is int:
            text = _SCALARS[value] if value is None or kind is bool else int.__repr__(value)
        elif kind is float and math.isfinite(value):
            text = float.__repr__(value)
        elif (kind is tuple or kind is list) and all(type(v) is str for v in value):
            text = "[\n  " + ",\n  ".join(map(_string, value)) + "\n ]" if value else "[]"
        else:
            return json.dumps(item, indent=1, ensure_ascii=False)
        if type(key) is not str:
            return json.dumps(item, indent=1, ensure_ascii=False)
        lines.append(f"{_string(key)}: {text}")
    return "{\n " + ",\n ".join(lines) + "\n}" if lines else "{}"


_string: Final = json.encoder.encode_basestring
"""A JSON string, non-ASCII kept (what ``ensure_ascii=False`` writes; the C one)."""
_SCALARS: Final[dict[object, str]] = {None: "null", True: "true", False: "false"}


def dump(history: HistoryFile, fmt: str) -> str:
    """Write a history file's text.

    Args:
        history: What to write.
        fmt: ``json`` (attempts and mock sessions) or ``csv`` (attempts only).
    """
    if fmt == "json":
        document = {
            "format": FORMAT_NAME,
            "history_format": _format_of(any(row.guided for row in history.attempts)),
            "attempts": [_written(row) for row in history.attempts],
            "mock_sessions": [m.model_dump() for m in history.mocks],
        }
        return json.dumps(document, indent=1, ensure_ascii=False) + "\n"
    if fmt == "csv":
        out = io.StringIO()
        # CRLF (RFC 4180) also makes the writer quote any field holding a lone CR,
        # which a reader would otherwise take for the end of the row.
        writer = csv.writer(out, lineterminator="\r\n")
        guided = any(row.guided for row in history.attempts)
        writer.writerow([*_CSV_COLUMNS, *_CSV_OPTIONAL] if guided else _CSV_COLUMNS)
        for row in history.attempts:
            writer.writerow(_csv_row(_written(row), guided))
        return out.getvalue()
    raise ValueError(f"unknown history format {fmt!r}: use one of {', '.join(FORMATS)}")


def write_history(store: Store, fmt: str, out: TextIO) -> int:
    """Write the whole history to ``out`` as a ``json`` or ``csv`` history file, reading
    it a page of attempts at a time (memory stays the same at any size); the text is
    :func:`dump`'s of the history, byte for byte.

    Returns:
        How many attempts were written.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown history format {fmt!r}: use one of {', '.join(FORMATS)}")
    mocks, mock_start = _mocks(store)
    # Through the index of guided attempts: the file's format comes before its rows.
    guided = bool(store.rows("SELECT EXISTS (SELECT 1 FROM attempts WHERE guided = 1)")[0][0])
    rows = _attempt_items(store, mock_start)
    if fmt == "json":
        head = json.dumps({"format": FORMAT_NAME, "history_format": _format_of(guided)},
                          indent=1, ensure_ascii=False)
        out.write(head.removesuffix("\n}") + ',\n "attempts": ')
        count = _json_list(rows, out)
        out.write(',\n "mock_sessions": ')
        _json_list((m.model_dump() for m in mocks), out)
        out.write("\n}\n")
        return count
    # CRLF (RFC 4180) also makes the writer quote any field holding a lone CR, which a
    # reader would otherwise take for the end of the row.
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([*_CSV_COLUMNS, *_CSV_OPTIONAL] if guided else _CSV_COLUMNS)
    count = 0
    for row in rows:
        writer.writerow(_csv_row(row, guided))
        count += 1
    return count


def _format_of(guided: bool) -> int:
    """The ``history_format`` of a file with (or without) guided attempts."""
    return HISTORY_FORMAT if guided else PLAIN_FORMAT


_FORMULA_START: Final = ("=", "+", "-", "@", "\t", "\r")
"""What a spreadsheet takes for the start of a formula (the usual CSV-injection rule)."""


def _escape(cell: object) -> str:
    """A CSV cell a spreadsheet shows as text: one ``'`` before a cell that (after any
    ``'`` it starts with) starts like a formula, so ``=HYPERLINK(...)`` is never run.
    :func:`_unescape` takes it off again: import reads back what export wrote."""
    text = str(cell)
    return "'" + text if text.lstrip("'")[:1] in _FORMULA_START and text else text


def _unescape(cell: str) -> str:
    """The cell :func:`_escape` was given (a cell of an older file that starts with
    ``'`` followed by text that is no formula is kept as it is)."""
    if cell[:1] == "'" and cell.lstrip("'")[:1] in _FORMULA_START and cell.lstrip("'"):
        return cell[1:]
    return cell


def _csv_row(row: dict[str, Any], guided: bool) -> list[object]:
    """A CSV row of a file item (see :func:`_written`), its cells escaped
    (:func:`_escape`); ``guided``: the file has guided attempts (and their column)."""
    return [_escape(cell) for cell in _csv_cells(row, guided)]


def _csv_cells(row: dict[str, Any], guided: bool) -> list[object]:
    return [
        _format_of(guided), row["template"], row["version"], row["seed"], row["mode"],
        row["answer"], row["verdict"], repr(row["score"]), row["mistake"] or "",
        row["hints_used"], repr(row["hint_cost"]), repr(row["seconds"]), row["answered_at"],
        row["topic"], json.dumps(list(row["tags"]), ensure_ascii=False),
        "" if row["rating"] is None else row["rating"],
        *(["1" if row.get("guided") else "0"] if guided else []),
    ]


def export_history(store: Store, fmt: str = "json") -> str:
    """Return the whole history as the text of a ``json`` or ``csv`` history file (see
    :func:`write_history`, which writes it to a file without holding it)."""
    out = io.StringIO()
    write_history(store, fmt, out)
    return out.getvalue()


# --------------------------------------------------------------------------- parse


def _newer(source: str, found: object) -> HistoryFileError:
    return HistoryFileError(
        f"{source}: written by a newer quiz (history format {found}; this version reads "
        f"up to {HISTORY_FORMAT}): upgrade quiz to import it")


def _check_format(source: str, where: str, value: object) -> None:
    try:
        found = int(str(value))
    except ValueError:
        raise HistoryFileError(f"{source}: {where}: history_format: not a whole number: "
                               f"{value!r}") from None
    if found > HISTORY_FORMAT:
        raise _newer(source, found)
    if found < 1:
        raise HistoryFileError(f"{source}: {where}: history_format: must be >= 1")


def _problem(exc: ValidationError) -> str:
    """A row's first problem, named by its field (and how many more there are)."""
    first = exc.errors()[0]
    field = ".".join(str(part) for part in first["loc"]) or "row"
    more = exc.error_count() - 1
    tail = f" (and {more} more problem{'s' * (more > 1)} in that row)" if more else ""
    return f"{field}: {first['msg']}{tail}"


def _row_error(source: str, where: str, exc: ValidationError) -> HistoryFileError:
    return HistoryFileError(f"{source}: {where}: {_problem(exc)}")


def _header_format(source: str, value: object) -> None:
    # A JSON file's history_format is a number; "1" (a string) is not one.
    if type(value) is not int:
        raise HistoryFileError(f"{source}: header: history_format: not a whole number: "
                               f"{value!r}")
    _check_format(source, "header", value)


def _json_rows(items: Iterator[tuple[str, str, Any]], source: str) -> Iterator[Row]:
    header: dict[str, object] = {}

    def check_header() -> None:
        if header.get("format") != FORMAT_NAME:
            raise HistoryFileError(f"{source}: not a quiz history file (no \"format\": "
                                   f"\"{FORMAT_NAME}\")")
        _header_format(source, header.get("history_format"))

    checked = False
    for kind, where, raw in items:
        if kind == "header":
            if where not in ("format", "history_format"):
                if header.get("format") != FORMAT_NAME:
                    check_header()  # not ours: say so rather than name a field
                if where in ("attempts", "mock_sessions"):
                    raise HistoryFileError(f"{source}: \"attempts\" and \"mock_sessions\" "
                                           "must be lists")
                raise HistoryFileError(f"{source}: header: unknown field {where!r}")
            header[where] = raw
            if where == "format" and raw != FORMAT_NAME:
                check_header()
            continue
        if not checked and {"format", "history_format"} <= header.keys():
            check_header()  # the usual order: the header first, then the rows
            checked = True
        model = AttemptRow if kind == "attempt" else MockRow
        if model is MockRow and too_deep(raw):  # a report holds any JSON
            raise HistoryFileError(f"{source}: {where}: nested too deeply (at most "
                                   f"{reader.MAX_DEPTH} levels)")
        try:
            yield kind, where, model.model_validate(raw)
        except ValidationError as exc:
            raise _row_error(source, where, exc) from None
    check_header()


def _csv_tags(cell: str) -> object:
    # A JSON list, so that a tag may hold spaces or commas (user templates' tags are
    # free text); a cell that is not one is handed to validation as is, to be named.
    try:
        tags = json.loads(cell) if cell else []
    except json.JSONDecodeError:
        return cell
    except RecursionError:
        raise ValueError("tags: nested too deeply") from None
    if too_deep(tags):
        raise ValueError("tags: nested too deeply")
    return tags


def _csv_rows(items: Iterator[tuple[str, str, Any]], source: str) -> Iterator[Row]:
    first = next(items, None)
    if first is None:
        raise HistoryFileError(f"{source}: empty file: not a quiz history")
    header = [_unescape(cell) for cell in first[2]]
    if not header or header[0] != "history_format":
        raise HistoryFileError(f"{source}: not a quiz history file (the first CSV column "
                               "must be history_format)")
    missing = [c for c in _CSV_COLUMNS if c not in header]
    extra = [c for c in header if c not in (*_CSV_COLUMNS, *_CSV_OPTIONAL)]
    if extra and not missing:
        raise HistoryFileError(f"{source}: line 1: unknown column {extra[0]!r}")
    for _, where, cells in items:
        if not any(cells):
            continue
        if len(cells) != len(header):
            raise HistoryFileError(f"{source}: {where}: {len(cells)} cells, the "
                                   f"header has {len(header)}")
        record = dict(zip(header, map(_unescape, cells), strict=True))
        _check_format(source, where, record.pop("history_format"))
        if missing:  # a newer file checks first: its layout may differ
            raise HistoryFileError(f"{source}: line 1: missing column {missing[0]!r}")
        values: dict[str, object] = dict(record)
        values["mistake"] = record["mistake"] or None
        values["rating"] = record["rating"] or None
        try:
            values["tags"] = _csv_tags(record["tags"])
        except ValueError as exc:
            raise HistoryFileError(f"{source}: {where}: {exc}") from None
        if "guided" in record:
            values["guided"] = record["guided"] == "1" or record["guided"] == "true"
        try:
            yield "attempt", where, AttemptRow.model_validate(values)
        except ValidationError as exc:
            raise _row_error(source, where, exc) from None


Row = tuple[str, str, "AttemptRow | MockRow"]
"""A validated row of a history file: ``("attempt" | "mock", where, row)``."""


def read_rows(handle: TextIO, fmt: str | None = None, *,
              source: str = "history file") -> Iterator[Row]:
    """The validated rows of a history file, streamed (memory stays the same at any
    size: see :mod:`quiz.core.store.reader`); mock sessions may come after the
    attempts that name them (:func:`import_rows` links them at the end).

    Raises:
        HistoryFileError: one line naming the file, the row and the problem.
    """
    items = reader.rows(handle, fmt, source)
    try:
        first = next(items, None)
    except reader.ReadError as exc:
        raise HistoryFileError(str(exc)) from None
    if first is None:
        raise HistoryFileError(f"{source}: empty file: not a quiz history")
    stream = itertools.chain([first], items)
    try:
        if first[0] == "record":
            yield from _csv_rows(stream, source)
        else:
            yield from _json_rows(stream, source)
    except reader.ReadError as exc:
        raise HistoryFileError(str(exc)) from None


def parse(text: str, fmt: str | None = None, *, source: str = "history file") -> HistoryFile:
    """Read and validate a whole history file held as text (see :func:`read_rows`).

    Args:
        text: The file's text.
        fmt: ``json`` or ``csv``; None: guessed from the text (JSON starts with ``{``).
        source: The file's name, for messages.

    Raises:
        HistoryFileError: one line naming the file, the row and the problem.
    """
    if fmt is not None and fmt not in FORMATS:
        raise HistoryFileError(f"unknown history format {fmt!r}: use one of "
                               f"{', '.join(FORMATS)}")
    attempts: list[AttemptRow] = []
    mocks: list[MockRow] = []
    where_of: dict[int, str] = {}
    for _, where, row in read_rows(io.StringIO(text, newline=""), fmt, source=source):
        if isinstance(row, AttemptRow):
            where_of[len(attempts)] = where
            attempts.append(row)
        else:
            mocks.append(row)
    starts = {m.started_at for m in mocks}
    for index, row in enumerate(attempts):
        if row.mock is not None and row.mock not in starts:
            raise _no_mock(source, where_of[index], row.mock)
    return HistoryFile(tuple(attempts), tuple(mocks))


def _no_mock(source: str, where: str, start: str) -> HistoryFileError:
    return HistoryFileError(f"{source}: {where}: mock: no mock session started at {start}")


# --------------------------------------------------------------------------- import


def backup_before_import(store: Store, backups_dir: Path) -> Path:
    """Copy the history (SQLite online backup) to ``backups_dir`` before an import.

    The copy is named ``<db stem>-before-import-<UTC time>.db``; it is an ordinary quiz
    history, restorable like the daily backups.

    Returns:
        The backup's path.
    """
    from quiz.core.store.recovery import snapshot

    private_folder(backups_dir)
    stamp = store.now().astimezone(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    target = backups_dir / f"{store.path.stem}-before-import-{stamp}.db"
    counter = 1
    while target.exists():
        target = backups_dir / f"{store.path.stem}-before-import-{stamp}-{counter}.db"
        counter += 1
    source = sqlite3.connect(str(store.path))
    try:
        partial = snapshot(source, backups_dir, f".{target.name}.", ".partial")
    finally:
        source.close()
    partial.replace(target)
    return target


class _Replay:
    """FSRS cards rebuilt by replaying reviews in time order (fuzzing off).

    Each review is fsrs's ``Scheduler.review_card`` (fuzzing off) worked on a card held
    as a plain list, the scheduler's formulas written out in the same order of
    operations, so every float comes out the same bit for bit (a property test compares
    the cards' JSON with fsrs's own replay). ``review_card`` copies the card it is given,
    looks its helpers up by keyword and makes a review log on every call: that was most
    of an import's replay, which a 1,000,000-row import does a million times.
    """

    def __init__(self) -> None:
        self.scheduler = scheduler = Scheduler(enable_fuzzing=False)
        self.cards: dict[str, list[Any]] = {}
        """Per template: [state, step, stability, difficulty, last review, interval]."""
        p = scheduler.parameters
        self._p = p
        self._learning = scheduler.learning_steps
        self._relearning = scheduler.relearning_steps
        self._decay = scheduler._DECAY
        self._factor = scheduler._FACTOR
        # Sub-expressions of the formulas that depend on the parameters alone, each
        # written as fsrs writes it (so the same float).
        self._easy_difficulty: float = p[4] - (math.e ** (p[5] * (Rating.Easy - 1))) + 1
        self._forget_short: float = math.e ** (p[17] * p[18])
        self._recall_base: float = math.e ** (p[8])
        self._retention_term: float = (scheduler.desired_retention ** (1 / self._decay)) - 1
        self._max_interval = scheduler.maximum_interval

    def review(self, template_id: str, rating: int, reviewed_at: str) -> int:
        """Apply one review; returns the card's state before it."""
        when = from_utc_text(reviewed_at)
        card = self.cards.get(template_id)
        if card is None:
            # A new card: Learning, step 0, no stability or difficulty yet.
            card = self.cards[template_id] = [1, 0, None, None, None, None]
            state_before = NEW
        else:
            state_before = card[0]
        self._review(card, rating, when)
        return state_before

    def _difficulty(self, difficulty: float, rating: int) -> float:
        p = self._p
        delta = -(p[6] * (rating - 3))
        arg_2 = difficulty + (10.0 - difficulty) * delta / 9.0
        return min(max(p[7] * self._easy_difficulty + (1 - p[7]) * arg_2, 1.0), 10.0)

    def _short_term(self, stability: float, rating: int) -> float:
        p = self._p
        increase: float = (math.e ** (p[17] * (rating - 3 + p[18]))) * (stability ** -p[19])
        if rating != 1:
            increase = max(increase, 1.0)
        return max(stability * increase, 0.001)

    def _long_term(self, difficulty: float, stability: float, last: datetime | None,
                   when: datetime, rating: int) -> float:
        p = self._p
        if last is None:
            retrievability: float = 0
        else:
            elapsed = max(0, (when - last).days)
            retrievability = (1 + self._factor * elapsed / stability) ** self._decay
        if rating == 1:
            long_term: float = (p[11] * (difficulty ** -p[12]) * (((stability + 1) ** (p[13])) - 1)
                         * (math.e ** ((1 - retrievability) * p[14])))
            next_stability: float = min(long_term, stability / self._forget_short)
        else:
            hard_penalty = p[15] if rating == 2 else 1
            easy_bonus = p[16] if rating == 4 else 1
            next_stability = stability * (
                1 + self._recall_base * (11 - difficulty) * (stability ** -p[9])
                * ((math.e ** ((1 - retrievability) * p[10])) - 1) * hard_penalty
                * easy_bonus)
        return max(next_stability, 0.001)

    def _interval(self, stability: float) -> timedelta:
        days = round((stability / self._factor) * self._retention_term)
        return timedelta(days=min(max(days, 1), self._max_interval))

    def _review(self, card: list[Any], rating: int, when: datetime) -> None:
        state, step, stability, difficulty, last, _ = card
        if rating not in (1, 2, 3, 4):
            raise ValueError(f"Unknown rating: {rating}")
        short = last is not None and (when - last).days < 1
        if state == 2:  # Review
            if short:
                stability = self._short_term(stability, rating)
            else:
                stability = self._long_term(difficulty, stability, last, when, rating)
            difficulty = self._difficulty(difficulty, rating)
            if rating == 1 and self._relearning:
                state, step, interval = 3, 0, self._relearning[0]
            else:
                interval = self._interval(stability)
        else:  # Learning or Relearning: the same but for their steps
            if stability is None or difficulty is None:
                stability = max(self._p[rating - 1], 0.001)
                difficulty = min(max(self._p[4] - (math.e ** (self._p[5] * (rating - 1)))
                                     + 1, 1.0), 10.0)
            elif short:
                stability = self._short_term(stability, rating)
                difficulty = self._difficulty(difficulty, rating)
            else:
                stability = self._long_term(difficulty, stability, last, when, rating)
                difficulty = self._difficulty(difficulty, rating)
            steps = self._learning if state == 1 else self._relearning
            if not steps or (step >= len(steps) and rating != 1) or rating == 4 or (
                    rating == 3 and step + 1 == len(steps)):
                state, step, interval = 2, None, self._interval(stability)
            elif rating == 1:
                step, interval = 0, steps[0]
            elif rating == 2:
                if step == 0 and len(steps) == 1:
                    interval = steps[0] * 1.5
                elif step == 0:
                    interval = (steps[0] + steps[1]) / 2.0
                else:
                    interval = steps[step]
            else:
                step += 1
                interval = steps[step]
        card[:] = (state, step, stability, difficulty, when, when + interval)

    def cards_json(self) -> dict[str, str]:
        return {tid: Card.to_json(Card(card_id=_card_id(tid), state=State(state), step=step,
                                       stability=stability, difficulty=difficulty, due=due,
                                       last_review=last))
                for tid, (state, step, stability, difficulty, last, due) in self.cards.items()}


def rebuild_cards(entries: Iterable[tuple[str, int, str, int | None]]
                  ) -> tuple[list[tuple[str, int, int, str, int | None]], dict[str, str]]:
    """Replay reviews in time order into fresh FSRS cards (fuzzing off: deterministic).

    Args:
        entries: ``(template_id, rating, reviewed_at UTC text, attempt_id)`` in any order.

    Returns:
        The review log rows ``(template_id, rating, state_before, reviewed_at,
        attempt_id)`` in replay order, and ``{template_id: card_json}``.
    """
    replay = _Replay()
    log = sorted(enumerate(entries), key=lambda e: (e[1][2], e[0]))
    rows = [(t, r, replay.review(t, r, at), at, a) for _, (t, r, at, a) in log]
    return rows, replay.cards_json()


_MATCH_SQL: Final = _ATTEMPTS_SQL.format(where="WHERE answered_at = ? AND id <= ?")


def import_rows(store: Store, rows: Iterable[Row], *, source: str = "history file",
                expected: int | None = None) -> ImportResult:
    """Merge a history file's validated rows (:func:`read_rows`) into ``store`` as they
    come, in one transaction: a bad row, a row dated in the future or an attempt that
    names a mock session the file lacks rolls the whole import back. Call
    :func:`backup_before_import` first.

    An attempt is matched against the attempts the history had before the import at the
    same time (through the time index), each of those matching at most one row of the
    file: rows compare as a multiset. Memory holds the ids of matched attempts and the
    mock links, never the file.

    Args:
        store: the history.
        rows: the file's validated rows.
        source: the file's name, for messages.
        expected: about how many rows the file holds (from its size), if known: an
            import of many more rows than the history has builds the indexes of the
            attempts and the review log once at the end, rather than row by row.

    Returns:
        Counts of what was added and skipped.

    Raises:
        HistoryFileError: a row that cannot be imported (nothing was changed).
    """
    mock_start = _mocks(store)[1]
    latest = to_utc_text(store.now() + _FUTURE_SLACK)
    # A larger page cache while importing: the indexes' pages are updated all over, and
    # with the default 2 MB most updates wrote and read back a page (100 MB saved 13 %
    # of the CPU of 100,000 rows). 64 MB: the index builds of a bulk import sort in as
    # much again, and 1,000,000 rows peaked at 249 MB with 100 MB.
    cache = store.rows("PRAGMA cache_size")[0][0]
    store.rows(f"PRAGMA cache_size = -{_IMPORT_CACHE_KIB:d}")
    try:
        return _import(store, rows, source, mock_start, latest, expected)
    finally:
        store.rows(f"PRAGMA cache_size = {int(cache):d}")


_IMPORT_CACHE_KIB: Final = 64 * 1024


_BULK_ROWS: Final = 50_000
"""From how many expected rows (and more than the history holds) an import builds the
indexes at the end: a sorted build instead of a million scattered page updates."""


def _import(store: Store, rows: Iterable[Row], source: str,
            mock_start: dict[int | None, str], latest: str,
            expected: int | None) -> ImportResult:
    with store.transaction() as conn:
        before = int(conn.execute("SELECT coalesce(max(id), 0) FROM attempts").fetchone()[0])
        indexes: list[tuple[str, str]] = []
        if expected is not None and expected >= max(_BULK_ROWS, before):
            # Set aside and made again from their own text in this transaction; the
            # time index stays when rows are matched against earlier attempts.
            indexes = [(str(name), str(sql)) for name, sql in conn.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name "
                "IN ('attempts', 'review_log') AND sql IS NOT NULL").fetchall()
                if not (before and name == "attempts_by_time")]
            for name, _ in indexes:
                conn.execute(f'DROP INDEX "{name}"')
        # The summary tables' insert trigger is two upserts a row (most of an insert's
        # time): off during the import, the new rows' sums are added up here as the
        # trigger would (row by row, in id order) and written at the end, and the
        # trigger is made again from its own text, all in this transaction.
        trigger = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger' "
                               "AND name = 'attempts_summary_insert'").fetchone()
        if trigger is not None:
            conn.execute("DROP TRIGGER attempts_summary_insert")
        mock_ids: dict[str, int] = {
            str(r["started_at"]): int(r["id"])
            for r in conn.execute("SELECT id, started_at FROM mock_sessions ORDER BY id DESC")
        }
        file_mocks: set[str] = set()
        links: list[tuple[int, str, str]] = []  # (attempt id, mock start, where)
        matched: set[int] = set()
        tags_text: dict[tuple[str, ...], str] = {}
        batch: list[tuple[object, ...]] = []
        after: list[tuple[str, int | None, str, str | None, str]] = []
        sums = _Summaries(conn)
        replay = _Online(str(t) for (t,) in conn.execute(
            "SELECT DISTINCT template_id FROM review_log"))
        mocks_added = added = already = 0
        for _, where, row in rows:
            if isinstance(row, MockRow):
                _not_future(source, where, "started_at", row.started_at, latest)
                file_mocks.add(row.started_at)
                if row.started_at in mock_ids:
                    continue
                cursor = conn.execute(
                    "INSERT INTO mock_sessions (started_at, finished_at, minutes, "
                    "n_questions, score, report_json) VALUES (?, ?, ?, ?, ?, ?)",
                    (row.started_at, row.finished_at, row.minutes, row.n_questions,
                     row.score, json.dumps(row.report) if row.report is not None else None))
                assert cursor.lastrowid is not None
                mock_ids[row.started_at] = cursor.lastrowid
                mocks_added += 1
                continue
            _not_future(source, where, "answered_at", row.answered_at, latest)
            if before and _match(store, conn, row, before, matched, mock_start):
                already += 1
                continue
            tags = tags_text.get(row.tags)
            if tags is None:
                tags = tags_text[row.tags] = json.dumps(list(row.tags))
            sums.add(row.template, row.topic, tags, row.verdict, row.score, row.answered_at)
            batch.append((row.template, row.version, row.seed, row.mode, row.answer,
                          row.verdict, row.score, row.mistake, row.hints_used, row.hint_cost,
                          row.seconds, row.answered_at, row.topic, tags, None,
                          int(row.guided)))
            after.append((row.template, row.rating, row.answered_at, row.mock, where))
            if len(batch) >= _BATCH:
                added += _insert(conn, batch, after, links, replay)
        added += _insert(conn, batch, after, links, replay)
        for _, sql in indexes:
            conn.execute(sql)
        if trigger is not None:
            sums.write(conn)
            conn.execute(trigger[0])
        for attempt_id, start, where in links:
            if start not in file_mocks:
                raise _no_mock(source, where, start)
            conn.execute("UPDATE attempts SET session_id = ? WHERE id = ?",
                         (mock_ids[start], attempt_id))
        cards = _rebuild_log(conn, replay)
    return ImportResult(added=added, already=already, mocks_added=mocks_added,
                        cards=cards)


_BATCH: Final = 10_000
_FUTURE_SLACK: Final = timedelta(days=1)
"""How far past this machine's clock a file's time may be (another machine's clock
set a little ahead, a zone mistaken); later is refused."""


_EARLIEST: Final = "1970-01-01T00:00:00.000000+00:00"
"""No answer is older: a time near year 1 cannot be shown in a zone west of UTC."""


def _not_future(source: str, where: str, field: str, value: str, latest: str) -> None:
    # All are to_utc_text's fixed-width UTC text: text order is time order.
    if value > latest:
        raise HistoryFileError(f"{source}: {where}: {field}: {value} is in the future "
                               "(later than a day from now); fix the date in the file")
    if value < _EARLIEST:
        raise HistoryFileError(f"{source}: {where}: {field}: {value} is before 1970; fix "
                               "the date in the file")


class _Summaries:
    """The summary tables' sums over the attempts an import adds, added up as schema
    migration 3's insert trigger adds them (row by row, in insert order: the same
    floats), and written at the end in one upsert per key.

    Grouping the new rows in SQL at the end instead sorted them twice: 10.8 s of a
    1,000,000-row import's CPU (11 us a row), against about 1 us here."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.groups: dict[tuple[str, str, str], list[Any]] = {}
        self.quarters: dict[str, list[int]] = {}

    def add(self, template: str, topic: str, tags: str, verdict: str, score: float,
            answered_at: str) -> None:
        correct, partial = int(verdict == "correct"), int(verdict == "partial")
        group = self.groups.get((template, topic, tags))
        if group is None:
            self.groups[template, topic, tags] = [1, correct, partial, score]
        else:
            group[0] += 1
            group[1] += correct
            group[2] += partial
            group[3] = group[3] + score
        key = _quarter(answered_at, self.conn)
        quarter = self.quarters.get(key)
        if quarter is None:
            self.quarters[key] = [1, correct]
        else:
            quarter[0] += 1
            quarter[1] += correct

    def write(self, conn: sqlite3.Connection) -> None:
        conn.executemany(
            "INSERT INTO attempt_groups VALUES (?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (template_id, topic, tags) DO UPDATE SET "
            "attempts = attempts + excluded.attempts, correct = correct + excluded.correct, "
            "partial = partial + excluded.partial, "
            "score_sum = score_sum + excluded.score_sum",
            [(*key, *sums) for key, sums in self.groups.items()])
        conn.executemany(
            "INSERT INTO attempt_quarters VALUES (?, ?, ?) ON CONFLICT (quarter) DO UPDATE "
            "SET attempts = attempts + excluded.attempts, "
            "correct = correct + excluded.correct",
            [(key, *sums) for key, sums in self.quarters.items()])


def _quarter(at: str, conn: sqlite3.Connection) -> str:
    """:func:`~quiz.core.store.schema.quarter_of` of a time: the UTC quarter hour
    ``YYYY-MM-DDTHH:MM`` of a time in the stored format (every imported row's), worked
    out here; any other text is asked of SQLite."""
    if _STORED_TIME.fullmatch(at):
        return f"{at[:14]}{int(at[14:16]) // 15 * 15:02d}"
    return str(conn.execute(f"SELECT {quarter_of(':t')}", {"t": at}).fetchone()[0])


_INSERT_ATTEMPT: Final = (
    "INSERT INTO attempts (template_id, template_version, seed, mode, answer_text, "
    "verdict, score, mistake, hints_used, hint_cost, seconds, answered_at, topic, tags, "
    "session_id, guided) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")


def _insert(conn: sqlite3.Connection, batch: list[tuple[object, ...]],
            after: list[tuple[str, int | None, str, str | None, str]],
            links: list[tuple[int, str, str]], replay: _Online) -> int:
    """Insert a batch of attempts, then their reviews; note their mock links. Returns
    how many were inserted (and empties the lists).

    The ids are those SQLite gives rows inserted one after another in a transaction
    (the largest id + 1 each: the table has no AUTOINCREMENT), checked."""
    if not batch:
        return 0
    first = int(conn.execute("SELECT coalesce(max(id), 0) FROM attempts").fetchone()[0]) + 1
    conn.executemany(_INSERT_ATTEMPT, batch)
    last = int(conn.execute("SELECT max(id) FROM attempts").fetchone()[0])
    if last - first + 1 != len(batch):  # cannot happen without AUTOINCREMENT; be sure
        raise StoreError("the history gave imported attempts ids out of order; nothing "
                         "was imported")
    reviews = []
    for attempt_id, (template, rating, answered_at, mock, where) in enumerate(after, first):
        if rating is not None:
            reviews.append((template, rating, replay.review(template, rating, answered_at),
                            answered_at, attempt_id))
        if mock is not None:
            links.append((attempt_id, mock, where))
    conn.executemany("INSERT INTO review_log (template_id, rating, state_before, "
                     "reviewed_at, attempt_id) VALUES (?, ?, ?, ?, ?)", reviews)
    count = len(batch)
    batch.clear()
    after.clear()
    return count


def _match(store: Store, conn: sqlite3.Connection, row: AttemptRow, before: int,
           matched: set[int], mock_start: dict[int | None, str]) -> bool:
    """Whether an attempt the history had before the import, not matched yet, is this
    row (and if so, mark it matched)."""
    key = row.key()
    for stored in store.stream(_MATCH_SQL, (row.answered_at, before)):
        if stored["id"] not in matched and _file_row(store, stored, mock_start).key() == key:
            matched.add(stored["id"])
            return True
    return False


class _Online:
    """The replay of the reviews an import adds, as they are inserted, for the templates
    whose whole review log they are in log order: no review of the template in the log
    before the import, and each review no earlier than the one before it (a review at
    the same time is later in the log too: its id is larger). Such a template's log is
    replayed by then, its reviews inserted with their ``state_before``; any other
    template is replayed from the log at the end (:func:`_rebuild_log`)."""

    def __init__(self, logged: Iterable[str]) -> None:
        self.replay = _Replay()
        self.stale: set[str] = set(logged)
        """Templates replayed from the log at the end."""
        self.last: dict[str, str] = {}

    def review(self, template_id: str, rating: int, reviewed_at: str) -> int:
        """The review's ``state_before`` (0 for now, if the template is replayed from the
        log at the end)."""
        if template_id in self.stale:
            return NEW
        if reviewed_at < self.last.get(template_id, ""):  # out of time order
            self.stale.add(template_id)
            return NEW
        self.last[template_id] = reviewed_at
        return self.replay.review(template_id, rating, reviewed_at)


def _rebuild_log(conn: sqlite3.Connection, online: _Online) -> int:
    """The whole review log replayed in time order into fresh cards: the templates
    :class:`_Online` replayed as their reviews came in are done; every other one's log
    is replayed here, streamed, and each review's ``state_before`` set from the replay.
    The cards are replaced. Returns how many cards there are.

    The log keeps its rows and ids: replay order is ``(reviewed_at, id)``, which is
    the order every reader of the log uses, so only ``state_before`` changes; each
    template's card depends on its own reviews alone."""
    replay = _Replay()
    # The changes, held compactly (16 bytes a review) and written after the read.
    ids, states = array("q"), array("b")
    read = conn.cursor()
    read.row_factory = None
    for template in sorted(online.stale):
        for log_id, template_id, rating, reviewed_at, state in read.execute(
                "SELECT id, template_id, rating, reviewed_at, state_before FROM review_log "
                "WHERE template_id = ? ORDER BY reviewed_at, id", (template,)):
            before = replay.review(template_id, rating, reviewed_at)
            if before != state:
                ids.append(log_id)
                states.append(before)
    conn.executemany("UPDATE review_log SET state_before = ? WHERE id = ?",
                     zip(states, ids, strict=True))
    cards = {tid: card for tid, card in online.replay.cards_json().items()
             if tid not in online.stale}
    cards.update(replay.cards_json())
    # A card's time is its template's latest review: the last one replayed online (in
    # time order), else asked of the log's index.
    updated = {tid: online.last[tid] for tid in cards if tid not in online.stale}
    for tid in online.stale:
        updated[tid] = read.execute("SELECT max(reviewed_at) FROM review_log WHERE "
                                    "template_id = ?", (tid,)).fetchone()[0]
    conn.execute("DELETE FROM cards")
    conn.executemany(
        "INSERT INTO cards (template_id, card_json, updated_at) VALUES (?, ?, ?)",
        [(tid, card_json, updated[tid]) for tid, card_json in sorted(cards.items())])
    return len(cards)


def import_history(store: Store, history: HistoryFile) -> ImportResult:
    """Merge a validated history file into ``store`` (call :func:`backup_before_import`
    first); attempts, reviews and rebuilt cards are written in one transaction (see
    :func:`import_rows`, which does it from a stream).

    Returns:
        Counts of what was added and skipped.
    """
    rows: list[Row] = [("mock", f"mock session {i}", m)
                       for i, m in enumerate(history.mocks, start=1)]
    rows += [("attempt", f"attempt {i}", a) for i, a in enumerate(history.attempts, start=1)]
    return import_rows(store, rows)
