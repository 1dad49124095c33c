"""Checking a validated template against the solver, and the warnings an author sees.

What :func:`questions.loader.parse_template` adds to pydantic's validation: every name
the solver must know (quantities, keys, presets), expressions the whitelist allows,
placeholders, dimensions and units, follow-through and examples; and the warnings that
do not stop a template loading (:func:`template_warnings`). Each is a field path and a
reason; :mod:`questions.located` turns the path into a line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from questions.kinds import kind_of
from questions.located import AT as _AT

if TYPE_CHECKING:
    from questions.schema import Part, Template


def check_against_solver(t: Template) -> list[tuple[list[str | int], str]]:
    """Names the solver does not know, and expressions that are not allowed."""
    from questions.expr import ExprError, compile_expr
    from questions.text import NAMES, suggest_name
    from solver.keys import KEYS
    from solver.light import QUANTITIES
    from solver.presets import GPUS, MODELS

    out: list[tuple[list[str | int], str]] = []
    own = (frozenset(t.params) | frozenset(t.fixed)) - {"model", "gpu"}

    def suggest(name: str, known: Iterable[str]) -> str:
        # the template's own drawn and fixed names first: `microbatch` in a template
        # that draws `microbatches` means that, not the solver key `micro_batch`
        known = list(known)
        close = suggest_name(name, known, [n for n in own if n in known])
        return f" (did you mean {close}?)" if close else ""

    def check_keys(mapping: dict[str, Any], loc: list[str | int]) -> None:
        for k, v in mapping.items():
            if k == "model":
                for choice in _choices(v):
                    if choice not in MODELS:
                        out.append((loc + [k], f"unknown model {choice!r}"
                                    f"{suggest(str(choice), MODELS)}"))
            elif k == "gpu":
                for choice in _choices(v):
                    if choice not in GPUS:
                        out.append((loc + [k], f"unknown gpu {choice!r}"
                                    f"{suggest(str(choice), GPUS)}"))
            elif k not in KEYS:
                out.append((loc + [k], f"unknown solver key {k!r}{suggest(k, KEYS)}"))

    free = {n for n, spec in t.params.items() if spec.free}
    for name in sorted(free):
        if name in KEYS or name in QUANTITIES or name in ("model", "gpu"):
            out.append((["params", name], f"{name!r} is a solver name; a free parameter "
                        "needs a name of its own"))
        elif not name.isidentifier():
            out.append((["params", name], "a free parameter's name must be an identifier"))
    check_keys({k: v for k, v in t.params.items() if k not in free}, ["params"])
    check_keys(dict(t.fixed), ["fixed"])
    for name in sorted(set(t.params) & set(t.fixed)):
        out.append((["fixed", name], f"{name} is both drawn ([params.{name}]) and fixed: the "
                    "key uses the fixed value while the texts show the drawn one; keep "
                    "one of them"))
    for i, c in enumerate(t.constraints):
        try:
            compile_expr(c, NAMES | frozenset(t.params), own)
        except ExprError as exc:
            out.append((["constraints", i], str(exc)))
    out += _check_placeholders(t)
    for i, step in enumerate(t.steps):
        if step.quantity not in QUANTITIES and step.quantity != "answer" and \
                not re.fullmatch(r"(option:[a-z]|row:[\w-]+)", step.quantity):
            out.append((["steps", i, "quantity"], f"unknown quantity {step.quantity!r}"
                        f"{suggest(step.quantity, QUANTITIES)}"))
    for pi, part in enumerate(t.all_parts()):
        base: list[str | int] = ["parts", pi] if t.parts else []
        out += _check_part(part, base, check_keys, suggest, QUANTITIES,
                           NAMES | frozenset(free), own)
    out += _check_follow(t)
    out += _check_examples(t)
    out += _check_condition_units(t)
    return out


def _solver_units() -> dict[str, str]:
    """The base unit of every solver quantity and key, by name (for dimension checks)."""
    from solver.keys import KEYS
    from solver.light import QUANTITIES

    return {n: q.unit for n, q in QUANTITIES.items()} | {n: k.unit for n, k in KEYS.items()}


def _answer_unit(part: Part) -> str:
    """The unit an amount is graded in: its own, its quantity's, or "1"."""
    from solver.light import QUANTITIES

    a = kind_of(part.answer_kind).amount_of(part)
    return a.unit or (QUANTITIES[str(a.quantity)].unit if a.quantity in QUANTITIES else "1")


