"""The history's domain objects and their rows: attempts, reviews, mock sessions.

Domain objects never leak ``sqlite3.Row``; the small converter functions here translate
between the two and check every field before it is written.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Final, cast, get_args

from msgspec import Struct

from quiz.core.clock import from_utc_text, require_aware, to_utc_text
from quiz.core.types import Mode, StoredVerdict

__all__ = [
    "ATTEMPT_COLUMNS",
    "FLAG_COLUMNS",
    "FLAG_REASONS",
    "MODES",
    "VERDICTS",
    "Attempt",
    "Flag",
    "MockResult",
    "Review",
    "attempt_to_row",
    "finite",
    "flag_to_row",
    "row_to_attempt",
    "row_to_flag",
    "row_to_mock",
    "row_to_review",
    "validate_attempt",
]

VERDICTS: Final[frozenset[str]] = frozenset(get_args(StoredVerdict))
"""Verdicts that are stored. ``invalid`` (unreadable input) is never an attempt."""
MODES: Final[frozenset[str]] = frozenset(get_args(Mode))


class Attempt(Struct, frozen=True, kw_only=True):
    """One graded answer. Unreadable (``invalid``) input is never an attempt."""

    template_id: str
    """Id of the question template, e.g. ``"memory/model-state"``."""
    template_version: int
    """Version of the template when the question was asked."""
    seed: int
    """Seed of the variant; with the template id it reproduces the question."""
    mode: Mode
    """Session kind: ``drill``, ``practice`` or ``mock``."""
    answer_text: str
    """The answer exactly as typed."""
    verdict: StoredVerdict
    """``correct``, ``partial`` or ``incorrect``."""
    score: float
    """Credit in [0, 1], hint costs already deducted."""
    topic: str
    """The template's topic."""
    answered_at: datetime
    """When the answer was submitted (aware; stored in UTC)."""
    seconds: float
    """Time taken to answer."""
    mistake: str | None = None
    """Name of the known mistake the answer matched, if any."""
    hints_used: int = 0
    """Hints revealed before answering."""
    hint_cost: float = 0.0
    """Credit the hints cost."""
    tags: tuple[str, ...] = ()
    """The template's tags (e.g. ``rapid-fire-3``)."""
    session_id: int | None = None
    """Mock session the attempt belongs to (see :meth:`Store.start_mock`)."""
    guided: bool = False
    """Answered right after a learn-mode walk-through of the same variant: never a cold
    success, so it never moves the template's FSRS card."""
    id: int | None = None
    """Row id; None until stored."""


class Review(Struct, frozen=True, kw_only=True):
    """One FSRS review of a template's card."""

    template_id: str
    """Template whose card was reviewed."""
    rating: int
    """FSRS rating: 1 Again, 2 Hard, 3 Good, 4 Easy."""
    reviewed_at: datetime
    """When the review happened (aware; stored in UTC)."""
    state_before: int
    """Card state before the review: 0 new, 1 learning, 2 review, 3 relearning."""
    attempt_id: int | None = None
    """The attempt that produced the rating, if any."""
    id: int | None = None
    """Row id; None until stored."""


class MockResult(Struct, frozen=True, kw_only=True):
    """One mock interview session; unfinished sessions have ``finished_at`` None."""

    started_at: datetime
    """When the session began."""
    minutes: int
    """Time limit in minutes."""
    n_questions: int
    """Number of questions planned."""
    finished_at: datetime | None = None
    """When it ended; None if abandoned (e.g. the app was killed)."""
    score: float | None = None
    """Overall score as reported by the mock session."""
    report: Mapping[str, Any] | None = None
    """JSON-serializable report written by the mock session."""
    id: int | None = None
    """Row id; None until stored."""


FLAG_REASONS: Final = ("wrong", "unclear")
"""Why a question was flagged: its key looks wrong, or its text is unclear."""
FLAG_NOTE_MAX: Final = 2000


class Flag(Struct, frozen=True, kw_only=True):
    """A learner's report on a question, for the template's author."""

    template_id: str
    """The template flagged."""
    template_version: int
    """Its version when flagged."""
    seed: int
    """The variant (with the id, ``TEMPLATE_ID#SEED`` reproduces it)."""
    reason: str
    """``wrong`` (the key or grading looks wrong) or ``unclear`` (the text)."""
    flagged_at: datetime
    """When (aware; stored in UTC)."""
    part: int = 1
    """The scenario part flagged (1 for single questions)."""
    note: str = ""
    """What the learner wrote, if anything."""
    attempt_id: int | None = None
    """The attempt it was flagged after, if any."""
    id: int | None = None
    """Row id; None until stored."""

    @property
    def variant(self) -> str:
        """``TEMPLATE_ID#SEED``."""
        return f"{self.template_id}#{self.seed}"


