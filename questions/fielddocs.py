"""Field docstrings of the pydantic models, read from their source only when asked.

The docstring under each field is its documentation: the JSON Schema's descriptions,
AUTHORING.md's field reference, the comments ``save_settings`` writes. pydantic can read
them itself (``use_attribute_docstrings``), but it does so for every model at import,
tokenizing the module's source once per class: a fifth of the time ``quiz ask`` took
to import the template schema. Here the source is parsed once, the first time a
description is wanted (never on the paths that only validate).
"""

from __future__ import annotations

import ast
import functools
import inspect
import sys
from typing import Any, get_args

from pydantic import BaseModel

__all__ = ["field_doc", "json_schema"]


@functools.cache
def _module_docs(module: str) -> dict[str, dict[str, str]]:
    """class qualname -> field name -> docstring, for every class of a module."""
    tree = ast.parse(inspect.getsource(sys.modules[module]))
    docs: dict[str, dict[str, str]] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if not isinstance(node, ast.ClassDef):
                continue
            name = f"{prefix}{node.name}"
            fields = docs.setdefault(name, {})
            for stmt, after in zip(node.body, node.body[1:], strict=False):
                if (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
                        and isinstance(after, ast.Expr)
                        and isinstance(after.value, ast.Constant)
                        and isinstance(after.value.value, str)):
                    fields[stmt.target.id] = inspect.cleandoc(after.value.value)
            visit(node.body, f"{name}.")

    visit(tree.body, "")
    return docs


def field_doc(model: type[BaseModel], name: str) -> str | None:
    """The docstring under field ``name`` of ``model`` (or of the base declaring it)."""
    for klass in model.__mro__:
        if klass is BaseModel:
            break
        found = _module_docs(klass.__module__).get(klass.__qualname__, {}).get(name)
        if found is not None:
            return found
    return model.model_fields[name].description if name in model.model_fields else None


def json_schema(model: type[BaseModel], **options: Any) -> dict[str, Any]:
    """``model.model_json_schema(**options)`` with every field's docstring as its
    description (where the field sets none)."""
    schema = model.model_json_schema(**options)
    by_name: dict[str, type[BaseModel]] = {}

    def collect(klass: type[BaseModel]) -> None:
        if klass.__name__ in by_name:
            return
        by_name[klass.__name__] = klass
        for info in klass.model_fields.values():
            for inner in _models_in(info.annotation):
                collect(inner)

    collect(model)
    from questions.schema import answer_models  # an [answer] is one of the kinds' models

    for answer in answer_models().values():
        collect(answer)

    def describe(node: Any) -> None:
        # every model's schema, in $defs or inline (an [answer]'s), by its title
        if isinstance(node, list):
            for item in node:
                describe(item)
        if not isinstance(node, dict):
            return
        title = node.get("title")
        klass = by_name.get(title) if isinstance(title, str) else None
        if klass is not None and isinstance(node.get("properties"), dict):
            aliases = {(info.alias or name): name
                       for name, info in klass.model_fields.items()}
            for prop, spec in node["properties"].items():
                doc = field_doc(klass, aliases.get(prop, prop))
                if doc and "description" not in spec:
                    spec["description"] = doc
        for value in node.values():
            describe(value)

    describe(schema)
    return schema


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The models named in a type annotation (``list[X] | None``, ``Annotated[X, ...]``)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [found for arg in get_args(annotation) for found in _models_in(arg)]