def _check_condition_units(t: Template) -> list[tuple[list[str | int], str]]:
    """Constraints and `answer.when` conditions compare like with like (a condition that
    compares bytes with bytes per second would pick the key silently wrong), and a
    spoken figure's `expr` is in its unit."""
    from questions.dimensions import DimensionError, dim_of_unit, expr_dim, show_dim

    units = _solver_units()
    texts: list[tuple[list[str | int], str, str | None]] = [
        (["constraints", i], c, None) for i, c in enumerate(t.constraints)]
    for pi, part in enumerate(t.all_parts()):
        base: list[str | int] = ["parts", pi] if t.parts else []
        kind = kind_of(part.answer_kind)
        if not kind.amount:  # an amount's expression: against its unit (_check_dimensions)
            texts += [(base + loc, text, unit) for loc, text, unit in kind.expressions(part)]
    out: list[tuple[list[str | int], str]] = []
    for loc, text, unit in texts:
        try:
            got = expr_dim(text, units)
            want = dim_of_unit(unit) if unit else None
        except DimensionError as exc:
            out.append((loc, f"{text!r} {exc}: compare (and add) quantities of one "
                        "dimension, e.g. bytes with bytes"))
            continue
        except (SyntaxError, ValueError):  # reported elsewhere
            continue
        if want is not None and got is not None and got != want:
            out.append((loc, f"{text!r} is in {show_dim(got)} but the figure's unit is "
                        f"{unit}: fix the expression or set unit = \"{show_dim(got)}\""))
    return out


def _check_examples(t: Template) -> list[tuple[list[str | int], str]]:
    """Each example's part exists, and its placeholders name a part, a known mistake
    of its part or an expression that compiles."""
    from questions.expr import ExprError, compile_expr
    from questions.text import EXAMPLE_PLACEHOLDER, NAMES, suggest_name

    parts = t.all_parts()
    out: list[tuple[list[str | int], str]] = []
    braces = re.compile(r"\{[^{}]*\}")
    for i, ex in enumerate(t.examples):
        loc: list[str | int] = ["examples", i]
        if not 1 <= ex.part <= len(parts):
            out.append((loc + ["part"], f"no part {ex.part}: the template has "
                        f"{len(parts)}"))
            continue
        known = [x.name for x in parts[ex.part - 1].mistakes]
        # the grader's own slips ("GB vs GiB", "bits vs bytes", "off by a thousand") and
        # a layout's verdicts ("illegal layout") are names too
        if ex.mistake is not None and ex.mistake not in known and \
                not kind_of(parts[ex.part - 1].answer_kind).names_mistake(ex.mistake):
            close = suggest_name(ex.mistake, known, known)
            hint = f" (did you mean {close!r}?)" if close else \
                f" (part {ex.part}'s mistakes: {', '.join(map(repr, known)) or 'none'})"
            out.append((loc + ["mistake"], f"{ex.mistake!r} is not a known mistake of part "
                        f"{ex.part}{hint}"))
        for field_name, k, text in [("answer", ex.part, ex.answer)] + [
                ("earlier", n + 1, x) for n, x in enumerate(ex.earlier)]:
            part = parts[min(k, len(parts)) - 1]
            for written in braces.findall(text):
                m = EXAMPLE_PLACEHOLDER.fullmatch(written)
                at = loc + [field_name]
                if m is None:
                    out.append((at, f"{written} is not an example placeholder: use {{key}}, "
                                "{part:N}, {mistake:NAME} or {expr:EXPR}"))
                    continue
                kind, _, arg = m.group(1).partition(":")
                arg = arg.strip()
                if kind == "part" and not (arg.isdigit() and 1 <= int(arg) <= len(parts)):
                    out.append((at, f"{written}: the template has parts 1 to {len(parts)}"))
                elif kind == "mistake" and arg not in {x.name for x in part.mistakes}:
                    names = [x.name for x in part.mistakes]
                    close = suggest_name(arg, names, names)
                    hint = f" (did you mean {{mistake:{close}}}?)" if close else \
                        f" (part {k}'s mistakes: {', '.join(names) or 'none'})"
                    out.append((at, f"{written} names no known mistake of part {k}{hint}"))
                elif kind == "expr":
                    try:
                        compile_expr(arg, NAMES | frozenset(t.params), t.params)
                    except ExprError as exc:
                        out.append((at, f"{written}: {exc}"))
    return out