def flag_to_row(flag: Flag) -> tuple[object, ...]:
    """The row of a flag, checked."""
    if flag.reason not in FLAG_REASONS:
        raise ValueError(f"flag reason {flag.reason!r} is not one of {list(FLAG_REASONS)}")
    if not flag.template_id:
        raise ValueError("template_id must not be empty")
    if flag.part < 1 or not -(2**63) <= flag.seed < 2**63:
        raise ValueError(f"bad part {flag.part} or seed {flag.seed}")
    require_aware(flag.flagged_at, "flagged_at")
    return (flag.template_id, flag.template_version, flag.seed, flag.part, flag.reason,
            flag.note[:FLAG_NOTE_MAX], to_utc_text(flag.flagged_at), flag.attempt_id)


FLAG_COLUMNS: Final = ("template_id, template_version, seed, part, reason, note, "
                       "flagged_at, attempt_id")


def row_to_flag(row: sqlite3.Row) -> Flag:
    return Flag(id=row["id"], template_id=row["template_id"],
                template_version=row["template_version"], seed=row["seed"],
                part=row["part"], reason=row["reason"], note=row["note"],
                flagged_at=from_utc_text(row["flagged_at"]), attempt_id=row["attempt_id"])


def finite(value: float, what: str, *, low: float = 0.0, high: float = math.inf) -> None:
    if not (math.isfinite(value) and low <= value <= high):
        raise ValueError(f"{what} must be a finite number in [{low}, {high}], got {value!r}")


def validate_attempt(attempt: Attempt) -> None:
    if attempt.verdict not in VERDICTS:
        raise ValueError(
            f"verdict {attempt.verdict!r} is not stored: only {sorted(VERDICTS)} are "
            "attempts (invalid input costs no attempt)"
        )
    if attempt.mode not in MODES:
        raise ValueError(f"mode {attempt.mode!r} is not one of {sorted(MODES)}")
    if not attempt.template_id:
        raise ValueError("template_id must not be empty")
    if not -(2**63) <= attempt.seed < 2**63:
        raise ValueError(f"seed {attempt.seed} does not fit in 64 bits")
    finite(attempt.score, "score", high=1.0)
    finite(attempt.hint_cost, "hint_cost")
    finite(attempt.seconds, "seconds")
    if attempt.hints_used < 0:
        raise ValueError(f"hints_used must be >= 0, got {attempt.hints_used}")
    if not all(isinstance(tag, str) for tag in attempt.tags):
        raise ValueError(f"tags must be strings, got {attempt.tags!r}")
    require_aware(attempt.answered_at, "answered_at")


def attempt_to_row(attempt: Attempt) -> tuple[object, ...]:
    return (
        attempt.template_id,
        attempt.template_version,
        attempt.seed,
        attempt.mode,
        attempt.answer_text,
        attempt.verdict,
        float(attempt.score),
        attempt.mistake,
        attempt.hints_used,
        float(attempt.hint_cost),
        float(attempt.seconds),
        to_utc_text(attempt.answered_at),
        attempt.topic,
        json.dumps(list(attempt.tags)),
        attempt.session_id,
        int(attempt.guided),
    )


ATTEMPT_COLUMNS: Final = (
    "template_id, template_version, seed, mode, answer_text, verdict, score, mistake, "
    "hints_used, hint_cost, seconds, answered_at, topic, tags, session_id, guided"
)


def row_to_attempt(row: sqlite3.Row) -> Attempt:
    return Attempt(
        id=row["id"],
        template_id=row["template_id"],
        template_version=row["template_version"],
        seed=row["seed"],
        mode=cast(Mode, row["mode"]),
        answer_text=row["answer_text"],
        verdict=cast(StoredVerdict, row["verdict"]),
        score=row["score"],
        mistake=row["mistake"],
        hints_used=row["hints_used"],
        hint_cost=row["hint_cost"],
        seconds=row["seconds"],
        answered_at=from_utc_text(row["answered_at"]),
        topic=row["topic"],
        tags=tuple(json.loads(row["tags"])),
        session_id=row["session_id"],
        guided=bool(row["guided"]),
    )


def row_to_review(row: sqlite3.Row) -> Review:
    return Review(
        id=row["id"],
        template_id=row["template_id"],
        rating=row["rating"],
        state_before=row["state_before"],
        reviewed_at=from_utc_text(row["reviewed_at"]),
        attempt_id=row["attempt_id"],
    )


def row_to_mock(row: sqlite3.Row) -> MockResult:
    return MockResult(
        id=row["id"],
        started_at=from_utc_text(row["started_at"]),
        finished_at=from_utc_text(row["finished_at"]) if row["finished_at"] else None,
        minutes=row["minutes"],
        n_questions=row["n_questions"],
        score=row["score"],
        report=json.loads(row["report_json"]) if row["report_json"] is not None else None,
    )
