"""Export: the whole history written as a JSON or CSV history file, streamed.

:func:`write_history` reads the attempts a page at a time (memory stays the same at
any size) and writes :func:`dump`'s bytes for the same history (golden files in
``tests/unit/exports/``). The cost that made export slow was a pydantic row validated
and dumped per attempt: a stored row that keeps the file's rules (plain comparisons,
:func:`_plain_item`) is written directly by a fixed pattern; any other goes through
:class:`~quiz.core.store.fileformat.AttemptRow`, which names the problem. A file with
a guided attempt is ``history_format`` 2, any other 1.
"""

from __future__ import annotations

import csv
import io
import json
import math
import sqlite3
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final, TextIO

from pydantic import ValidationError

from questions.seeds import MAX_SEED
from quiz.core.clock import to_utc_text
from quiz.core.errors import StoreError
from quiz.core.store.csvcells import escape
from quiz.core.store.fileformat import (
    CSV_COLUMNS,
    CSV_OPTIONAL,
    FORMAT_NAME,
    FORMATS,
    MAX_COUNT,
    MAX_VERSION,
    STORED_TIME,
    AttemptRow,
    HistoryFile,
    MockRow,
    format_of,
    problem,
    written,
)
from quiz.core.store.records import MODES, VERDICTS, row_to_attempt

if TYPE_CHECKING:
    from quiz.core.store.history import Store

__all__ = ["ATTEMPTS_SQL", "csv_row", "dump", "export_history", "file_row", "indented",
           "json_list", "mock_rows", "write_history"]


def mock_rows(store: Store) -> tuple[list[MockRow], dict[int | None, str]]:
    """The mock sessions (a few per week of use: held whole), oldest first, and each
    one's start by id."""
    mocks = sorted(store.mock_history(), key=lambda m: (m.started_at, m.id or 0))
    rows = [MockRow(started_at=to_utc_text(m.started_at),
                    finished_at=to_utc_text(m.finished_at) if m.finished_at else None,
                    minutes=m.minutes, n_questions=m.n_questions, score=m.score,
                    report=dict(m.report) if m.report is not None else None)
            for m in mocks]
    return rows, {m.id: to_utc_text(m.started_at) for m in mocks}


ATTEMPTS_SQL: Final = (
    "SELECT id, template_id, template_version, seed, mode, answer_text, verdict, score, "
    "mistake, hints_used, hint_cost, seconds, answered_at, topic, tags, session_id, guided, "
    "(SELECT rating FROM review_log AS r WHERE r.attempt_id = attempts.id "
    "ORDER BY r.reviewed_at, r.id LIMIT 1) AS first_rating FROM attempts {where} "
    "ORDER BY answered_at, id")
"""Every attempt (or those ``where`` keeps), oldest first, each with the rating of the
first review it gave (by the review log's index)."""


def file_row(store: Store, row: sqlite3.Row, mock_start: dict[int | None, str]) -> AttemptRow:
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
                         f"{problem(exc)}; "
                         "fix or delete that row, or run quiz history restore to pick a "
                         "backup") from None


def _attempt_items(store: Store, mock_start: dict[int | None, str]) -> Iterator[dict[str, Any]]:
    """Every attempt as the file holds it (:func:`written` of its :class:`AttemptRow`),
    oldest first, streamed.

    A row is checked against :class:`AttemptRow`'s rules with plain comparisons, and
    only a row that fails one (or holds a value of another type) goes through the model,
    which then names the problem: the same items as validating each row, for a few
    comparisons a row instead of a model built and dumped.
    """
    tags_of: dict[str, tuple[str, ...] | None] = {}
    for row in store.stream(ATTEMPTS_SQL.format(where=""), ()):
        item = _plain_item(row, mock_start, tags_of)
        yield item if item is not None else written(file_row(store, row, mock_start))


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
            and type(answered_at) is str and STORED_TIME.fullmatch(answered_at)
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
    type the file's rules allow (:func:`indented` writes it by a fixed pattern)."""

    __slots__ = ()


def _plain_text(item: _PlainItem) -> str:
    """:func:`indented` of a :class:`_PlainItem`."""
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


def json_list(items: Iterable[dict[str, Any]], out: TextIO) -> int:
    """Write a list of objects as ``json.dumps(..., indent=1)`` writes it two levels
    deep (an object's text, its line ends indented two more spaces: a JSON string never
    holds a raw line end); return how many."""
    count = 0
    for item in items:
        out.write(",\n  " if count else "[\n  ")
        out.write(indented(item).replace("\n", "\n  "))
        count += 1
    out.write("\n ]" if count else "[]")
    return count


def indented(item: dict[str, Any]) -> str:
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
            "history_format": format_of(any(row.guided for row in history.attempts)),
            "attempts": [written(row) for row in history.attempts],
            "mock_sessions": [m.model_dump() for m in history.mocks],
        }
        return json.dumps(document, indent=1, ensure_ascii=False) + "\n"
    if fmt == "csv":
        out = io.StringIO()
        # CRLF (RFC 4180) also makes the writer quote any field holding a lone CR,
        # which a reader would otherwise take for the end of the row.
        writer = csv.writer(out, lineterminator="\r\n")
        guided = any(row.guided for row in history.attempts)
        writer.writerow([*CSV_COLUMNS, *CSV_OPTIONAL] if guided else CSV_COLUMNS)
        for row in history.attempts:
            writer.writerow(csv_row(written(row), guided))
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
    mocks, mock_start = mock_rows(store)
    # Through the index of guided attempts: the file's format comes before its rows.
    guided = bool(store.rows("SELECT EXISTS (SELECT 1 FROM attempts WHERE guided = 1)")[0][0])
    rows = _attempt_items(store, mock_start)
    if fmt == "json":
        head = json.dumps({"format": FORMAT_NAME, "history_format": format_of(guided)},
                          indent=1, ensure_ascii=False)
        out.write(head.removesuffix("\n}") + ',\n "attempts": ')
        count = json_list(rows, out)
        out.write(',\n "mock_sessions": ')
        json_list((m.model_dump() for m in mocks), out)
        out.write("\n}\n")
        return count
    # CRLF (RFC 4180) also makes the writer quote any field holding a lone CR, which a
    # reader would otherwise take for the end of the row.
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([*CSV_COLUMNS, *CSV_OPTIONAL] if guided else CSV_COLUMNS)
    count = 0
    for row in rows:
        writer.writerow(csv_row(row, guided))
        count += 1
    return count


def csv_row(row: dict[str, Any], guided: bool) -> list[object]:
    """A CSV row of a file item (see :func:`written`), its cells escaped
    (:func:`escape`); ``guided``: the file has guided attempts (and their column)."""
    return [escape(cell) for cell in _csv_cells(row, guided)]


def _csv_cells(row: dict[str, Any], guided: bool) -> list[object]:
    return [
        format_of(guided), row["template"], row["version"], row["seed"], row["mode"],
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