def _check_follow(t: Template) -> list[tuple[list[str | int], str]]:
    """`answer.follow`: earlier number parts whose quantity this part's expr names."""
    from questions.expr import ExprError, compile_expr
    from questions.text import NAMES

    out: list[tuple[list[str | int], str]] = []
    parts = t.all_parts()
    for pi, part in enumerate(parts):
        if not kind_of(part.answer_kind).amount:
            continue  # only an amount has answer.follow (the schema refuses it elsewhere)
        a = kind_of(part.answer_kind).amount_of(part)
        if not a.follow:
            continue
        base: list[str | int] = ["parts", pi] if t.parts else []
        loc = [*base, "answer", "follow"]
        if not t.parts:
            out.append((loc, "follow-through carries a scenario's earlier answers into a "
                        "later part; a single-part template has none"))
            continue
        if a.expr is None:
            out.append((loc, "follow-through needs a number answer given by answer.expr "
                        "that names the earlier parts' quantities"))
            continue
        try:
            names = compile_expr(a.expr, NAMES | frozenset(t.params)).names
        except ExprError:
            continue  # reported on answer.expr
        for k in a.follow:
            if not 1 <= k <= pi:
                out.append((loc, f"part {k} is not an earlier part (this is part {pi + 1})"))
                continue
            earlier = parts[k - 1]
            kind = kind_of(earlier.answer_kind)
            q = kind.amount_of(earlier).quantity if kind.amount else None
            if q is None:
                out.append((loc, f"part {k}'s answer is not a solver quantity, so it cannot "
                            "carry forward: give it answer.quantity"))
            elif q not in names:
                out.append((loc, f"answer.expr does not name {q} (part {k}'s answer), so "
                            f"part {k} cannot carry forward: write the expression over {q}"))
            elif any(a.set.get(key) != v for key, v in earlier.answer.set.items()):
                out.append((loc, f"part {k}'s answer.set changes keys this part does not, "
                            f"so its answer is not this part's {q}"))
    return out


def _text_fields(t: Template) -> list[tuple[list[str | int], str]]:
    """Every text field a learner reads, with its field path."""
    out: list[tuple[list[str | int], str]] = [(["intro"], t.intro)]
    for pi, part in enumerate(t.all_parts()):
        base: list[str | int] = ["parts", pi] if t.parts else []
        out.append((base + ["prompt"], part.prompt))
        out += [(base + ["choices", i], c) for i, c in enumerate(part.choices)]
        out += [(base + ["hints", i, "text"], h.text) for i, h in enumerate(part.hints)]
        out += [(base + ["mistakes", i, "feedback"], m.feedback)
                for i, m in enumerate(part.mistakes)]
        out += [(base + loc, text) for loc, text in kind_of(part.answer_kind).texts(part)]
    return [(loc, text) for loc, text in out if text]


