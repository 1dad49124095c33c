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
    field docstrings (AUTHORING.md carries this text; a test keeps the two equal): the
    `[answer]` table's fields every kind has, then each kind's own, and the same for
    `[[mistakes]]`, from the models the kinds' table registers."""
    from questions import schema
    from questions.fielddocs import field_doc
    from questions.followspec import FollowUpSpec

    sections: list[tuple[str, type[Any], frozenset[str]]] = [
        ("Top level", schema.Template, frozenset()),
        ("`[params.NAME]`: how a parameter is drawn", schema.ParamSpec, frozenset())]
    sections += _answer_sections()
    sections += _mistake_sections()
    sections += [(title, model, frozenset()) for title, model in [
        ("`[[hints]]` (or `[[parts.hints]]`)", schema.Hint),
        ("`[[examples]]`", schema.Example),
        ("`[[parts]]`: one step of a scenario", schema.Part),
        ("`[[steps]]`: how learn mode asks a step of the worked derivation",
         schema.StepSpec),
        ("`[[followups]]`: the interviewer's follow-ups", FollowUpSpec)]]
    out: list[str] = []
    for title, model, left_out in sections:
        out += [f"### {title}", "", "| field | type | default | meaning |",
                "|---|---|---|---|"]
        for name, info in model.model_fields.items():
            if name in left_out:
                continue
            label = info.alias or name
            meaning = " ".join((field_doc(model, name) or "").split()).replace("|", "\\|")
            out.append(f"| `{label}` | {_type_text(info.annotation, info.metadata)} | "
                       f"{_default_text(info)} | {meaning} |")
        out.append("")
    return "\n".join(out)


def _answer_sections() -> list[tuple[str, type[Any], frozenset[str]]]:
    """The `[answer]` table: the fields every kind has (all a kind without a model of
    its own has), then each kind's model with the fields it adds, each followed by the
    tables its fields hold."""
    import typing

    from pydantic import BaseModel

    from questions.fields import AnswerFields
    from questions.schema import answer_models

    by_model: dict[type[AnswerFields], list[str]] = {}
    for name, model in answer_models().items():
        by_model.setdefault(model, []).append(name)
    only = by_model.pop(AnswerFields, [])
    common = "`[answer]` (or `[parts.answer]`): the fields of every answer kind"
    if only:
        common += f" (all that {_kinds(only)} answers have)"
    out: list[tuple[str, type[Any], frozenset[str]]] = [(common, AnswerFields, frozenset())]
    shared = frozenset(AnswerFields.model_fields)

    def nested(annotation: Any) -> list[type[BaseModel]]:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            return [annotation]
        return [m for arg in typing.get_args(annotation) for m in nested(arg)]

    for model, names in by_model.items():
        out.append((f"`[answer]` of {_kinds(names)} answers: their own fields", model, shared))
        for field, info in model.model_fields.items():
            for inner in nested(info.annotation):
                doc = " ".join((inner.__doc__ or "").split()).rstrip(".")
                many = typing.get_origin(info.annotation) is list
                at = f"[[answer.{field}]]" if many else f"answer.{field}"
                out.append((f"`{at}`: {doc[:1].lower() + doc[1:]}", inner, frozenset()))
    return out


def _mistake_sections() -> list[tuple[str, type[Any], frozenset[str]]]:
    """The `[[mistakes]]` table: the fields every kind's mistakes have, then each kind's
    recognisers (a kind missing from the table's models declares no mistakes)."""
    from questions.fields import MistakeFields
    from questions.kinds import KINDS
    from questions.schema import mistake_models

    by_model: dict[type[MistakeFields], list[str]] = {}
    for name, model in mistake_models().items():
        by_model.setdefault(model, []).append(name)
    common = "`[[mistakes]]` (or `[[parts.mistakes]]`): the fields of every kind's mistakes"
    none = [name for name in KINDS if KINDS[name].mistake_fields is None]
    if none:
        common += f" ({_kinds(none)} answers have no `[[mistakes]]`)"
    out: list[tuple[str, type[Any], frozenset[str]]] = [(common, MistakeFields, frozenset())]
    shared = frozenset(MistakeFields.model_fields)
    for model, names in by_model.items():
        out.append((f"`[[mistakes]]` of {_kinds(names)} answers: how one is recognised",
                    model, shared))
    return out


def _kinds(names: list[str]) -> str:
    """``answer_kind = "choice"`` or ``"multi"``."""
    return " or ".join(f'`answer_kind = "{n}"`' if i == 0 else f'`"{n}"`'
                       for i, n in enumerate(names))


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
        while typing.get_origin(inner) is typing.Annotated:  # a table checked by kind
            inner = typing.get_args(inner)[0]
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
