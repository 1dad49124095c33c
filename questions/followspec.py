"""The `[[followups]]` table of a template: which input an interviewer changes, over what
range, and what is asked about the effect.

Kept apart from :mod:`questions.schema` (the template model only gains the field
``followups: list[FollowUpSpec]``), so that the follow-up model can change without
touching the rest of the schema. Drawing and keying are in :mod:`questions.followups`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from questions.errors import FieldError

Change = Literal["seq", "gpus", "gpu", "moe", "global_batch", "interconnect", "precision"]
"""The inputs a follow-up may change."""

Ask = Literal["part", "layout", "axis", "memory", "step_time", "mfu", "fits", "moves"]
"""What a follow-up asks about the effect."""

CHANGES: tuple[str, ...] = ("seq", "gpus", "gpu", "moe", "global_batch", "interconnect",
                            "precision")
ASKS: tuple[str, ...] = ("part", "layout", "axis", "memory", "step_time", "mfu", "fits",
                         "moves")

PRECISIONS = ("fp8", "fp8-weights", "fp32-grads")
"""`precision` targets: FP8 matmuls (the GPU's FP8 peak), FP8 weights and KV cache
(serving), FP32 gradients (Megatron-LM's 18 bytes per parameter)."""

NUMERIC = ("seq", "gpus", "global_batch", "interconnect")

LARGEST: dict[str, float] = {"seq": 2**24, "gpus": 2**20, "global_batch": 2**24,
                             "interconnect": 1e13, "moe": 512}
"""The largest value a change may set (a follow-up runs the layout engine's search,
whose work grows with the GPU count's divisors and the batch)."""
"""Changes that take a `factor` of the variant's value."""


class FollowUpSpec(BaseModel):
    """One follow-up: the interviewer changes one input of the variant and asks about
    the effect; the key comes from evaluating the changed variant (the solver, or the
    layout engine for `layout`, `axis`, `memory`, `step_time`, `mfu`, `fits`, `moves`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    change: Change
    """The input that changes: seq (sequence length; the global batch keeps its tokens),
    gpus (the GPU count), gpu (the GPU type, e.g. gb200), moe (the dense model becomes a
    mixture of experts with the same active size), global_batch, interconnect (the
    network bandwidth per GPU) or precision (fp8, fp8-weights or fp32-grads)."""
    to: list[str | int | float] = Field(default_factory=list)
    """The values it changes to, one picked per variant by its seed: tokens for seq,
    a GPU preset for gpu, the expert count for moe (top-2), a precision name."""
    factor: list[float] = Field(default_factory=list)
    """Or: multiply the variant's value by one of these (seq, gpus, global_batch,
    interconnect), e.g. 0.5 for half the nodes."""
    ask: Ask
    """What is asked: part (that part of the template again, with the change), layout
    (lay it out again), axis (what the best layout changes), memory (memory per GPU of
    the same layout), step_time or mfu (of the new best layout), fits (does the same
    layout still fit) or moves (which memory line or time term of the same layout moves
    most)."""
    part: int | None = Field(default=None, ge=1)
    """For ask = "part": the part asked again (1-based; 1 for a one-part template).
    Left out: the first number part whose key the change moves."""
    prompt: str = ""
    """Words the interviewer says first, before the generated description of the change
    (which states the values before and after) and the question about the effect."""
    harder: bool = False
    """A harder perturbation: what a mock interviewer asks after an answer that was
    all right."""

    @field_validator("to", mode="before")
    @classmethod
    def _no_booleans(cls, v: object) -> object:
        # (pydantic would read true as 1: a sequence of one token)
        if isinstance(v, list) and any(isinstance(x, bool) for x in v):
            raise FieldError((), "to takes whole numbers or names, not true/false")
        return v

    @model_validator(mode="after")
    def _range(self) -> FollowUpSpec:
        if bool(self.to) == bool(self.factor):
            raise FieldError(("to",), "give exactly one of to or factor (the values the "
                             "input changes to, or factors of the variant's value)")
        if self.factor:
            if self.change not in NUMERIC:
                raise FieldError(("factor",), f"{self.change} takes to, not factor "
                                 f"(factor is for {', '.join(NUMERIC)})")
            if any(not 0 < f <= 64 or f == 1 for f in self.factor):
                raise FieldError(("factor",), "factors are positive, at most 64, and "
                                 "not 1 (a follow-up changes something)")
        for value in self.to:
            self._target(value)
        if self.part is not None and self.ask != "part":
            raise FieldError(("part",), "part is for ask = \"part\" only")
        return self

    def _target(self, value: str | int | float) -> None:
        change = self.change
        if change == "precision":
            if value not in PRECISIONS:
                raise FieldError(("to",), f"precision is one of {', '.join(PRECISIONS)}, "
                                 f"not {value!r}")
        elif change == "gpu":
            from solver.presets import GPUS

            if value not in GPUS:
                import difflib

                close = difflib.get_close_matches(str(value), list(GPUS), n=1)
                hint = f" (did you mean {close[0]}?)" if close else ""
                raise FieldError(("to",), f"unknown GPU preset {value!r}{hint}")
        elif isinstance(value, (str, bool)) or value != int(value) \
                or value < 1:
            raise FieldError(("to",), f"{change} changes to whole numbers of at least 1, "
                             f"not {value!r}")
        elif change == "moe" and not 2 < value <= LARGEST["moe"]:
            raise FieldError(("to",), "moe takes the expert count (3 to 512; two are "
                             "active per token)")
        elif value > LARGEST[change]:
            raise FieldError(("to",), f"{change} changes to at most {LARGEST[change]:g}, "
                             f"not {value:g}")


def check_followups(followups: Sequence[FollowUpSpec], n_parts: int) -> None:
    """The template-level checks of its follow-ups: a `part` that exists (of the
    template's ``n_parts``)."""
    for i, f in enumerate(followups):
        if f.part is not None and f.part > n_parts:
            raise FieldError(("followups", i, "part"), f"part {f.part} does not exist "
                             f"(the template has {n_parts})")
