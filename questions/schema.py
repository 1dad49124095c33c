"""The template format: pydantic models that reject what they do not know.

A template is a TOML file; these models are its schema (``quiz templates schema`` prints
the JSON Schema generated from them). Every field has a docstring, which is also its
description in the JSON Schema and in AUTHORING.md. The models a template's fields hold
are declared in :mod:`questions.fields` (below the answer kinds, which check a part by
its kind here); the `[answer]` table of each kind in its module under
``questions/kinds/answers/``, validated by the part's ``answer_kind`` (:data:`AnswerByKind`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, get_args

from pydantic import (
    ConfigDict,
    Field,
    PlainValidator,
    SerializeAsAny,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from questions.errors import FieldError
from questions.fields import (
    MAX_STEPS,
    AnswerFields,
    Example,
    Hint,
    MistakeFields,
    ParamSpec,
    PartExtras,
    PartFields,
    Scalar,
    StepSpec,
    _Base,
    _Model,
)
from questions.followspec import FollowUpSpec, check_followups
from questions.kinds import DEFAULT, KINDS, kind_of
from questions.tags import RAPID_FIRE
from questions.types import AnswerKind

if TYPE_CHECKING:
    from pydantic import GetJsonSchemaHandler
    from pydantic_core import CoreSchema

__all__ = ["MAX_STEPS", "SCHEMA_VERSION", "TOPICS", "AnswerByKind", "AnswerFields",
           "Example", "Hint", "MistakeByKind", "MistakeFields", "ParamSpec", "Part", "Scalar",
           "StepSpec", "Template", "answer_models", "mistake_models"]

SCHEMA_VERSION = 1
"""The format version this code reads (the ``schema`` field of a template)."""

TOPICS = ("memory", "compute", "parallelism", "communication", "pipeline", "inference",
          "conventions", "layout", "scenario", "cost", "scaling", "moe", "long-context",
          "reliability")


def _registered(name: object) -> str:
    """A registered answer kind's name (pydantic's words for a value not among them)."""
    if isinstance(name, str) and name in KINDS:
        return name
    names = [repr(n) for n in KINDS]
    expected = f"{', '.join(names[:-1])} or {names[-1]}"
    raise PydanticCustomError("literal_error", "Input should be {expected}",
                              {"expected": expected})


KindName = Annotated[str, PlainValidator(_registered),
                     WithJsonSchema({"enum": list(get_args(AnswerKind)), "type": "string"})]
"""An answer kind's name: any kind registered in :data:`questions.kinds.KINDS` (the
JSON Schema lists :data:`questions.types.AnswerKind`'s)."""


KIND_PART_FIELDS = ("choices", "rows", "columns")
"""The fields of a part that only some kinds read (:attr:`QuestionKind.part_fields`)."""


def answer_models() -> dict[str, type[AnswerFields]]:
    """Each registered kind's `[answer]` model, by kind name (imports every kind's)."""
    return {name: kind.answer_fields() for name, kind in KINDS.items()}


def mistake_models() -> dict[str, type[MistakeFields]]:
    """Each registered kind's `[[mistakes]]` model, by kind name, for the kinds whose
    parts declare known mistakes (imports every kind's)."""
    return {name: fields() for name, kind in KINDS.items()
            if (fields := kind.mistake_fields) is not None}


def _by_kind(value: object, info: ValidationInfo) -> object:
    """An `[answer]` validated by the model of the answer kind beside it."""
    kind = info.data.get("answer_kind")
    if value is None or kind is None:  # no answer, or answer_kind refused (the error)
        return value
    model = kind_of(kind).answer_fields()
    if isinstance(value, model):
        return value
    return model.model_validate(value, context=info.context)


def _mistake_by_kind(value: object, info: ValidationInfo) -> object:
    """A `[[mistakes]]` entry validated by the mistake model of the answer kind beside
    it; refused on a kind whose parts declare none."""
    kind = info.data.get("answer_kind")
    if kind is None:  # answer_kind refused (the error)
        return value
    fields = kind_of(kind).mistake_fields
    if fields is None:
        names = list(mistake_models())
        owners = f"{', '.join(names[:-1])} and {names[-1]}"
        raise PydanticCustomError(
            "no_mistakes", "a {kind} answer has no [[mistakes]]: its grader names the "
            "slips it knows itself (known mistakes are for {owners} answers)",
            {"kind": kind, "owners": owners})
    model = fields()
    if isinstance(value, model):
        return value
    return model.model_validate(value, context=info.context)


