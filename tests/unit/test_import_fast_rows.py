"""The import's fast path for rows (portable._plain_attempt) takes only rows the model
(AttemptRow) takes, as the same row: every value, its type, the fields set, the dump.
Whatever the fast path passes over goes to the model, so the two together refuse
exactly what the model refuses, with the model's message."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from quiz.core.store.portable import AttemptRow, _attempt, _plain_attempt

BASE: dict[str, Any] = {
    "template": "memory/model-state", "version": 1, "seed": 123_456, "mode": "drill",
    "answer": "1.13 TB", "verdict": "correct", "score": 1.0, "mistake": None,
    "hints_used": 0, "hint_cost": 0.0, "seconds": 12.5,
    "answered_at": "2024-03-01T09:30:00.000000+00:00", "topic": "memory",
    "tags": ["zero", "adam"], "rating": 3, "mock": None,
}

# Values of every kind a JSON or CSV row (or a hostile file) may hold in any field.
hostile = st.one_of(
    st.none(), st.booleans(),
    st.integers(), st.sampled_from([0, 1, 2, 4, 5, -1, 2**63 - 1, 2**63, 10**12 - 1,
                                    10**12, 10_000, 10_001, 2**70]),
    st.floats(), st.sampled_from([0.0, -0.0, 1.0, 0.5, 1.0000001, math.nan, math.inf,
                                  -math.inf, 1e308, 5e-324]),
    st.text(), st.text(st.characters(codec=None), max_size=5),
    st.sampled_from(["", "1", "1.0", "drill", "mock", "practice", "correct", "partial",
                     "incorrect", "true", "\ud800", "a\udfffb", "x" * 201, "x" * 2001,
                     "2024-03-01T09:30:00.000000+00:00", "2024-02-30T09:30:00.000000+00:00",
                     "2024-03-01T24:30:00.000000+00:00", "2024-03-01T09:30:00+00:00",
                     "2024-03-01T09:30:00.000000-05:00", "2024-03-01T09:30:00.000000",
                     "9999-12-31T23:59:59.999999+00:00", "0001-01-01T00:00:00.000000+00:00",
                     "2024-03-01T09:30:00.000000+00:00\n", "２０２４-03-01T09:30:00.000000+00:00"]),
    st.lists(st.one_of(st.text(max_size=3), st.integers(), st.none(), st.just("\ud800")),
             max_size=3),
    st.tuples(st.text(max_size=3)),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
fields = st.sampled_from([*BASE, "guided", "extra", "Template"])
rows = st.builds(
    lambda changes, dropped: {**{k: v for k, v in BASE.items() if k not in dropped},
                              **changes},
    st.dictionaries(fields, hostile, max_size=4),
    st.sets(fields, max_size=2),
)


def same_row(fast: AttemptRow, model: AttemptRow) -> None:
    assert fast == model
    assert list(fast.__dict__.items()) == list(model.__dict__.items())
    assert {k: type(v) for k, v in fast.__dict__.items()} == {
        k: type(v) for k, v in model.__dict__.items()}
    assert fast.model_fields_set == model.model_fields_set
    assert fast.model_dump() == model.model_dump()
    assert fast.key() == model.key()


@settings(max_examples=3000, deadline=None)
@given(rows)
@example(BASE)
@example({**BASE, "guided": True, "mock": "2024-03-01T09:00:00.000000+00:00"})
@example({**BASE, "score": 1})  # an int where a float is stored: the model converts
@example({**BASE, "seed": -1})
@example({**BASE, "verdict": "correct", "score": 0.0})
@example({**BASE, "verdict": "incorrect", "score": 1.0})
@example({**BASE, "answer": "\ud800"})
@example({**BASE, "tags": ["\udc80"]})
@example({**BASE, "version": True})
@example({**BASE, "guided": 1})
def test_the_fast_path_takes_only_what_the_model_takes_as_the_same_row(
        raw: dict[str, Any]) -> None:
    fast = _plain_attempt(raw)
    try:
        model = AttemptRow.model_validate(raw)
    except ValidationError:
        assert fast is None, raw
        with_fast_path = None
        try:
            _attempt(raw)
        except ValidationError as exc:
            with_fast_path = exc
        assert with_fast_path is not None
        return
    if fast is not None:
        same_row(fast, model)
    same_row(_attempt(raw), model)


def test_an_export_row_takes_the_fast_path() -> None:
    assert _plain_attempt(BASE) is not None
    assert _plain_attempt({**BASE, "guided": True}) is not None
