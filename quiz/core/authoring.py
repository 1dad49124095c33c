"""What ``quiz templates validate`` and ``test`` report: self-test failures placed on lines.

The self-test (:mod:`quiz.core.selftest`) says which property failed for which seed;
this module places each failure on the line of the template file it comes from: a
constraint no draw can meet on its ``constraints`` entry, a known mistake that equals the
key on its ``[[mistakes]]`` entry, an example with the wrong verdict on its
``[[examples]]`` entry. It is core logic shared by the command line and the tests, so it
lives in the core rather than in a front end. (It cannot live in ``questions``: the
self-test grades answers, and grading is in ``quiz.core``.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from questions.loader import Problem

if TYPE_CHECKING:
    from questions.schema import Template
    from quiz.core.selftest import Bodies, Body, Drawn, Failure

__all__ = ["Checked", "add_duplicates", "check_file", "check_loaded", "loaded_ids"]


@dataclass
class Checked:
    """The outcome of checking one template (or one file that did not load).

    Attributes:
        name: the template id, or the file name when it did not load.
        source: the file.
        seeds: seeds drawn.
        checks: checks planned: per seed, one for the draw and one per part's key and
            per known mistake; plus one per example.
        passed: checks that held.
        problems: what failed, located in the file.
        warnings: what may show learners something other than the author meant (a
            unit not checked, a quoted key at its default, a choice never drawn),
            located; they do not fail the check.
    """

    name: str
    source: str
    seeds: int
    checks: int = 0
    passed: int = 0
    problems: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)


def check_file(path: Path, seeds: int, bodies: Bodies | None = None) -> Checked:
    """Load a template file and run the self-test over `seeds` seeds, every problem located
    (`bodies`: see :func:`check_loaded`).

    Never raises for a bad template: every problem is in `Checked.problems`.
    """
    from questions.loader import TemplateFileError, parse_template, read_template_text

    try:
        text = read_template_text(path)
        template = parse_template(text, str(path))
    except TemplateFileError as exc:
        return Checked(path.name, str(path), 0, problems=list(exc.problems))
    return check_loaded(template, str(path), text, seeds, bodies)


def check_loaded(t: Template, source: str, text: str, seeds: int,
                 bodies: Bodies | None = None) -> Checked:
    """Run the self-test of a loaded template and place each failure on its line.

    `bodies`: what this run found of the templates checked before (copies of `t` that
    differ only in id share what does not depend on it: :class:`quiz.core.selftest.Body`);
    None: `t` is checked on its own."""
    from questions.kinds import kind_of
    from questions.located import locate
    from quiz.core.selftest import Body, Drawn, check_template

    per_seed = 1 + sum(1 + len(p.mistakes) + (kind_of(p.answer_kind).amount
                                              and bool(kind_of(p.answer_kind).amount_of(p).follow))
                       for p in t.all_parts())
    out = Checked(t.id, source, seeds, checks=seeds * per_seed + len(t.examples))
    body = Body() if bodies is None else bodies.of(t)
    drawn = Drawn()
    try:
        failures = check_template(t, seeds, body, drawn)
    except Exception as exc:  # whatever stops the self-test is the template's to report
        out.problems.append(Problem(source, 1, "(file)", f"the self-test stopped: "
                                    f"{type(exc).__name__}: {exc}"))
        return out
    failed: set[tuple[Any, ...]] = set()
    stopped_at: int | None = None
    grouped: dict[tuple[int, str, str], list[tuple[Failure, str]]] = {}
    for f in failures:
        loc, reason, slot = _place(t, f)
        if f.check == "variant":
            stopped_at = f.seed
        else:
            failed.add(slot)
        line, name = locate(text, loc)
        if loc[:1] == ["constraints"] and len(loc) == 2:
            line = _constraint_line(text, t.constraints[int(loc[1])], line)
        grouped.setdefault((line, name, f.check), []).append((f, reason))
    for (line, name, _), group in grouped.items():
        seeds_seen = sorted({f.seed for f, _ in group})
        first = group[0][1]
        if group[0][0].check.startswith("examples"):
            reason = f"{first} (seed {group[0][0].seed}{drawn_at(t, group[0][0].seed)})"
        else:
            reason = f"{first} ({_seed_list(seeds_seen)}{drawn_at(t, seeds_seen[0])})"
        out.problems.append(Problem(source, line, name, reason))
    out.problems.sort(key=lambda p: p.line)
    out.warnings = located_warnings(t, source, text, seeds, body, drawn)
    if stopped_at is not None:  # check_template stops at a seed that cannot be drawn
        out.passed = max(0, stopped_at * per_seed - len(failed))
    else:
        out.passed = out.checks - len(failed)
    return out


def drawn_at(t: Template, seed: int) -> str:
    """"; seed N draws k = v, ..." for a failure's message: the parameters of the seed
    that failed, so that the failure can be reproduced and understood without a
    preview ("" when they cannot be drawn)."""
    from questions.errors import TemplateError
    from questions.variants import describe, draw_params

    try:
        params = draw_params(t, seed)[0]
    except (TemplateError, ValueError, ArithmeticError):
        return ""
    if not params:
        return ""
    shown = ", ".join(f"{k} = {describe(k, v)}" for k, v in params.items())
    return f"; seed {seed} draws {shown}"


def located_warnings(t: Template, source: str, text: str, seeds: int,
                     body: Body | None = None, drawn: Drawn | None = None) -> list[Problem]:
    """The template's warnings (:func:`questions.loader.template_warnings`) and its draw
    coverage over `seeds` seeds (:func:`questions.variants.draw_coverage`), located.

    `body`: what copies of `t` found (:class:`quiz.core.selftest.Body`): the warnings of
    the body, worked out once, and the draws tried. `drawn`: what the self-test drew of
    `t` (:class:`quiz.core.selftest.Drawn`), not drawn again."""
    import contextlib

    from questions.checks import template_warnings
    from questions.errors import TemplateError
    from questions.located import locate
    from questions.variants import draw_coverage, draw_params

    first = None  # the warnings read the draw at seed 0: kept by its parameters
    if drawn is not None and 0 in drawn.params:
        first = drawn.params[0]
    elif body is not None:
        with contextlib.suppress(TemplateError):
            first = repr(list(draw_params(t, 0, memo=body.draws)[0].items()))
    own = None if body is None or first is None else body.warnings.get(first)
    if own is None:
        own = list(template_warnings(t))
        if body is not None and first is not None and \
                not any(t.id in reason for _, reason in own):
            body.warnings[first] = own
    found = list(own)
    try:
        found += draw_coverage(t, seeds, None if body is None else body.draws,
                               None if drawn is None else drawn.tries).warnings()
    except Exception as exc:  # a report, never a reason to stop
        found.append((["params"], f"draw coverage could not be worked out: {exc}"))
    out = []
    for loc, reason in found:
        line, name = locate(text, loc)
        if loc == ["params"] and t.params:  # no [params] header: the first [params.X]
            line = locate(text, ["params", next(iter(t.params))])[0]
        out.append(Problem(source, line, name, f"warning: {reason}"))
    return sorted(dict.fromkeys(out), key=lambda p: p.line)


def _seed_list(seeds: list[int]) -> str:
    if len(seeds) == 1:
        return f"seed {seeds[0]}"
    shown = ", ".join(str(s) for s in seeds[:5])
    more = f" and {len(seeds) - 5} more" if len(seeds) > 5 else ""
    return f"seeds {shown}{more}"


def _place(t: Template, f: Failure) -> tuple[list[str | int], str, tuple[Any, ...]]:
    """Where a self-test failure belongs: (field path, reason, the check it fails)."""
    reason = f.reason or f.detail
    part = f.part or 0
    base: list[str | int] = ["parts", part] if t.parts and f.part is not None else []
    if f.example is not None:
        return ["examples", f.example], reason, ("example", f.example)
    if f.check in ("key", "key display"):
        return [*base, "answer"], reason, (f.seed, part, "key")
    if f.check == "mistake":
        loc: list[str | int] = [*base, "mistakes"]
        if f.mistake is not None:
            loc.append(f.mistake)
        return loc, reason, (f.seed, part, f.mistake)
    if f.check == "follow-through":
        return [*base, "answer", "follow"], reason, (f.seed, part, "follow")
    if f.check == "variant":
        return list(f.field) or ["answer"], reason, (f.seed, "variant")
    if f.check == "followups" and f.field:
        return list(f.field), reason, ("followups", *f.field)
    return [], f"{f.check}: {f.detail}", (f.seed, "variant")


def _constraint_line(text: str, constraint: str, fallback: int) -> int:
    """The line that holds a constraint's text (constraints are items of one array)."""
    start = fallback - 1
    lines = text.splitlines()
    for n in range(max(start, 0), len(lines)):
        if constraint in lines[n]:
            return n + 1
    return fallback


