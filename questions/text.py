"""A template's texts for one draw: placeholders checked and filled, values described,
choice and table keys written out for people.

Below the drawing (:mod:`questions.variants`): the answer kinds and the worked
derivation use these without drawing anything.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Mapping, Sequence
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

from questions.errors import TemplateError
from solver.keys import KEYS
from solver.presets import GPUS, MODELS
from solver.units import format_both, format_value

if TYPE_CHECKING:
    from questions.fields import PartFields as Part
    from questions.fields import Scalar
    from questions.model import Key, KnownMistake, PartVariant
    from solver.engine import Inputs

if TYPE_CHECKING:
    NAMES: frozenset[str]
    """Every name a template expression may read (keys and quantities)."""


def __getattr__(name: str) -> frozenset[str]:
    # NAMES is built on first use: the catalogue of quantities imports sympy, which a
    # variant read back from the cache (questions.stored) never needs.
    if name == "NAMES":
        return _names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@cache
def _names() -> frozenset[str]:
    """Every name a template expression may read (keys and quantities)."""
    from solver.light import QUANTITIES

    return frozenset(KEYS) | frozenset(QUANTITIES)


EXAMPLE_PLACEHOLDER = re.compile(r"\{(key|part:[^{}]*|mistake:[^{}]*|expr:[^{}]*)\}")
"""What an example's answer (and its earlier answers) may hold, so that it stays right
when the parameters change: ``{key}`` (this part's key), ``{part:N}`` (part N's key),
``{mistake:NAME}`` (what a learner who makes that known mistake types) and
``{expr:EXPR}`` (an expression over the variant's keys and quantities, in the key's
unit)."""

MISTAKE_PLACEHOLDER = "mistake"
"""The placeholder a known mistake's feedback may use for the mistake's own figure
("{mistake} is the state without the master copy" shows "1.13 TB ...")."""


def mistake_figure(part: Part, key: Key, m: KnownMistake) -> str:
    """A known mistake's own figure, as its feedback's ``{mistake}`` shows it: its value
    in the key's unit, its formula, or the options it picks (by their text: the letters
    are shuffled per variant), as its kind says (``QuestionKind.mistake_figure``)."""
    from questions.kinds import kind_of

    return kind_of(part.answer_kind).mistake_figure(part, key, m)


def table_display(rows: list[str], cells: Mapping[str, tuple[str, ...]]) -> str:
    """The canonical typed form of a table answer: `dp: -; tp: w g o a`."""
    return "; ".join(f"{r}: {' '.join(cells.get(r, ())) or '-'}" for r in rows)


def listed(items: Sequence[str]) -> list[str]:
    """Items to join with "; ": an option written as a sentence ends with its full stop,
    and inside the list the ";" ends it ("x; y.", never "x.; y."); the last item keeps
    its stop, an ellipsis stays.

    >>> "; ".join(listed(["a) Reduce all.", "c) Use a ring...", "d) Split."]))
    'a) Reduce all; c) Use a ring...; d) Split.'
    """
    return [t[:-1] if t.endswith(".") and not t.endswith("..") else t
            for t in items[:-1]] + list(items[-1:])


def picks_text(choices: Sequence[str], labels: Iterable[str]) -> str:
    """Choice labels each with its option's text, for people: ``a) ...; c) ...``.

    A letter alone means nothing once the options are out of sight (a feedback screen,
    a report, a list of mistakes): wherever a choice key is shown, it is this.
    """
    return "; ".join(listed([f"{c}) {choices[ord(c) - ord('a')]}" for c in labels]))


# ---------------------------------------------------------------- prompts


@lru_cache(maxsize=4096)
def _placeholders(text: str) -> frozenset[str]:
    """The names a text's `{placeholders}` read (once per text: every draw asks)."""
    return frozenset(name.partition(".")[0] for _, name, _, _ in
                     string.Formatter().parse(text) if name)


def part_texts(part: Part) -> list[str]:
    """Every text field of a part that may hold `{placeholders}`."""
    from questions.kinds import kind_of

    answer = [text for _, text in kind_of(part.answer_kind).texts(part)]
    return ([part.prompt, *answer, *part.choices, *(h.text for h in part.hints),
             *(m.feedback for m in part.mistakes)])


def _unit(name: str) -> str:
    """The base unit of a quantity ("1" for a name that is none)."""
    from solver.light import QUANTITIES

    return QUANTITIES[name].unit if name in QUANTITIES else "1"


def describe(name: str, value: Any) -> str:
    """A parameter's value as a prompt shows it: "Llama 3 70B", "8,192", "80 GB"."""
    if name == "model" and value in MODELS:
        return MODELS[str(value)].title
    if name == "gpu" and value in GPUS:
        return GPUS[str(value)].title
    if isinstance(value, bool | str):
        return str(value)
    unit = KEYS[name].unit if name in KEYS else _unit(name)
    v = float(value)
    if unit in ("1", "param") and name not in ("mfu",):
        if v == int(v) and abs(v) < 1e6:
            return f"{int(v):,}"
        if unit == "param" or abs(v) >= 1e6:
            return format_value(v, "param")
    if name == "mfu":
        return f"{v * 100:.0f}%"
    return format_value(v, unit)