class ByKind:
    """The JSON Schema of a table validated by the answer kind beside it: one of the
    registered kinds' models (:meth:`models`)."""

    def models(self) -> dict[str, type[_Model]]:
        """Each kind's model of this table, by kind name."""
        return dict(answer_models())

    def __get_pydantic_json_schema__(self, core: CoreSchema,
                                     handler: GetJsonSchemaHandler) -> dict[str, Any]:
        models = list(dict.fromkeys(self.models().values()))
        return {"anyOf": [handler(m.__pydantic_core_schema__) for m in models]}


class MistakesByKind(ByKind):
    """The JSON Schema of a `[[mistakes]]` entry: one of the kinds' mistake models."""

    def models(self) -> dict[str, type[_Model]]:
        """Each kind's `[[mistakes]]` model, by kind name."""
        return dict(mistake_models())


AnswerByKind = Annotated[SerializeAsAny[AnswerFields], PlainValidator(_by_kind), ByKind()]
"""An `[answer]` table: validated as the part's ``answer_kind``'s model (a discriminated
union over :data:`questions.kinds.KINDS`, keyed by the field beside it, so that a kind
registered at run time validates its own fields and errors read ``answer.FIELD``), and
dumped as that model."""

MistakeByKind = Annotated[SerializeAsAny[MistakeFields], PlainValidator(_mistake_by_kind),
                          MistakesByKind()]
"""A `[[mistakes]]` entry: validated as the part's ``answer_kind``'s mistake model (as
:data:`AnswerByKind`; errors read ``mistakes[N].FIELD``), and dumped as that model."""


class KindExtras(PartExtras, _Base):
    """:class:`~questions.fields.PartExtras` with each known mistake validated as the
    kind beside it says (a part's, a single-part template's)."""

    mistakes: list[MistakeByKind] = Field(default_factory=list)
    """Known mistakes, checked in order after the key: the fields of its kind (see the
    reference of each kind's `[[mistakes]]`)."""


class Part(KindExtras, PartFields):
    """One step of a question: a prompt and its answer (a scenario has several)."""

    model_config = ConfigDict(defer_build=False)

    answer_kind: KindName = DEFAULT
    """How the answer is typed and graded."""
    answer: AnswerByKind
    """The key: the fields of its kind (see the reference of each kind's `[answer]`)."""

    @model_validator(mode="after")
    def _kind_fields(self) -> Part:
        kind = kind_of(self.answer_kind)
        for name in KIND_PART_FIELDS:
            if getattr(self, name) and name not in kind.part_fields:
                owners = [n for n, k in KINDS.items() if name in k.part_fields]
                raise FieldError((name,), f"a {self.answer_kind} answer has no {name} "
                                 f"({name} are for {' and '.join(owners)} answers)")
        kind.check_part(self)
        return self


class _TemplateHead(_Base):
    """What a template says of itself and how its variants are drawn (the fields before
    a single-part template's part, in order)."""

    schema_: int = Field(default=SCHEMA_VERSION, alias="schema", strict=True)
    """Format version of this file (currently 1)."""
    id: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9_-]*(/[a-z0-9][a-z0-9_-]*)+$")]
    """Unique id, `topic/name` in lower case, e.g. "memory/model-state"."""
    version: int = Field(default=1, ge=1, le=2**63 - 1, strict=True)
    """Bump when the question changes; history and scheduling stay with the id (a whole
    number that fits the history: at most 2^63 - 1)."""
    title: str = Field(min_length=3, max_length=80)
    """A short title for lists."""
    topic: str
    """One of memory, compute, parallelism, communication, pipeline, inference,
    conventions, layout, scenario, cost, scaling, moe, long-context, reliability."""
    tags: list[str] = Field(default_factory=list)
    """Free tags; `rapid-fire-N` (N = 1..7) marks the interview item it drills."""
    difficulty: int = Field(default=1, ge=1, le=3)
    """1 easy, 2 medium, 3 hard."""
    intro: str = ""
    """For scenarios: the setting shown above every part."""
    params: dict[str, ParamSpec] = Field(default_factory=dict)
    """Parameter space: `model`, `gpu`, or any solver key -> how it is drawn."""
    constraints: list[str] = Field(default_factory=list)
    """Conditions every variant satisfies, e.g. "heads % tp == 0"; redrawn otherwise."""
    fixed: dict[str, Scalar] = Field(default_factory=dict)
    """Solver keys fixed for every variant."""
    expected_seconds: float = Field(default=90, gt=0)
    """How long a prepared person takes; used by scheduling."""