def add_duplicates(results: list[Checked], loaded: Sequence[tuple[str, str]] = ()) -> None:
    """An id used twice among these files, or by another file the app loads, is a
    problem: the app reads the bundled bank, then packs, then the data folder's
    templates, then each ``--templates``/``QUIZ_TEMPLATES`` folder, and the first file
    with an id wins. The problem is placed on the file the app skips.

    Args:
        results: the files checked (each with its template id when it loaded).
        loaded: (id, file) of every template file the app loads, in load order
            (:func:`loaded_ids`; empty: the bundled bank's).
    """
    from questions.loader import read_template_text
    from questions.located import locate

    order = list(loaded) or loaded_ids()
    first: dict[str, str] = {}
    for tid, path in order:
        first.setdefault(tid, path)

    def line_of(path: str) -> int:
        try:
            return locate(read_template_text(Path(path)), ["id"])[0]
        except ValueError:  # changed since it was checked: the id is still a problem
            return 1

    rule = ("the first file read wins: the bundled bank, then packs, then your data "
            "folder's templates/, then --templates and QUIZ_TEMPLATES folders")
    seen: dict[str, str] = {}
    for r in results:
        if r.seeds == 0:  # did not load
            continue
        source = Path(r.source).resolve()
        winner = first.get(r.name)
        if winner is not None and Path(winner).resolve() != source:
            r.problems.insert(0, Problem(r.source, line_of(r.source), "id", (
                f"duplicate id {r.name!r}: the app already loads it from {winner}, so it "
                f"skips this file ({rule}); give this template an id of its own")))
        elif winner is not None:  # this file wins: blame the ones the app skips
            for tid, path in order:
                if tid == r.name and Path(path).resolve() != source:
                    r.problems.append(Problem(path, line_of(path), "id", (
                        f"duplicate id {r.name!r}: the app loads {r.source} first and "
                        f"skips this file ({rule}); give one of them another id")))
        elif r.name in seen and Path(seen[r.name]).resolve() != source:
            r.problems.insert(0, Problem(r.source, line_of(r.source), "id", (
                f"duplicate id {r.name!r} (also in {seen[r.name]}); the app would skip "
                "one: give this template an id of its own")))
        seen.setdefault(r.name, r.source)


def loaded_ids(extra_dirs: Sequence[Path] = ()) -> list[tuple[str, str]]:
    """(id, file) of every template file the app reads with these user folders, in the
    order it reads them (the bundled bank, packs, then the folders). Ids are read from
    the TOML alone: a file that is not TOML or has no id is left out."""
    import tomllib

    from questions.loader import bank_files, read_template_text

    out = []
    for name in bank_files(extra_dirs).names:
        try:
            tid = tomllib.loads(read_template_text(Path(name)))["id"]
        except (ValueError, KeyError, TypeError, RecursionError):
            continue
        if isinstance(tid, str):
            out.append((tid, name))
    return out
