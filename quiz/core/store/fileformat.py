"""What a history file holds: its rows, their rules, the format's numbers and limits.

A history file moves progress between machines (or into a spreadsheet). It holds every
attempt with its template, version, seed, answer, verdict, score, time and named
mistake, plus the FSRS rating the attempt gave its template's card (if it gave one).
JSON also carries the mock interview sessions the attempts belong to; CSV is one row
per attempt, for spreadsheets, and leaves mock sessions out. This module is the
contract both ways: :class:`AttemptRow` and :class:`MockRow` (pydantic models whose
rules every imported row must keep and every exported row keeps), the layout's
version (:data:`HISTORY_FORMAT`), the CSV columns, and :class:`HistoryFileError`.
The files carry no export time, so exporting the same history twice gives the same
bytes, and export -> import into an empty history -> export gives the same file.

The jobs around it live beside it in the store package: :mod:`.writer` (export),
:mod:`.csvcells` (CSV cells a spreadsheet will not run), :mod:`.reader` (a file as a
stream of raw rows), :mod:`.validate` (those rows validated), :mod:`.merge` (the
import), :mod:`.pipeline` (a big file read in a second process), :mod:`.replay` (FSRS
cards rebuilt from the review log) and :mod:`.sums` (the summary tables' sums over the
imported rows).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Final, Literal, NotRequired

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
    with_config,
)
from typing_extensions import TypedDict

from questions.seeds import MAX_SEED
from quiz.core.clock import to_utc_text
from quiz.core.errors import QuizError

__all__ = [
    "CSV_COLUMNS",
    "CSV_OPTIONAL",
    "FORMATS",
    "FORMAT_NAME",
    "HISTORY_FORMAT",
    "MAX_COUNT",
    "MAX_VERSION",
    "PLAIN_FORMAT",
    "STORED_TIME",
    "AttemptFields",
    "AttemptRow",
    "HistoryFile",
    "HistoryFileError",
    "MockRow",
    "Row",
    "attempt_key",
    "fast_attempt_values",
    "fast_attempts",
    "fields_of",
    "format_of",
    "problem",
    "utc_time",
    "written",
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


def utc_time(value: str | None) -> str | None:
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
    if STORED_TIME.fullmatch(value):  # already as stored (an export's): keep the text
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

    _times = field_validator("answered_at", "mock")(utc_time)

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
        return attempt_key(self.__dict__)


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

    _times = field_validator("started_at", "finished_at")(utc_time)


@dataclass(frozen=True, slots=True)
class HistoryFile:
    """A parsed, validated history file."""

    attempts: tuple[AttemptRow, ...]
    """Every attempt, in file order."""
    mocks: tuple[MockRow, ...] = ()
    """Mock sessions (JSON files only)."""


CSV_COLUMNS: Final = ("history_format", "template", "version", "seed", "mode", "answer",
                       "verdict", "score", "mistake", "hints_used", "hint_cost", "seconds",
                       "answered_at", "topic", "tags", "rating")
CSV_OPTIONAL: Final = ("guided",)
"""Columns written only when used (a learn-mode history), so older versions read the
rest."""


def written(row: AttemptRow) -> dict[str, Any]:
    """A file row as the file holds it (``guided`` only when true)."""
    return row.model_dump(exclude=None if row.guided else {"guided"})


STORED_TIME: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}"
                                 r"\.[0-9]{6}\+00:00")
"""A time as :func:`to_utc_text` writes it (which it then writes back unchanged)."""


def format_of(guided: bool) -> int:
    """The ``history_format`` of a file with (or without) guided attempts."""
    return HISTORY_FORMAT if guided else PLAIN_FORMAT


def problem(exc: ValidationError) -> str:
    """A row's first problem, named by its field (and how many more there are)."""
    first = exc.errors()[0]
    field = ".".join(str(part) for part in first["loc"]) or "row"
    more = exc.error_count() - 1
    tail = f" (and {more} more problem{'s' * (more > 1)} in that row)" if more else ""
    return f"{field}: {first['msg']}{tail}"


AttemptFields = dict[str, Any]
"""An attempt's fields as :class:`AttemptRow` validates them (its ``__dict__``): what
:func:`fast_attempts` gives without building a model per row."""

Row = tuple[str, str, "AttemptRow | MockRow | AttemptFields"]
"""A validated row of a history file: ``("attempt" | "mock", where, row)``; an attempt
is an :class:`AttemptRow` or, from :func:`fast_attempts`, its fields (see
:func:`fields_of`)."""


def fields_of(row: AttemptRow | AttemptFields) -> AttemptFields:
    """An attempt's fields, whichever way it was validated."""
    return row if type(row) is dict else row.__dict__