def _check_placeholders(t: Template) -> list[tuple[list[str | int], str]]:
    """Unknown names, fields and format specs of `{placeholders}` in every text field."""
    from questions.text import MISTAKE_PLACEHOLDER, NAMES, placeholder_problems

    own = frozenset(t.params) | frozenset(t.fixed)
    names = NAMES | own
    texts = {n: n in ("model", "gpu") or any(isinstance(c, str) for c in spec.choices or [])
             for n, spec in t.params.items()}
    texts |= {n: isinstance(v, str) for n, v in t.fixed.items()}
    texts |= {"model": True, "gpu": True, MISTAKE_PLACEHOLDER: True}
    out: list[tuple[list[str | int], str]] = []
    for loc, text in _text_fields(t):
        # a mistake's feedback may quote the mistake's own figure as {mistake}
        here = names | {MISTAKE_PLACEHOLDER} if loc[-3:-2] == ["mistakes"] else names
        problems = placeholder_problems(text, here, texts, own) or _unit_twice(text, own)
        for written, reason in problems:
            # A choice is an item of one array: find the array, then the text in it.
            at = loc[:-1] + [_AT + written, loc[-1]] if loc[-2:-1] == ["choices"] \
                else loc + [_AT + written]
            out.append((at, reason))
    return out