def reflow(text: str) -> str:
    """Join a TOML block's hard-wrapped lines into paragraphs (blank lines, list items
    and indented lines are kept), so the UI can wrap prompts to any width."""
    paragraphs = []
    for block in re.split(r"\n\s*\n", text.strip()):
        lines: list[str] = []
        for line in block.splitlines():
            keep = re.match(r"^\s*([-*]|\d+[.)]|[a-z]\))\s", line) or line.startswith("  ")
            if lines and not keep:
                lines[-1] = f"{lines[-1].rstrip()} {line.strip()}"
            else:
                lines.append(line.rstrip())
        paragraphs.append("\n".join(lines))
    return "\n\n".join(paragraphs)


PRESET_ATTRIBUTES = ("short", "title", "name")
"""What `{model.X}` and `{gpu.X}` may read: the short display name ("B200"), the full
title ("NVIDIA B200 (DGX B200)") and the preset name ("b200")."""

_VENDORS = ("NVIDIA ", "AMD Instinct ", "AMD ", "Intel ", "Google ")


def short_name(name: str, value: Any) -> str:
    """A preset's short display name: "B200" for NVIDIA B200 (DGX B200), the title of a
    model ("Llama 3 70B")."""
    if name == "gpu" and value in GPUS:
        title = GPUS[str(value)].title
        for vendor in _VENDORS:
            title = title.removeprefix(vendor)
        return title.split()[0]
    if name == "model" and value in MODELS:
        return MODELS[str(value)].title
    return str(value)


MAX_SPEC_NUMBER = 100
"""The largest width or precision a placeholder's format spec may ask for: `{seq:>999999999}`
once took 9 s of CPU (and a gigabyte) per draw, 21 s per validation."""


def spec_too_large(spec: str) -> bool:
    """Whether a format spec asks for a width or precision over :data:`MAX_SPEC_NUMBER`
    (any run of digits in it: a fill character is one character, so a digit run is a
    width, a precision or part of one).

    >>> spec_too_large(",.0f"), spec_too_large(">999999999"), spec_too_large(".500f")
    (False, True, True)
    """
    return any(len(run) > 3 or int(run) > MAX_SPEC_NUMBER
               for run in re.findall(r"[0-9]+", spec))


def suggest_name(name: str, names: Iterable[str], preferred: Iterable[str] = ()) -> str:
    """The closest name to a misspelt one, the template's own (drawn, fixed) names
    first: ``{microbatch}`` in a template that draws ``microbatches`` means that, not
    the solver key ``micro_batch`` it would show at its default. "" when none is close.

    >>> suggest_name("microbatch", {"micro_batch", "microbatches"}, {"microbatches"})
    'microbatches'
    """
    import difflib

    for pool in (sorted(preferred), sorted(set(names) - set(preferred))):
        close = difflib.get_close_matches(name, pool, n=1, cutoff=0.6)
        if close:
            return close[0]
    return ""


def placeholder_problems(text: str, names: frozenset[str] | set[str],
                         texts: Mapping[str, bool],
                         preferred: Iterable[str] = ()) -> list[tuple[str, str]]:
    """What is wrong with the `{placeholders}` of one text field, without drawing a variant.

    Args:
        text: the field's text.
        names: every name a placeholder may read (parameters, keys, quantities).
        texts: parameter name -> whether its values are text (model, gpu, text choices).
        preferred: the template's own names (drawn and fixed), suggested first.

    Returns:
        (the placeholder as written, reason) for each bad one.
    """
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as exc:
        return [("{", f"unbalanced braces ({exc}); write {{{{ and }}}} for literal braces")]
    out: list[tuple[str, str]] = []
    for _, field_name, spec, conversion in parsed:
        if field_name is None:
            continue
        spec = spec or ""
        written = "{" + field_name + (f"!{conversion}" if conversion else "") + (
            f":{spec}" if spec else "") + "}"
        name, dot, attr = field_name.partition(".")
        if not name:
            out.append((written, "a placeholder needs a name, e.g. {model}"))
            continue
        if name not in names:
            close = suggest_name(name, names, preferred)
            hint = f" (did you mean {{{close}}}?)" if close else ""
            out.append((written, f"{{{name}}} names no parameter, key or quantity{hint}"))
            continue
        if conversion:
            out.append((written, f"!{conversion} is not allowed; use {{{name}}} or "
                        f"{{{name}:raw}}"))
            continue
        if dot and (name not in ("model", "gpu") or attr not in PRESET_ATTRIBUTES):
            what = (f"{name} has .{', .'.join(PRESET_ATTRIBUTES)}"
                    if name in ("model", "gpu") else "only model and gpu have fields")
            out.append((written, f"unknown field .{attr} ({what})"))
            continue
        is_text = texts.get(name, False) or bool(dot)
        if spec in ("", "raw"):
            continue
        if is_text:
            hint = f" (did you mean {{{name}.{spec}}}?)" if spec in PRESET_ATTRIBUTES else ""
            out.append((written, f"{{{name}}} is text: no format spec :{spec} applies{hint}"))
            continue
        if spec == "both":
            continue
        if spec_too_large(spec):
            out.append((written, f"format spec :{spec} asks for a width or precision over "
                        f"{MAX_SPEC_NUMBER}; a prompt's number needs far fewer"))
            continue
        try:
            format(1.0, spec)
        except ValueError:
            out.append((written, f"format spec :{spec} is not a number format; use :raw, "
                        ":both or a Python spec such as :.0% or :,.0f"))
    return out


