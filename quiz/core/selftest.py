"""Self-test of templates: the properties every template must hold over many seeds.

Used by ``quiz templates test``, ``quiz templates validate`` and the test suite. For each
seed: the variant is deterministic; numeric keys are finite and positive; the key's
display grades correct; every known mistake stays outside the tolerance of the key and
grades as itself; every example grades as declared.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from questions.derivation import explain
from questions.errors import TemplateError
from questions.kinds import kind_of as question_kind
from questions.schema import Template
from questions.variants import (
    EXAMPLE_PLACEHOLDER,
    KnownMistake,
    PartVariant,
    Variant,
    draw_params,
    make_variant,
    variant_with,
)
from quiz.core.grading import grade, read_earlier, relative_error
from quiz.core.kinds import kind_of
from quiz.core.reading import Unreadable
from solver.units import format_value

if TYPE_CHECKING:
    import random
    import re
    from collections.abc import Callable, Sequence

    from questions.schema import Part


@dataclass(frozen=True)
class Failure:
    """One property that did not hold, and what it is about (as data, for placing it).

    Attributes:
        template: the template id.
        seed: the seed drawn.
        check: which property failed (``variant``, ``key``, ``key display``,
            ``mistake``, ``explanation``, ``deterministic``, ``examples[i]``).
        detail: the sentence, prefixed with ``part N:`` in a scenario.
        reason: the sentence alone.
        part: the part (0-based) it is about, if any.
        mistake: the known mistake (index in the part's ``mistakes``), if any.
        example: the example (index in ``examples``), if any.
        field: for a variant that cannot be drawn, the field the template's error
            names (empty when it names none).
    """

    template: str
    seed: int
    check: str
    detail: str
    reason: str = ""
    part: int | None = None
    mistake: int | None = None
    example: int | None = None
    field: tuple[str | int, ...] = ()

    def __str__(self) -> str:
        return f"{self.template}#{self.seed}: {self.check}: {self.detail}"


def check_part(t: Template, seed: int, pv: PartVariant) -> list[Failure]:
    """The per-part properties."""
    out: list[Failure] = []
    where = f"part {pv.index}: " if len(t.all_parts()) > 1 else ""

    def fail(check: str, detail: str, mistake: int | None = None) -> None:
        out.append(Failure(t.id, seed, check, where + detail, detail, pv.index - 1, mistake))

    key = pv.key
    problem = kind_of(pv.kind).check_key(pv)
    if problem:
        fail("key", problem)
        return out
    try:
        derivation = explain(pv)
        if not derivation.text().strip():
            fail("explanation", "empty")
        elif not derivation.steps and not derivation.intro:
            fail("explanation", "no worked step and no words: say why the key is right")
    except Exception as exc:  # any failure here is a template bug to report, not crash on
        fail("explanation", f"cannot be derived: {exc}")
    amount = question_kind(pv.kind).mistake_value
    values = [(j, m.name, v) for j, m in enumerate(pv.mistakes)
              if (v := amount(m)) is not None]
    for i, (j, n1, v1) in enumerate(values):
        for _, n2, v2 in values[i + 1:]:
            if relative_error(v1, v2) <= key.tolerance:
                fail("mistake", f"{n1!r} and {n2!r} give the same answer ({v1:.4g}); "
                     "the grader could only ever name the first", j)
    # The same collision check for every value a mistake could be confused with: an
    # accepted convention grades correct before any mistake is tried. (A spoken figure's
    # mistake is checked against its figure by the spoken kind's own self-check, at the
    # tolerance its grader uses.)
    for j, name, value in values:
        for acc in pv.accepted:
            if relative_error(value, acc.value) <= key.tolerance:
                fail("mistake", f"{name!r} gives {value:.4g}, within the tolerance of "
                     f"the accepted convention {acc.name!r} ({acc.value:.4g}), which grades "
                     "correct first: this mistake can never fire", j)
    g = grade(pv, key.display)
    if g.verdict != "correct":
        fail("key display", f"{key.display!r} grades {g.verdict}: {g.feedback}")
    kind = kind_of(pv.kind)
    for j, m in enumerate(pv.mistakes):
        typed = kind.mistake_answer(pv, m)
        if typed is None:
            continue
        clash = kind.mistake_clash(pv, m)
        if clash is not None:  # (e.g. a value within the key's tolerance: graded right)
            fail("mistake", clash, j)
            continue
        g = grade(pv, typed)
        want = kind.mistake_verdict(pv, m)
        if want is None:  # the grade only has to name it (a table scores its rows)
            if g.mistake != m.name:
                fail("mistake", f"{typed!r} should be recognized as {m.name!r}, got "
                     f"{g.mistake}", j)
        elif g.mistake != m.name or g.verdict != want:
            fail("mistake", f"{typed!r} should be {want} as {m.name!r}, got {g.verdict} "
                 f"({g.mistake})", j)
    return out


def _count(pv: PartVariant) -> str:
    """How the part's key counts ("": not a count; see ``QuestionKind.count``)."""
    return question_kind(pv.kind).count(pv.spec)


def mistake_answer(pv: PartVariant, m: KnownMistake) -> str | None:
    """What a learner who makes known mistake `m` types for this part (None: a mistake
    with nothing to type, such as a spoken answer's wrong figure)."""
    return kind_of(pv.kind).mistake_answer(pv, m)


FULL_REDRAWS = 3
"""Seeds the self-test draws twice, comparing everything a learner sees and is graded
against (at the other seeds the variant is drawn once). A second whole draw of every
seed was a quarter of the self-test's time; a second draw of every seed's parameters
(after the first, a lookup of what each try came to, :class:`Body`) could only find a
draw that is not a function of the seed's generator and the parameters' specs, which
is the drawing code's, the same for every seed: ~12% of a copy's draws in a big bank."""


def seen(v: Variant) -> tuple[object, ...]:
    """What a learner sees of a variant and is graded against: the parameters, the
    prompts and options in their order, the keys and the known mistakes (each whole, as
    its kind's record holds it: its value, formula, picks or cells)."""
    return (v.params, v.intro, [(p.prompt, p.spec.choices, p.key.display, repr(p.key.value),
                                 [repr(m) for m in p.mistakes]) for p in v.parts])


@dataclass
class Body:
    """What the self-test found of one template body, for its seeds that draw the same
    parameters and for copies of it that differ only in id (:class:`Bodies`).

    A variant is its template's body and parameters worked through, its options shown
    in an order drawn per id and seed (:func:`arrangement`): a seed that draws
    parameters (and an order) drawn before, by this template or a copy, has that draw's
    variant, so it gets that draw's failures without checking them again. Copies are
    common in a big bank (a pack that varies one template's id; the 6,500-template
    bench bank: 131 bodies again and again), and the seeds of one body draw few
    distinct parameters (two thirds of the bundled bank's seeds over 100 repeat a draw;
    over 50 copies at 20 seeds, 11,229 of 131,000 draws are distinct).

    Attributes:
        draws: each parameter draw tried, kept or rejected (:func:`draw_params`'s memo).
        seeds: parameters drawn (and the options' order, where it is drawn) -> the
            per-seed checks' failures and the (part, quantity) steps of its walk
            (None: no walk).
        examples: (the same key, example index) -> its failure, or None.
        warnings: parameters drawn at seed 0 -> the body's own warnings
            (:func:`questions.checks.template_warnings`, which read that draw).
    """

    draws: dict[str, Any] = field(default_factory=dict)
    seeds: dict[str, tuple[list[Failure], frozenset[tuple[int, str]] | None]] = field(
        default_factory=dict)
    examples: dict[tuple[str, int], Failure | None] = field(default_factory=dict)
    warnings: dict[str, list[tuple[list[str | int], str]]] = field(default_factory=dict)


class Bodies:
    """The :class:`Body` of each template body met in one self-test run (one
    ``quiz templates test``): templates equal but for their id share one."""

    def __init__(self) -> None:
        self._found: dict[str, Body] = {}

    def of(self, t: Template) -> Body:
        """The body of `t`, shared with every copy of it met before (a body that names
        its own id anywhere else, in a prompt or a message, is its own)."""
        key = t.model_dump_json(exclude={"id"})
        if t.id in key:
            return Body()
        return self._found.setdefault(key, Body())


def names_id(t: Template, failures: Sequence[Failure]) -> bool:
    """Whether a failure's words name the template's id (then they are not shared with a
    copy, whose id is another)."""
    return any(t.id in f.detail or t.id in f.reason for f in failures)


def shuffles(t: Template) -> bool:
    """Whether a variant's options are arranged per id and seed (then two seeds that draw
    the same parameters may show different variants: :func:`arrangement` tells)."""
    return any(question_kind(p.answer_kind).arrange is not None for p in t.all_parts())


def arrangement(v: Variant) -> str:
    """The order a variant shows each part's options in (each part's labels: the
    template's letter -> the letter shown; a kind that arranges options records them
    there, :attr:`PartVariant.labels`), as text for a key."""
    return "|" + repr([sorted(p.labels.items()) for p in v.parts])


Arrangers = list[tuple["Part", "Callable[[Part, random.Random], dict[str, str]]"] | None]
"""Each part of a template with the way its kind tells its labels (None: a part shown
as written), for :func:`arranged`."""


def arrangers(t: Template) -> Arrangers | None:
    """Each part of `t` with how its options' order is told (:attr:`QuestionKind.arranged`);
    None: a part's kind arranges it in a way only the variant tells (then the variant is
    drawn to see its order)."""
    out: Arrangers = []
    for p in t.all_parts():
        kind = question_kind(p.answer_kind)
        if kind.arrange is None:
            out.append(None)
        elif kind.arranged is not None:
            out.append((p, kind.arranged))
        else:
            return None
    return out


def arranged(tid: str, seed: int, parts: Arrangers) -> str:
    """:func:`arrangement` of the variant ``tid#seed`` without drawing it (`parts`: its
    template's :func:`arrangers`): a seed that draws parameters drawn before is then
    known without working out its keys, prompts and options (a whole variant drawn
    per seed was two thirds of what a copy of a body with shuffled options cost)."""
    from questions.variants import arranging

    return "|" + repr([[] if a is None else sorted(a[1](a[0], arranging(tid, seed, i)).items())
                       for i, a in enumerate(parts, 1)])


Tries = list[tuple[dict[str, Any], "str | None", "int | None"]]
"""Every try of a seed's draw: (parameters, why rejected or None, the rejecting
constraint)."""


def _noted(into: Tries) -> Callable[[dict[str, Any], str | None, int | None], None]:
    """A :func:`draw_params` ``observe`` that adds each try to `into`."""
    return lambda params, why, at: into.append((dict(params), why, at))


@dataclass
class Drawn:
    """What :func:`check_template` drew of one template, for the checks after it that
    draw the same seeds (the examples, the warnings and the draw coverage of
    :func:`quiz.core.authoring.located_warnings`), which then do not draw them again.

    Attributes:
        keys: seed -> the draw's key in a :class:`Body` (its parameters, and its
            options' order where that is drawn).
        params: seed -> the parameters' key (without the order).
        tries: seed -> every try of its draw (:data:`Tries`), as
            :func:`questions.params.draw_coverage` records them.
    """

    keys: dict[int, str] = field(default_factory=dict)
    params: dict[int, str] = field(default_factory=dict)
    tries: dict[int, Tries] = field(default_factory=dict)


def check_template(t: Template, seeds: int = 20, body: Body | None = None,
                   drew: Drawn | None = None) -> list[Failure]:
    """Every property of `t` over seeds 0..seeds-1, plus its examples.

    A seed that draws the parameters of an earlier seed, or of a copy of `t` checked
    with the same `body` (see :class:`Body`; None: this template's own), has that
    draw's variant, so it gets its failures without checking them again (where options
    are shuffled, the same parameters in the same order). Each distinct draw is drawn
    twice at seeds under :data:`FULL_REDRAWS`, its variant whole twice there too.
    `drew`: filled with what was drawn (:class:`Drawn`).
    """
    body = Body() if body is None else body
    record = Drawn() if drew is None else drew
    shuffled = shuffles(t)
    counts = arrangers(t) if shuffled else None
    out: list[Failure] = []
    variants: dict[int, Variant] = {}
    for seed in range(seeds):
        tries: Tries = []
        try:
            params = draw_params(t, seed, _noted(tries), memo=body.draws)[0]
            record.tries[seed] = tries
            record.params[seed] = repr(list(params.items()))  # 1, 1.0 and True are equal
            drawn = record.params[seed]
            v1: Variant | None
            if shuffled and counts is None:  # the variant is its parameters and its
                v1 = make_variant(t, seed)     # options' order, seen on the variant
                drawn += arrangement(v1)
                met = drawn in body.seeds
            else:
                order = "" if counts is None else arranged(t.id, seed, counts)
                drawn += order
                met = drawn in body.seeds
                # (past the FULL_REDRAWS seeds, from the parameters just drawn: not
                # drawn a second time, as for a seed that repeats a draw)
                v1 = None if met else make_variant(t, seed) if seed < FULL_REDRAWS \
                    else variant_with(t, seed, params)
                if v1 is not None and order and arrangement(v1) != order:
                    raise AssertionError(f"the options' order of {t.id}#{seed} is not "
                                         f"what selftest.arranged says: {order}")
            record.keys[seed] = drawn
            v2 = make_variant(t, seed) if not met and seed < FULL_REDRAWS else None
            again = v1.params if v1 is not None else params if seed >= FULL_REDRAWS \
                else draw_params(t, seed, memo=body.draws)[0]
        except TemplateError as exc:
            out.append(Failure(t.id, seed, "variant", str(exc), exc.reason, field=exc.field))
            return out
        if params != again:
            out.append(Failure(t.id, seed, "deterministic", "two draws differ"))
        elif v1 is not None and v2 is not None and seen(v1) != seen(v2):
            what = "keys" if [p.prompt for p in v1.parts] == [p.prompt for p in v2.parts] \
                else "draws"
            out.append(Failure(t.id, seed, "deterministic", f"two {what} differ"))
        if v1 is not None:
            variants[seed] = v1
        if met:
            kept, known = body.seeds[drawn]
            found = [replace(f, template=t.id, seed=seed) for f in kept]
        else:
            assert v1 is not None
            found = []
            for pv in v1.parts:
                found += check_part(t, seed, pv)
                found += check_follow(t, seed, pv)
            steps, known = _walk_checks(t, seed, v1)
            found += steps
            if not names_id(t, found):
                body.seeds[drawn] = (found, known)
        out += found
        if seed == 0 and known is not None:  # the template's [[steps]] names, once
            out += _step_names(t, known)
    out += check_followups(t, seeds)
    out += check_examples(t, seeds, body=body, drawn=variants, keys=record.keys)
    return out


FOLLOWUP_SEEDS = 5
"""Seeds the self-test draws a template's own `[[followups]]` at (each may run the
layout engine's search twice)."""


def check_followups(t: Template, seeds: int = FOLLOWUP_SEEDS) -> list[Failure]:
    """Each of the template's own follow-ups draws at some seed, and where it draws, its
    key grades correct."""
    from questions.followups import NotApplicable, draw

    out: list[Failure] = []
    applied = [0] * len(t.followups)
    for seed in range(min(seeds, FOLLOWUP_SEEDS) if t.followups else 0):
        v = make_variant(t, seed)
        for i in range(len(t.followups)):
            try:
                fu = draw(v, i + 1)
            except NotApplicable:
                continue
            applied[i] += 1
            g = grade(fu.pv, fu.pv.key.display)
            if g.verdict != "correct":
                reason = f"its key {fu.pv.key.display!r} grades {g.verdict}"
                out.append(Failure(t.id, seed, "followups", f"followups[{i}]: {reason}",
                                   reason, field=("followups", i)))
    for i, n in enumerate(applied):
        if not n and seeds:
            reason = (f"applies to none of seeds 0-{min(seeds, FOLLOWUP_SEEDS) - 1} (see "
                      f"quiz ask {t.id}#0 --followup {i + 1})")
            out.append(Failure(t.id, 0, "followups", f"followups[{i}]: {reason}", reason,
                               field=("followups", i, "change")))
    return out


WRONG_EARLIER = 1.5
"""The self-test's wrong earlier answer: each carried part's key times this."""


def check_follow(t: Template, seed: int, pv: PartVariant) -> list[Failure]:
    """A part that follows through grades the answer derived from wrong earlier answers
    (each carried key times 1.5) with its follow-through credit."""
    follow = pv.follow
    key = pv.key
    if follow is None or key.value is None or key.unit is None:
        return []
    earlier = {c.part: c.key * WRONG_EARLIER for c in follow.carried}
    carried = follow.derive({c.name: c.key * WRONG_EARLIER for c in follow.carried})
    if relative_error(carried, key.value) <= key.tolerance:
        return []  # this draw's answer hardly depends on them
    typed = str(round(carried)) if _count(pv) else \
        format_value(carried, key.unit, digits=4)
    g = grade(pv, typed, earlier=earlier)
    want = "correct" if follow.credit >= 1 else "partial"
    if g.verdict == want and g.score == follow.credit:
        return []
    parts = ", ".join(str(c.part) for c in follow.carried)
    detail = (f"with part {parts} answered 1.5x its key, {typed!r} should be {want} "
              f"(carried forward), got {g.verdict} ({g.mistake})")
    where = f"part {pv.index}: "
    return [Failure(t.id, seed, "follow-through", where + detail, detail, pv.index - 1)]


def check_steps(t: Template, seed: int, v: Variant) -> list[Failure]:
    """Learn mode's walk-through: every part has a step to ask, every step's key grades
    correct, and (at seed 0) every `[[steps]]` entry names a step of its part."""
    out, known = _walk_checks(t, seed, v)
    if seed == 0 and known is not None:
        out += _step_names(t, known)
    return out


def _walk_checks(t: Template, seed: int,
                 v: Variant) -> tuple[list[Failure], frozenset[tuple[int, str]] | None]:
    """The walk's checks of one variant, and the (part, quantity) of its steps (None:
    the walk cannot be built)."""
    from questions.steps import walk

    out: list[Failure] = []
    try:
        w = walk(v)
    except Exception as exc:  # a template bug to report, not crash on
        return [Failure(t.id, seed, "steps", f"the walk-through cannot be built: {exc}")], \
            None
    for pv in v.parts:
        if not w.part_steps(pv.index):
            where = f"part {pv.index}: " if len(v.parts) > 1 else ""
            out.append(Failure(t.id, seed, "steps", f"{where}no step to ask: add "
                               "answer.show quantities", part=pv.index - 1))
    for s in w.steps:
        g = grade(s.pv, s.key.display)
        if g.verdict != "correct":
            out.append(Failure(t.id, seed, "steps", f"step {s.index} ({s.quantity}): its "
                               f"key {s.key.display!r} grades {g.verdict}"))
    known = frozenset({(s.part, s.quantity) for s in w.steps} | {
        (s.part, g.quantity) for s in w.steps for g in s.given})
    return out, known


def _step_names(t: Template, known: frozenset[tuple[int, str]]) -> list[Failure]:
    """Every `[[steps]]` entry names a step of its part (of the walk at seed 0)."""
    out: list[Failure] = []
    for i, spec in enumerate(t.steps):
        if (spec.part, spec.quantity) not in known:
            detail = (f"steps[{i}]: {spec.quantity!r} is not a step of part "
                      f"{spec.part} (see quiz ask {t.id} --steps)")
            out.append(Failure(t.id, 0, "steps", detail, detail,
                               field=("steps", i, "quantity")))
    return out


class ExampleError(ValueError):
    """An example placeholder that names nothing."""


def example_text(text: str, v: Variant, pv: PartVariant) -> str:
    """An example's answer with its placeholders (:data:`EXAMPLE_PLACEHOLDER`) filled for
    this variant and part.

    Raises:
        ExampleError: a part, mistake or expression that does not exist or cannot be
            worked out, with what would.
    """

    def filed(p: PartVariant, shown: str) -> str:
        # Choice labels as the file writes them (examples are in the file's letters).
        if not p.labels:
            return shown
        back = {s: label for label, s in p.labels.items()}
        return ", ".join(sorted(back.get(x.strip(), x.strip()) for x in shown.split(",")))

    def fill(m: re.Match[str]) -> str:
        body = m.group(1)
        if body == "key":
            return filed(pv, pv.key.display)
        kind, _, arg = body.partition(":")
        arg = arg.strip()
        if kind == "part":
            if not arg.isdigit() or not 1 <= int(arg) <= len(v.parts):
                raise ExampleError(f"{{part:{arg}}}: the template has parts 1 to "
                                   f"{len(v.parts)}")
            other = v.parts[int(arg) - 1]
            return filed(other, other.key.display)
        if kind == "mistake":
            for km in pv.mistakes:
                if km.name == arg:
                    typed = mistake_answer(pv, km)
                    if typed is None:
                        raise ExampleError(f"{{mistake:{arg}}} has nothing to type")
                    return filed(pv, typed)  # (only a choice's letters are moved)
            names = ", ".join(repr(km.name) for km in pv.mistakes) or "none"
            raise ExampleError(f"{{mistake:{arg}}} names no known mistake of part "
                               f"{pv.index} (its mistakes: {names})")
        from questions.expr import ExprError, compile_expr
        from questions.text import NAMES
        from questions.variants import pv_env_value

        try:
            free = {k: float(x) for k, x in v.params.items()
                    if isinstance(x, int | float) and not isinstance(x, bool)}
            e = compile_expr(arg, NAMES | frozenset(free))
            value = float(e.value({n: free[n] if n in free else pv_env_value(pv, n)
                                   for n in e.names}))
        except (ExprError, ValueError, LookupError, ArithmeticError) as exc:
            raise ExampleError(f"{{expr:{arg}}}: {exc}") from None
        if _count(pv):
            return str(round(value))
        return format_value(value, pv.key.unit or "1", digits=4)

    return EXAMPLE_PLACEHOLDER.sub(fill, text)


def every_seed(ex: object) -> bool:
    """Whether an example is checked on every seed: its answer is written with
    placeholders (so it holds whatever is drawn) and it names no seed of its own."""
    from questions.schema import Example

    assert isinstance(ex, Example)
    # A literal answer holds at its own seed only, whatever its earlier answers say.
    return "seed" not in ex.model_fields_set and bool(EXAMPLE_PLACEHOLDER.search(ex.answer))


def check_examples(t: Template, seeds: int = 1, *, body: Body | None = None,
                   drawn: dict[int, Variant] | None = None,
                   keys: dict[int, str] | None = None) -> list[Failure]:
    """Each example grades with its declared verdict (and mistake): at its own seed, or
    on every seed (0 to `seeds` - 1) when it is written with placeholders
    (:func:`every_seed`). Each example fails once, at the first seed it fails on.

    `body`: what copies of `t` found (:class:`Body`): an example at a seed that draws
    parameters drawn before grades as it did then. `drawn`: variants already drawn, by
    seed; `keys`: their keys in `body` (:attr:`Drawn.keys`), by seed."""
    out: list[Failure] = []
    variants: dict[int, Variant | TemplateError] = dict(drawn or {})
    shuffled = shuffles(t)
    counts = arrangers(t) if shuffled else None

    def variant(seed: int) -> Variant | TemplateError:
        if seed not in variants:
            try:
                variants[seed] = make_variant(t, seed)
            except TemplateError as exc:
                variants[seed] = exc
        return variants[seed]

    def checked(i: int, seed: int) -> Failure | None:
        if body is None:
            return _check_example(t, i, seed, variant(seed))
        if keys is not None and seed in keys:
            return known((keys[seed], i), seed)
        try:
            params = draw_params(t, seed, memo=body.draws)[0]
        except TemplateError:
            return _check_example(t, i, seed, variant(seed))
        drawn = repr(list(params.items()))
        if counts is not None:
            drawn += arranged(t.id, seed, counts)
        elif shuffled:
            v = variant(seed)
            if isinstance(v, TemplateError):
                return _check_example(t, i, seed, v)
            drawn += arrangement(v)
        return known((drawn, i), seed)

    def known(key: tuple[str, int], seed: int) -> Failure | None:
        assert body is not None
        i = key[1]
        if key in body.examples:
            kept = body.examples[key]
            return None if kept is None else replace(kept, template=t.id, seed=seed)
        found = _check_example(t, i, seed, variant(seed))
        if found is None or not names_id(t, [found]):
            body.examples[key] = found
        return found

    for i, ex in enumerate(t.examples):
        for seed in range(max(seeds, 1)) if every_seed(ex) else [ex.seed]:
            failure = checked(i, seed)
            if failure is not None:
                out.append(failure)
                break
    return out


def _check_example(t: Template, i: int, seed: int,
                   v: Variant | TemplateError) -> Failure | None:
    ex = t.examples[i]

    def failed(wrong: str) -> Failure:
        return Failure(t.id, seed, f"examples[{i}]", wrong, wrong, example=i)

    if isinstance(v, TemplateError):
        return Failure(t.id, seed, f"examples[{i}]", str(v), str(v), example=i)
    if not 1 <= ex.part <= len(v.parts):
        return failed(f"no part {ex.part} (the template has {len(v.parts)})")
    pv = v.parts[ex.part - 1]
    if len(ex.earlier) >= ex.part:
        return failed(f"earlier gives {len(ex.earlier)} answers; part {ex.part} has "
                      f"{ex.part - 1} before it")
    try:
        answer = example_text(ex.answer, v, pv)
        typed_earlier = [example_text(x, v, v.parts[k]) for k, x in enumerate(ex.earlier)]
    except ExampleError as exc:
        return failed(str(exc))
    # Examples name options by the template's letters; the variant shows its own.
    has_options = kind_of(pv.kind).has_options
    typed = kind_of(pv.kind).as_shown(pv, answer)
    try:
        earlier = read_earlier(v.parts[: ex.part - 1], typed_earlier)
    except Unreadable as exc:
        return failed(f"earlier: {exc.message}")
    g = grade(pv, typed, earlier=earlier)
    if g.verdict != ex.verdict or (ex.mistake and g.mistake != ex.mistake):
        want = ex.verdict + (f" and match mistake {ex.mistake!r}" if ex.mistake else "")
        got = g.verdict + (f" matching {g.mistake!r}" if g.mistake else
                           " with no known mistake")
        if pv.labels and has_options:
            # in the file's letters (the variant's own are shuffled)
            back = {shown: label for label, shown in pv.labels.items()}
            right = ", ".join(sorted(back.get(x, x) for x in pv.key.correct))
            written = f"{answer!r} (the key here is {right}, in the file's letters)"
        else:
            written = repr(answer) if answer == ex.answer else \
                f"{ex.answer!r} (here {answer!r})"
        return failed(f"{written} should grade {want}; it grades {got}")
    return None