def _unit_twice(text: str, own: frozenset[str],
                units: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """A placeholder that shows its own unit followed by a unit word: "{requests}
    requests" reads "185 requests requests", "{hbm_bytes} GB" "80 GB GB".

    Args:
        text: the text field.
        own: the template's drawn and fixed names (shown as drawn, without a unit).
        units: placeholder name -> base unit (default: the solver's keys and
            quantities); a spoken answer's figures for its model answer.
    """
    import string

    from solver.keys import KEYS
    from solver.light import QUANTITIES
    from solver.units import BASE_UNITS, UNITS, format_value

    out: list[tuple[str, str]] = []
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError:
        return []
    for n, (_, field_name, spec, conversion) in enumerate(parsed):
        if not field_name or spec or conversion or "." in field_name or field_name in own:
            continue
        if units is not None:
            unit = units.get(field_name)
        else:
            unit = KEYS[field_name].unit if field_name in KEYS else (
                QUANTITIES[field_name].unit if field_name in QUANTITIES else None)
        if unit not in BASE_UNITS or unit in ("1", "param"):
            continue
        after = parsed[n + 1][0] if n + 1 < len(parsed) else ""
        word = re.match(r"\s+([A-Za-z][\w/]*)", after)
        if word is None:
            continue
        said = word.group(1)
        shown = format_value(1234.0, unit).split()
        noun = shown[-1] if len(shown) > 1 else ""
        known = UNITS.get(said) or UNITS.get(said.lower())
        if said.lower() in (noun.lower(), noun.lower().rstrip("s")) or (
                known is not None and known[1] == unit):
            bare = "" if units is not None else \
                f" (or write {{{field_name}:,.0f}} for the bare number)"
            out.append(("{" + field_name + "}", f"{{{field_name}}} already shows its unit "
                        f"(\"{format_value(1234.0, unit)}\"), so \"{{{field_name}}} {said}\" "
                        f"says it twice: drop \"{said}\"{bare}"))
    return out



def _choices(v: Any) -> list[Any]:
    return list(v.choices or []) if hasattr(v, "choices") else [v]


def _check_part(part: Part, base: list[str | int], check_keys: Any, suggest: Any,
                quantities: Any, names: frozenset[str], own: frozenset[str] = frozenset()
                ) -> list[tuple[list[str | int], str]]:
    from questions.expr import ExprError, compile_expr
    from solver.units import BASE_UNITS

    out: list[tuple[list[str | int], str]] = []
    a = part.answer
    kind = kind_of(part.answer_kind)
    n = kind.amount_of(part) if kind.amount else None  # an amount's own fields
    if n is not None and n.quantity and n.quantity not in quantities:
        out.append((base + ["answer", "quantity"], f"unknown quantity {n.quantity!r}"
                    f"{suggest(n.quantity, quantities)}"))
    for i, name in enumerate(a.show):
        if name not in quantities:
            out.append((base + ["answer", "show", i], f"unknown quantity {name!r}"
                        f"{suggest(name, quantities)}"))
    if n is not None and n.unit and n.unit not in BASE_UNITS:
        from solver.units import UNITS

        known = UNITS.get(n.unit)
        fix = f" ({n.unit} reads as {known[1]}: write unit = \"{known[1]}\")" if known \
            else ""
        out.append((base + ["answer", "unit"], f"unknown unit {n.unit!r}; the base units are "
                    f"{', '.join(BASE_UNITS)}{fix}"))
    if n is not None and n.bare_unit is not None:
        from solver.units import UNITS

        want = n.unit or (quantities[n.quantity].unit if n.quantity in quantities else None)
        found = UNITS.get(n.bare_unit)
        fitting = [u for u, (_, b) in UNITS.items() if want is None or b == want]
        listed = ", ".join(fitting[:24]) + (" ..." if len(fitting) > 24 else "")
        if found is None:
            out.append((base + ["answer", "bare_unit"], f"unknown unit {n.bare_unit!r}; "
                        f"units of {want or 'the answer'}: {listed}"))
        elif want is not None and found[1] != want:
            out.append((base + ["answer", "bare_unit"], f"{n.bare_unit!r} is not a unit of "
                        f"{want} (it reads as {found[1]}); use one of {listed}"))
    check_keys(dict(a.set), base + ["answer", "set"])
    texts: list[tuple[list[str | int], str | None]] = [
        (base + loc, text) for loc, text, _ in kind.expressions(part)]
    seen_names: set[str] = set()
    for mi, m in enumerate(part.mistakes):
        if m.name in seen_names:
            out.append((base + ["mistakes", mi, "name"], f"{m.name!r} names two mistakes: "
                        "the grader, examples and history could only ever mean the first; "
                        "give each its own name"))
        seen_names.add(m.name)
    for mi, r in kind.rederived(part):  # the mistakes the solver derives
        texts.append((base + ["mistakes", mi, "expr"], r.expr))
        check_keys(dict(r.set), base + ["mistakes", mi, "set"])
    for ai, acc in enumerate(n.accept if n is not None else []):
        check_keys(dict(acc.set), base + ["answer", "accept", ai, "set"])
    compiled_ok = set()
    for loc, text in texts:
        if text:
            try:
                compile_expr(text, names, own)
                compiled_ok.add(text)
            except ExprError as exc:
                out.append((loc, str(exc)))
    if kind.amount and not any(loc[-1] == "unit" for loc, _ in out):
        out += _check_dimensions(part, base, compiled_ok)
    out += kind.check_loaded(part, base)
    return out


def _amount_exprs(part: Part, base: list[str | int]) -> tuple[
        dict[str, str], str, Any, list[tuple[list[str | int], str | None, str]]] | None:
    """What checking a number answer's dimensions reads: the solver's units, the
    answer's unit and its dimension, and its expressions (the answer's and each
    mistake's, with what to call each); None: a unit without a dimension."""
    from questions.dimensions import dim_of_unit

    unit = _answer_unit(part)
    try:
        want = dim_of_unit(unit)
    except ValueError:
        return None
    kind = kind_of(part.answer_kind)
    return _solver_units(), unit, want, [
        (base + ["answer", "expr"], kind.amount_of(part).expr, "answer.expr")] + [
        (base + ["mistakes", i, "expr"], m.expr, f"mistake {m.name!r}")
        for i, m in kind.rederived(part)]


def _check_dimensions(part: Part, base: list[str | int],
                      compiled: set[str]) -> list[tuple[list[str | int], str]]:
    """The dimension of a number answer's expr, and of each mistake's, against its unit."""
    from questions.dimensions import DimensionError, dim_of_unit, expr_dim, show_dim
    from solver.light import QUANTITIES

    a = kind_of(part.answer_kind).amount_of(part)
    found = _amount_exprs(part, base)
    if found is None:
        return []
    units, unit, want, exprs = found
    out: list[tuple[list[str | int], str]] = []
    if a.quantity in QUANTITIES and a.unit is not None:
        got = dim_of_unit(QUANTITIES[str(a.quantity)].unit)
        if got != want:
            out.append((base + ["answer", "unit"], f"{a.quantity} is in {show_dim(got)}, "
                        f"not {unit}: drop unit or set unit = \"{show_dim(got)}\""))
    for loc, text, what in exprs:
        if not text or text not in compiled:
            continue
        try:
            got_dim = expr_dim(text, units)
        except DimensionError as exc:
            out.append((loc, f"{text!r} {exc}: its terms must have one dimension"))
            continue
        if got_dim is not None and got_dim != want:
            fix = (f"set unit = \"{show_dim(got_dim)}\"" if what == "answer.expr"
                   else "it must give the answer's unit")
            shown = unit if unit == show_dim(want) else f"{unit} ({show_dim(want)})"
            out.append((loc, f"{text!r} is in {show_dim(got_dim)} but the answer's unit is "
                        f"{shown}; {fix}"))
    return out


# ---------------------------------------------------------------- warnings


def template_warnings(t: Template) -> list[tuple[list[str | int], str]]:
    """What ``validate`` and ``test`` print as warnings (a template that loads may still
    show learners something other than what its key uses): a number in an expression
    whose unit could not be checked, and a solver key a text quotes that the template
    neither draws nor fixes. Never raises."""
    out: list[tuple[list[str | int], str]] = []
    for pi, part in enumerate(t.all_parts()):
        base: list[str | int] = ["parts", pi] if t.parts else []
        if kind_of(part.answer_kind).amount:
            out += _unit_warnings(part, base)
    out += _default_key_warnings(t)
    out += _set_key_warnings(t)
    return out


def _set_key_warnings(t: Template) -> list[tuple[list[str | int], str]]:
    """A part's text quoting a drawn or fixed key that the part's `answer.set` changes:
    the text shows the drawn value, the key uses the set one."""
    from questions.text import _placeholders

    parts = t.all_parts()
    out: list[tuple[list[str | int], str]] = []
    for loc, text in _text_fields(t):
        if loc[0] == "intro":  # shared by every part: a part may well change a key
            continue
        part = parts[int(loc[1]) if t.parts else 0]
        for name in sorted(_placeholders(text)):
            if name in part.answer.set and (name in t.params or name in t.fixed):
                shown = "drawn" if name in t.params else "fixed"
                out.append((loc + [_AT + "{" + name], f"{{{name}}} shows the {shown} value, "
                            f"but this part's answer.set makes {name} = "
                            f"{part.answer.set[name]!r} for the key: the text and the key "
                            "disagree; quote the value the key uses, or say in words that "
                            "it changes"))
    return out


def _unit_warnings(part: Part, base: list[str | int]) -> list[tuple[list[str | int], str]]:
    """Expressions whose numbers keep their unit from being checked: read with plain
    numbers, one that does not fit the answer's unit is worth a look (a number must
    carry the difference, as the 2 FLOP per parameter of ``2 * params`` does)."""
    from questions.dimensions import (
        DimensionError,
        expr_dim,
        has_number,
        per,
        show_dim,
    )

    found = _amount_exprs(part, base)
    if found is None:
        return []
    units, unit, want, exprs = found
    out: list[tuple[list[str | int], str]] = []
    for loc, text, _ in exprs:
        try:
            if not text or not has_number(text):
                continue
            strict = expr_dim(text, units)
        except (SyntaxError, ValueError):  # reported as an error
            continue
        try:
            plain = expr_dim(text, units, plain_numbers=True)
        except DimensionError as exc:
            out.append((loc, f"unit not checked: read with plain numbers, {text!r} "
                        f"{exc}; it holds only if a number in it carries the difference "
                        "(as 2 bytes per parameter does): if none does, fix the expression"))
            continue
        if plain is None or plain == want or strict is not None:
            continue
        out.append((loc, f"unit not checked: read with plain numbers, {text!r} is in "
                    f"{show_dim(plain)}, not {unit}; it fits only if one of its numbers "
                    f"carries {show_dim(per(want, plain))} (as 2 bytes or 2 FLOP per "
                    "parameter, or 3600 s per hour, do): if none does, fix the expression"))
    return out


def _default_key_warnings(t: Template) -> list[tuple[list[str | int], str]]:
    """A solver key quoted in a text that the template neither draws nor fixes (nor a
    drawn preset sets): every variant shows the key's default, which the answer may not
    use (``{micro_batch}`` shows 1 while the key uses the drawn ``microbatches``)."""
    from questions.errors import TemplateError
    from questions.params import _split, draw_params
    from questions.text import _placeholders, describe, suggest_name
    from solver.errors import SolverError
    from solver.inputs import resolve_inputs
    from solver.keys import KEYS

    try:
        params = draw_params(t, 0)[0]
    except (TemplateError, SolverError, ArithmeticError, ValueError):
        return []  # reported by the self-test
    own = (set(t.params) | set(t.fixed)) - {"model", "gpu"}
    parts = t.all_parts()
    try:
        used = _answer_leaves(t, params)
    except (SolverError, ArithmeticError, ValueError, LookupError):
        return []
    out: list[tuple[list[str | int], str]] = []
    spoken: list[tuple[list[str | int], str]] = []
    for pi, p in enumerate(parts):
        at: list[str | int] = ["parts", pi] if t.parts else []
        spoken += [(at + loc, text) for loc, text in kind_of(p.answer_kind).key_texts(p)
                   if text]
    for loc, text in _text_fields(t) + spoken:
        pi = int(loc[1]) if t.parts and loc[0] == "parts" else 0
        answer_set = parts[pi].answer.set if loc[0] != "intro" else {}
        quoted = [n for n in sorted(_placeholders(text)) if n in KEYS and n not in own
                  and n not in answer_set and n not in used]
        if not quoted:
            continue
        try:
            inputs = resolve_inputs(*_split(params, t.fixed, answer_set))
        except (SolverError, ArithmeticError, ValueError):
            continue
        for name in quoted:
            if inputs.origin.get(name) != "default":
                continue
            close = suggest_name(name, own, own)
            hint = f" (did you mean {{{close}}}, which it draws?)" if close else ""
            shown = describe(name, inputs.values[name])
            out.append((loc + [_AT + "{" + name], f"{{{name}}} is a solver key this "
                        f"template neither draws nor fixes: every variant shows its "
                        f"default ({shown}), which the answer may not use; draw it under "
                        f"[params.{name}] or set it in [fixed]{hint}"))
    return out


def _answer_leaves(t: Template, params: Mapping[str, Any]) -> set[str]:
    """Every solver key some part's answer is worked out from (its quantity's or its
    expression's inputs, the quantities it shows, its choice conditions, its spoken
    figures), for the parameters of one draw: a key quoted at its default that an
    answer reads shows what the answer uses."""
    from questions.expr import ExprError, compile_expr
    from questions.params import _split
    from questions.text import NAMES
    from solver.inputs import ctx_of, resolve_inputs
    from solver.keys import KEYS
    from solver.light import QUANTITIES, plan

    out: set[str] = set()
    for part in t.all_parts():
        a = part.answer
        if kind_of(part.answer_kind).searches_layout:  # the search reads every key
            return set(KEYS)
        kind = kind_of(part.answer_kind)
        names = {*kind.quantities(part), *a.show}
        for _, text, _ in kind.expressions(part):
            if text:
                try:
                    names |= compile_expr(text, NAMES | frozenset(t.params)).names
                except ExprError:
                    continue
        inputs = resolve_inputs(*_split(params, t.fixed, a.set))
        ctx = ctx_of(inputs.values)
        for name in names:
            if name in QUANTITIES:  # (a plan's leaves are its derivation's: the shipped
                # plans need no sympy, which derived each (quantity, conventions) anew)
                out |= set(plan(name, ctx, frozenset()).leaves)
            elif name:
                out.add(name)
    return out