def attempt_key(fields: AttemptFields) -> tuple[object, ...]:
    """What makes two attempts the same (every field but the mock link)."""
    return (fields["template"], fields["version"], fields["seed"], fields["mode"],
            fields["answer"], fields["verdict"], fields["score"], fields["mistake"],
            fields["hints_used"], fields["hint_cost"], fields["seconds"],
            fields["answered_at"], fields["topic"], fields["tags"], fields["rating"],
            fields["guided"])


_StoredTime = Annotated[str, Field(pattern=f"^{STORED_TIME.pattern}$")]
"""A time already in the stored form, checked in Rust (its ``$`` is the text's end)."""


@with_config(ConfigDict(extra="forbid"))
class _FastAttempt(TypedDict):
    """:class:`AttemptRow`'s fields and rules but for its two Python validators (the
    times, and the verdict against the score), which :func:`fast_attempts` applies."""

    template: Annotated[str, Field(min_length=1, max_length=200)]
    version: Annotated[int, Field(ge=0, le=MAX_VERSION)]
    seed: Annotated[int, Field(ge=0, le=MAX_SEED)]
    mode: Literal["drill", "practice", "mock"]
    answer: Annotated[str, Field(max_length=2000)]
    verdict: Literal["correct", "partial", "incorrect"]
    score: Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]
    mistake: NotRequired[str | None]
    hints_used: NotRequired[Annotated[int, Field(ge=0, le=MAX_COUNT)]]
    hint_cost: NotRequired[Annotated[float, Field(ge=0, allow_inf_nan=False)]]
    seconds: Annotated[float, Field(ge=0, allow_inf_nan=False)]
    answered_at: _StoredTime
    topic: Annotated[str, Field(min_length=1)]
    tags: NotRequired[tuple[str, ...]]
    rating: NotRequired[Annotated[int, Field(ge=1, le=4)] | None]
    mock: NotRequired[_StoredTime | None]
    guided: NotRequired[bool]


_FAST: Final = TypeAdapter(list[_FastAttempt])
_FIELDS: Final = len(AttemptRow.model_fields)
_DEFAULTS: Final[AttemptFields] = {
    name: field.default for name, field in AttemptRow.model_fields.items()
    if not field.is_required()}


def fast_attempts(text: str) -> list[AttemptFields] | None:
    """The attempts of a JSON list's text (``[{...}, {...}]``), each as
    :class:`AttemptRow` would validate it (its :func:`fields_of`), or None when that
    cannot be told this way: then each row goes through :class:`AttemptRow`, which
    names the problem (or converts a time given in another zone).

    The text is decoded and checked in one call of pydantic-core (no Python object per
    JSON value, no model per row): with the JSON module's decoding and a model per row
    that was half of a 1,000,000-row import's CPU. Only times already in the stored
    form are taken here; JSON that Python's decoder reads differently (a lone
    surrogate, NaN) fails here and goes the model's way, so a row is never taken
    here that the model would refuse or read otherwise (a property test compares
    the two)."""
    try:
        items = _FAST.validate_json(text)
    except ValidationError:
        return None
    return _checked(items)


def fast_attempt_values(values: list[dict[str, Any]]) -> list[AttemptFields] | None:
    """:func:`fast_attempts` for attempts given as Python values (a CSV file's cells,
    as :class:`AttemptRow` is given them): each as the model would validate it (the
    same lax conversions of text to numbers), or None (then each row goes through
    :class:`AttemptRow`, which names the problem or converts the time)."""
    try:
        items = _FAST.validate_python(values)
    except ValidationError:
        return None
    return _checked(items)


def _checked(items: list[_FastAttempt]) -> list[AttemptFields] | None:
    """The rows with AttemptRow's defaults, if all keep the two rules pydantic-core
    cannot check (a real day, the verdict against the score), else None."""
    rows: list[AttemptFields] = []
    for item in items:
        row: AttemptFields = item  # type: ignore[assignment]
        row.setdefault("guided", False)  # left out unless true, by the exporter
        if len(row) != _FIELDS:  # other fields left out: the model's defaults
            row = {**_DEFAULTS, **row}
        mock, verdict = row["mock"], row["verdict"]
        if not ((verdict != "correct" or row["score"] + row["hint_cost"] > 0)
                and (verdict != "incorrect" or row["score"] < 1)):
            return None
        try:
            datetime.fromisoformat(row["answered_at"])  # a real day and time of day
            if mock is not None:
                datetime.fromisoformat(mock)
        except ValueError:
            return None
        rows.append(row)
    return rows
