"""What the compiled bank keeps of a template for a one-shot command's first draw.

Beside each compiled template's data, the bank (:mod:`questions.catalog`) keeps its
*view*: the fields pydantic gave when it compiled the file, as plain JSON, and once for
the whole cache the models' *shape* (which fields hold models, tuples, lists and dicts of
them). :func:`questions.stored.bank_view` rebuilds the template from the two without
pydantic, so that the first ``quiz ask``/``check`` of a template in a data folder
imports neither pydantic nor the schema (a fifth of a second).

Why it is kept (bench/bench_bank.py ``views``, paired, in one run, n = 5): a
template's first ``quiz ask``/``check`` costs 0.60x the CPU of validating the data
instead for a choice, 0.77x (ask) and 0.85x (check) for a number; over the 15% a piece
of machinery must buy but for a number's check. Writing views costs ~0.1 ms per
compiled template.

Kept apart from :mod:`questions.stored` (which reads views) so that the catalog, which
writes them, does not import the one-shot commands' module, which imports the catalog.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from questions.schema import Template


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
    once. Built from the models' annotations (imports the schema: pydantic).

    Raises:
        TypeError: an annotation this shape cannot describe (a union of a model and
            something else): then the bank keeps no views.
    """
    import types
    import typing

    from pydantic import BaseModel

    from questions.schema import Part, Template

    models: dict[str, dict[str, Any]] = {}

    def describe(a: Any) -> Any:
        if isinstance(a, type) and issubclass(a, BaseModel):
            if a.__name__ not in models:
                models[a.__name__] = {}  # before its fields: a model may hold itself
                models[a.__name__] = {n: describe(f.annotation)
                                      for n, f in a.model_fields.items()}
            return {"m": a.__name__}
        origin, args = typing.get_origin(a), typing.get_args(a)
        if origin is typing.Annotated:
            return describe(args[0])
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
