"""Templates as read-only records, without pydantic: what drawing a variant reads.

The compiled bank (:mod:`questions.catalog`) keeps, for each template pydantic
validated, its fields as JSON (:func:`bank_view_json`) and, once, the models' shape
(:func:`view_shape`); :func:`bank_view` reads them back as a :class:`TemplateView`,
which :func:`questions.variants.make_variant` draws from like the validated template. A
one-shot ``quiz ask``/``quiz check`` therefore validates nothing (pydantic's import and
model build are about a fifth of a second), and a view that cannot be drawn only costs
the validation (:func:`questions.stored.variant`).

Why it is kept (bench/bench_bank.py ``views``, paired, in one run, n = 5): a
template's first ``quiz ask``/``check`` costs 0.60x the CPU of validating the data
instead for a choice, 0.77x (ask) and 0.85x (check) for a number; over the 15% a piece
of machinery must buy but for a number's check. Writing views costs ~0.1 ms per
compiled template. The catalog writes views through this module and the one-shot draw
reads them through it; neither imports the other.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from questions.schema import Template


class View:
    """A validated model's fields as a read-only record, without pydantic: nested models
    are views too, lists and dicts stay lists and dicts.

    >>> v = View({"prompt": "How many?", "choices": ["a", "b"]})
    >>> v.prompt, v.choices
    ('How many?', ['a', 'b'])
    """

    def __init__(self, fields: Mapping[str, Any]) -> None:
        self.__dict__.update(fields)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a stored {name!r} is read-only")

    def __repr__(self) -> str:
        return f"View({self.__dict__!r})"

    def model_copy(self, *, update: Mapping[str, Any] | None = None) -> View:
        """A copy with some fields replaced (as a frozen pydantic model's, unvalidated)."""
        return View({**self.__dict__, **(update or {})})


class TemplateView(View):
    """A validated template's fields, and its parts as :meth:`Template.all_parts` gave
    them: what drawing a variant reads of a template."""

    def __init__(self, fields: Mapping[str, Any], parts: list[View]) -> None:
        super().__init__(fields)
        self.__dict__["_parts"] = parts

    def all_parts(self) -> list[View]:
        """The parts (a single-part template has one)."""
        return list(self.__dict__["_parts"])

    @property
    def kind(self) -> str:
        """The answer kind people see first."""
        return str(self.all_parts()[0].__dict__["answer_kind"])


def bank_view_json(t: Template) -> str:
    """What the compiled bank keeps of a validated template for :func:`bank_view`: its
    fields as pydantic dumps them (in pydantic's compiled code: a tenth of a millisecond,
    where :func:`template_json` walks every field in Python), and a single-part
    template's one part, which :meth:`Template.all_parts` builds."""
    part = None if t.parts else t.all_parts()[0].model_dump()
    return json.dumps({"fields": t.model_dump(), "part": part})


def view_shape() -> str:
    """Which fields of the template models hold models, tuples, lists and dicts of them,
    as JSON (see :func:`bank_view`); the same for every template, so the bank keeps it
    once. Built from the models' annotations (imports the schema: pydantic); an
    `[answer]` and a `[[mistakes]]` entry are described by kind (``{"k": {kind:
    shape}}``), each registered kind's model.

    Raises:
        TypeError: an annotation this shape cannot describe (a union of a model and
            something else): then the bank keeps no views.
    """
    import types
    import typing

    from pydantic import BaseModel

    from questions.schema import ByKind, Part, Template

    models: dict[str, dict[str, Any]] = {}

    def describe(a: Any, metadata: Any = ()) -> Any:
        for by_kind in (m for m in metadata if isinstance(m, ByKind)):
            # an [answer] or a mistake: the model of the answer_kind beside it, by kind
            return {"k": {name: describe(m) for name, m in by_kind.models().items()}}
        if isinstance(a, type) and issubclass(a, BaseModel):
            if a.__name__ not in models:
                models[a.__name__] = {}  # before its fields: a model may hold itself
                models[a.__name__] = {n: describe(f.annotation, f.metadata)
                                      for n, f in a.model_fields.items()}
            return {"m": a.__name__}
        origin, args = typing.get_origin(a), typing.get_args(a)
        if origin is typing.Annotated:
            return describe(args[0], args[1:])
        if origin in (typing.Union, types.UnionType):
            inner = [describe(x) for x in args if x is not type(None)]
            if all(d == "v" for d in inner):
                return "v"
            if len(inner) == 1:  # Model | None, tuple | None: None is kept as None
                return inner[0]
            raise TypeError(f"cannot describe {a!r}")
        if origin is list:
            d = describe(args[0])
            return "v" if d == "v" else {"l": d}
        if origin is dict:
            d = describe(args[1])
            return "v" if d == "v" else {"d": d}
        if origin is tuple:
            if any(describe(x) != "v" for x in args if x is not Ellipsis):
                raise TypeError(f"cannot describe {a!r}")
            return {"t": "v"}
        if origin is typing.Literal or a in (str, int, float, bool, type(None)):
            return "v"
        raise TypeError(f"cannot describe {a!r}")

    describe(Template)
    describe(Part)
    return json.dumps(models)


def bank_view(text: str, shape: str) -> TemplateView:
    """The :class:`TemplateView` of a template the bank kept (:func:`bank_view_json`),
    given the models' :func:`view_shape`: the same fields, records, tuples and lists as
    :func:`template_from_json` gives, read without pydantic.

    Raises:
        KeyError, TypeError, ValueError, AttributeError: data of another shape.
    """
    models = json.loads(shape)
    data = json.loads(text)

    def build(value: Any, d: Any, kind: str | None = None) -> Any:
        if d == "v" or value is None:
            return value
        (tag, inner), = d.items()
        if tag == "k":
            # an [answer] or a mistake is of the model of the answer_kind beside it
            # (KeyError: a kind registered after the shape was kept: no view is used)
            return build(value, inner[kind], kind)
        if tag == "m":
            fields = models[inner]
            if not isinstance(value, dict) or value.keys() != fields.keys():
                raise ValueError(f"a {inner} of other fields")
            kind = value.get("answer_kind", kind)
            return View({n: build(v, fields[n], kind) for n, v in value.items()})
        if tag == "d" and isinstance(value, dict):
            return {str(k): build(v, inner, kind) for k, v in value.items()}
        if tag in ("l", "t") and isinstance(value, list):
            return [build(v, inner, kind) for v in value] if tag == "l" else tuple(value)
        raise ValueError(f"{value!r} is not of shape {d!r}")

    fields = build(data["fields"], {"m": "Template"}).__dict__
    parts = list(fields["parts"]) or [build(data["part"], {"m": "Part"})]
    return TemplateView(fields, parts)