class _SinglePartKey(_TemplateHead):
    """A single-part template's prompt and key, at its top level (optional: a scenario
    gives [[parts]] instead)."""

    prompt: str = ""
    """A single-part question's prompt (or use [[parts]])."""
    answer_kind: KindName = DEFAULT
    """A single-part question's answer kind."""
    answer: Annotated[SerializeAsAny[AnswerFields] | None, PlainValidator(_by_kind),
                      ByKind()] = None
    """A single-part question's key."""


class Template(KindExtras, _SinglePartKey):
    """A question template: parameters drawn from a seed, one or more parts (a
    single-part template has a part's fields at its top level: its prompt and key, and
    the rest of a part's, :class:`~questions.fields.PartExtras`)."""

    parts: list[Part] = Field(default_factory=list)
    """A multi-part scenario's steps (instead of prompt/answer)."""
    examples: list[Example] = Field(default_factory=list)
    """Typed answers with the verdicts they must get."""
    steps: list[StepSpec] = Field(default_factory=list)
    """Learn mode: a friendlier prompt for a step of the worked derivation, or skip it."""
    followups: list[FollowUpSpec] = Field(default_factory=list)
    """The interviewer's follow-ups: change one input, ask about the effect (see
    questions/followspec.py); layout questions and scenarios also get a standard set."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True,
                              defer_build=False)

    @field_validator("topic")
    @classmethod
    def _topic(cls, v: str) -> str:
        if v not in TOPICS:
            import difflib

            close = difflib.get_close_matches(v, TOPICS, n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise ValueError(f"unknown topic {v!r}{hint}; use one of {', '.join(TOPICS)}")
        return v

    @field_validator("tags")
    @classmethod
    def _tags(cls, v: list[str]) -> list[str]:
        for tag in v:
            if tag.startswith("rapid-fire-") and tag not in RAPID_FIRE:
                raise ValueError(f"{tag!r}: rapid-fire items are numbered 1 to "
                                 f"{len(RAPID_FIRE)}")
        return v

    @model_validator(mode="after")
    def _single_or_parts(self) -> Template:
        if self.schema_ != SCHEMA_VERSION:
            raise FieldError(("schema",), f"schema {self.schema_} is not supported (this "
                             f"quiz reads schema {SCHEMA_VERSION})")
        single = bool(self.prompt) or self.answer is not None
        if single and self.parts:
            raise FieldError(("parts",), "give either prompt/answer or [[parts]], not both")
        if not single and not self.parts:
            raise FieldError(("answer",), "a template needs a prompt and an answer (or "
                             "[[parts]])")
        if single and (not self.prompt or self.answer is None):
            raise FieldError(("prompt",) if self.answer is not None else ("answer",),
                             "a single-part template needs both prompt and answer")
        for i, part in enumerate(self.parts):
            for tag in part.tags:
                if tag not in self.tags:
                    raise FieldError(("parts", i, "tags"), f"{tag!r} is not one of the "
                                     "template's tags (a part names some of those)")
        n_parts = len(self.parts) or 1
        seen: set[tuple[int, str]] = set()
        for i, step in enumerate(self.steps):
            if step.part > n_parts:
                raise FieldError(("steps", i, "part"), f"part {step.part} does not exist "
                                 f"(the template has {n_parts})")
            if (step.part, step.quantity) in seen:
                raise FieldError(("steps", i, "quantity"), f"{step.quantity!r} is given "
                                 f"twice for part {step.part}")
            seen.add((step.part, step.quantity))
        return self

    @model_validator(mode="after")
    def _followups(self) -> Template:
        check_followups(self.followups, len(self.parts) or 1)
        return self

    def all_parts(self) -> list[Part]:
        """The parts of this template (a single-part template has one)."""
        if self.parts:
            return list(self.parts)
        assert self.answer is not None
        return [Part(prompt=self.prompt, answer_kind=self.answer_kind, answer=self.answer,
                     choices=self.choices, rows=self.rows, columns=self.columns,
                     mistakes=self.mistakes, hints=self.hints)]

    @property
    def kind(self) -> str:
        """The answer kind people see first (a scenario reports its first part's)."""
        return self.all_parts()[0].answer_kind
