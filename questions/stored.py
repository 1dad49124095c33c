"""The variant a one-shot ``quiz ask``/``quiz check`` asks or grades, drawn as cheaply
as the data folder allows.

A variant is drawn from the template as the compiled bank keeps it
(:func:`questions.views.bank_view`: no pydantic) with the solver's derivations run as
plans kept in the data folder (:mod:`questions.plancache`: no sympy once the plans a
draw needs were derived before); a view that cannot be drawn (a bug the tests look for)
only costs validating the template, and a plan never derived only costs deriving it
(then kept), and a draw that derived plans derives those of the template's first seeds
too (:func:`_predraw`), so that its other seeds need no sympy. Nothing else is kept: a
drawn variant is not stored (reading one back bought nothing over drawing it from the
view and the plans; bench/README.md), and nothing is worked out after the command
returns.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, cast

from questions.plancache import PlanFile
from questions.views import TemplateView, bank_view

if TYPE_CHECKING:
    from questions.catalog import Catalog
    from questions.schema import Template
    from questions.variants import Variant


def variant(catalog: Catalog, template_id: str, seed: int, plans: Path | None) -> Variant:
    """The variant of a template at ``seed``, its derivations worked out.

    Args:
        catalog: the compiled bank (which file holds which id, and its views).
        template_id: the template's id.
        seed: the seed.
        plans: the plans file (:data:`questions.plancache.FILE`, created when a plan is
            kept), or None to derive every plan here.

    Raises:
        UnknownTemplate: no template has this id.
        TemplateError: as :func:`questions.variants.make_variant`.
    """
    from questions.variants import make_variant

    catalog.entry(template_id)  # an unknown id: one line with a suggestion
    if plans is None:
        return make_variant(catalog.templates([template_id])[template_id], seed)
    from solver import light

    source = PlanFile(plans, base=lambda key: catalog.cached_meta(key)
                      if key == light.CATALOGUE_KEY else None)  # the bank keeps the catalogue
    template = cast("Template | None", bank_view_of(catalog, template_id))
    with light.using(source):
        drawn = None
        if template is not None:
            try:
                drawn = _worked(make_variant(template, seed))
            except Exception:  # a view drawn unlike its model: the model says what is wrong
                drawn = None
        if template is None or drawn is None:
            template = catalog.templates([template_id])[template_id]
            drawn = _worked(make_variant(template, seed))
        if "solver.engine" in sys.modules:  # this draw derived plans: sympy is in
            _predraw(template, seed)
    source.save()
    return drawn


PREDRAWN = 8
"""Seeds (0, 1, ...) whose plans a draw that had to derive some derives too, while sympy
is imported anyway: another seed of the template often reads other derivations (another
model's shape, pipelining, a ZeRO stage ...), which would cost its own ask the import."""


def _predraw(template: Template, seed: int) -> None:
    """Work out the derivations of the template's seeds 0 to :data:`PREDRAWN` - 1 (not
    for a layout key: a search that reads the engine itself at every draw)."""
    from questions.kinds import kind_of
    from questions.variants import make_variant
    from solver.errors import QuizError

    if any(kind_of(p.answer_kind).searches_layout for p in template.all_parts()):
        return
    for other in range(PREDRAWN):
        if other != seed:
            with contextlib.suppress(QuizError):  # a seed the template cannot draw
                _worked(make_variant(template, other))


def _worked(v: Variant) -> Variant:
    """``v`` with every part's derivation worked out (while the plans file is in use)."""
    from questions.derivation import derivation_of

    for pv in v.parts:
        derivation_of(pv)  # kept on the part once worked out
    return v


def bank_view_of(catalog: Catalog, template_id: str) -> TemplateView | None:
    """The template as the compiled bank keeps it (validated when it was compiled), else
    None. Also what `quiz drill` draws its first question from, before the template
    models are imported (:func:`quiz.core.drill.first_question`)."""
    text, shape = catalog.cached_view(template_id), catalog.cached_meta("shape")
    if text is None or shape is None:
        return None
    try:
        return bank_view(text, shape)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
