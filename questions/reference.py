"""The template field reference as Markdown, built from the schema's field docstrings.

``quiz templates schema --markdown`` prints it, and AUTHORING.md carries the same text
(a test keeps the two equal), so the reference cannot drift from the models.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

__all__ = ["reference_markdown"]


def reference_markdown() -> str:
    """The reference of every template field, as Markdown tables built from the models'
    field docstrings (AUTHORING.md carries this text; a test keeps the two equal)."""
    from questions import schema
    from questions.fielddocs import field_doc
    from questions.followspec import FollowUpSpec

    sections: list[tuple[str, type[Any]]] = [
        ("Top level", schema.Template),
        ("`[params.NAME]`: how a parameter is drawn", schema.ParamSpec),
        ("`[answer]` (or `[parts.answer]`)", schema.Answer),
        ("`[[answer.accept]]`: other accepted conventions", schema.Accepted),
        ("`answer.when`: choice keys that depend on the draw", schema.Condition),
        ("`[[answer.figures]]`: figures a spoken answer states", schema.Figure),
        ("`[[answer.claims]]`: choices a spoken answer states", schema.Claim),
        ("`[[answer.order]]`: items a spoken answer states in order", schema.OrderRule),
        ("`[[mistakes]]` (or `[[parts.mistakes]]`)", schema.Mistake),
        ("`[[hints]]` (or `[[parts.hints]]`)", schema.Hint),
        ("`[[examples]]`", schema.Example),
        ("`[[parts]]`: one step of a scenario", schema.Part),
        ("`[[steps]]`: how learn mode asks a step of the worked derivation",
         schema.StepSpec),
        ("`[[followups]]`: the interviewer's follow-ups", FollowUpSpec),
    ]
    out: list[str] = []
    for title, model in sections:
        out += [f"### {title}", "", "| field | type | default | meaning |",
                "|---|---|---|---|"]
        for name, info in model.model_fields.items():
            label = info.alias or name
            meaning = " ".join((field_doc(model, name) or "").split()).replace("|", "\\|")
            out.append(f"| `{label}` | {_type_text(info.annotation, info.metadata)} | "
                       f"{_default_text(info)} | {meaning} |")
        out.append("")
    return "\n".join(out)


def _type_text(tp: Any, metadata: Sequence[Any] = ()) -> str:
    import types
    import typing

    from pydantic import BaseModel

    origin, args = typing.get_origin(tp), typing.get_args(tp)
    text: str
    listed = next((m.json_schema["enum"] for m in metadata
                   if isinstance(getattr(m, "json_schema", None), dict)
                   and "enum" in m.json_schema), None)
    if listed is not None:  # a name checked against a table (answer_kind): its names
        return " \\| ".join(f'"{a}"' for a in listed)
    if origin is typing.Annotated:
        return _type_text(args[0], [*args[1:], *metadata])
    if origin in (typing.Union, types.UnionType):
        kinds = [a for a in args if a is not type(None)]
        if set(kinds) == {str, int, float, bool}:
            text = "text, number or true/false"
        else:
            text = " or ".join(_type_text(a) for a in kinds)
    elif origin is typing.Literal:
        text = " \\| ".join(f'"{a}"' for a in args)
    elif origin in (list, dict):
        inner = args[-1]
        nested = isinstance(inner, type) and issubclass(inner, BaseModel)
        of = "tables (below)" if nested else _type_text(inner)
        text = f"{'array' if origin is list else 'table'} of {of}"
    elif origin is tuple:
        text = "[" + ", ".join(_type_text(a) for a in args) + "]"
    elif isinstance(tp, type) and issubclass(tp, BaseModel):
        text = "table (below)"
    else:
        text = {str: "text", int: "integer", float: "number", bool: "true/false"}.get(
            tp, str(tp))
    limits = []
    for meta in metadata:
        for attr, sign in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<"),
                           ("min_length", "length >="), ("max_length", "length <=")):
            value = getattr(meta, attr, None)
            if value is not None:
                limits.append(f"{sign} {value}")
    return text + (f" ({', '.join(limits)})" if limits else "")


def _default_text(info: Any) -> str:
    from pydantic_core import PydanticUndefined

    if info.default_factory is not None:
        value = info.default_factory()
    elif info.default is PydanticUndefined:
        return "required"
    else:
        value = info.default
    if value is None:
        return "none"
    return f"`{json.dumps(value)}`"