def _format(text: str, env: Mapping[str, float], params: Mapping[str, Scalar],
            field: tuple[str | int, ...] = ("prompt",)) -> str:
    """Render a text field: each `{name}`, `{name:spec}` or `{model.short}` replaced."""
    out = []
    for literal, field_name, name, attr, spec in _text_plan(text):
        out.append(literal)
        if field_name is None:
            continue
        if name in params:
            value: Any = params[name]
        elif name in env:
            value = env[name]
        else:
            message = f"the prompt's {{{name}}} names no parameter, key or quantity"
            close = suggest_name(name, _names() | set(params), params)
            hint = f" (did you mean {{{close}}}?)" if close else ""
            raise TemplateError(message, field=field, reason=message + hint)
        if attr == "short":
            out.append(short_name(name, value))
        elif attr == "title":
            out.append(describe(name, value))
        elif attr == "name" or spec == "raw":
            out.append(str(value))
        elif spec == "both" and not isinstance(value, str):
            out.append(format_both(float(value), KEYS[name].unit if name in KEYS
                                   else _unit(name)))
        elif spec and not isinstance(value, str):
            if spec_too_large(spec):  # refused at validation; never build such a string
                raise TemplateError(f"format spec :{spec} is too wide", field=field)
            out.append(format(float(value), spec))
        elif name == "hbm_bytes" and field[-1] in ("prompt", "intro") \
                and not isinstance(value, str):  # where the question is read
            out.append(hbm_text(float(value)))
        else:
            out.append(describe(name, value))
    return "".join(out).strip()


@lru_cache(maxsize=4096)
def _text_plan(text: str) -> tuple[tuple[str, str | None, str, str, str], ...]:
    """A text field reflowed and split once (every draw renders the same texts): its
    literal runs and placeholders, as (literal, field name, name, attribute, spec)."""
    plan = []
    for literal, field_name, spec, _ in string.Formatter().parse(reflow(text)):
        name, _dot, attr = (field_name or "").partition(".")
        plan.append((literal, field_name, name, attr, spec or ""))
    return tuple(plan)


def hbm_text(value: float) -> str:
    """A GPU's memory as a prompt shows it, naming the convention: "80 GB (80 x 10^9
    bytes)".

    Vendors' "80 GB" is physically 80 GiB (85.9e9 bytes) on an H100; the presets take
    the marketed figure in decimal bytes (the rest is headroom for buffers and
    fragmentation), and a prompt says so wherever the number appears, so that nobody has
    to guess which reading the key used (issue 9).
    """
    return f"{format_value(value, 'B')} ({value / 1e9:g} x 10^9 bytes)"


# ---------------------------------------------------------------- explanations


def pv_env_value(pv: PartVariant, name: str) -> float:
    """The value of a key or quantity within a part's inputs."""
    if name not in pv.env:
        from solver.inputs import resolve_inputs

        model, gpu, over = pv.model, pv.gpu, pv.overrides
        pv.env.update(_env(resolve_inputs(model, gpu, over), {name}))
    return pv.env[name]


def _env(inputs: Inputs, names: frozenset[str] | set[str]) -> dict[str, float]:
    """Every numeric input, and the quantities among `names` (a part's env)."""
    from solver.light import QUANTITIES, evaluate

    # (a tuple, not bool | str: isinstance with a union is half as fast, and this
    # reads a hundred values per part drawn)
    env = {k: float(v) for k, v in inputs.values.items() if not isinstance(v, (bool, str))}
    wanted = [n for n in names if n in QUANTITIES and n not in env]
    if wanted:
        env.update(evaluate(wanted, inputs))
    return env


def _only(inputs: Inputs, names: frozenset[str] | set[str]) -> dict[str, float]:
    """What :func:`_env` gives for `names` alone: all an expression or a text with
    those names reads (a variant evaluates dozens; the inputs hold a hundred keys)."""
    from solver.light import QUANTITIES, evaluate

    values = inputs.values
    env = {k: float(v) for k in names if (v := values.get(k)) is not None
           and not isinstance(v, (bool, str))}
    wanted = [n for n in names if n in QUANTITIES and n not in env]
    if wanted:
        env.update(evaluate(wanted, inputs))
    return env
