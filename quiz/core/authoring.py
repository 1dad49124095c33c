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

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from questions.loader import Problem

if TYPE_CHECKING:
    from questions.schema import Template
    from quiz.core.selftest import Failure

__all__ = ["Checked", "add_duplicates", "check_file", "check_loaded"]


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
    """

    name: str
    source: str
    seeds: int
    checks: int = 0
    passed: int = 0
    problems: list[Problem] = field(default_factory=list)


def check_file(path: Path, seeds: int) -> Checked:
    """Load a template file and run the self-test over `seeds` seeds, every problem located.

    Never raises for a bad template: every problem is in `Checked.problems`.
    """
    from questions.loader import TemplateFileError, parse_template, read_template_text

    try:
        text = read_template_text(path)
        template = parse_template(text, str(path))
    except TemplateFileError as exc:
        return Checked(path.name, str(path), 0, problems=list(exc.problems))
    return check_loaded(template, str(path), text, seeds)


def check_loaded(t: Template, source: str, text: str, seeds: int) -> Checked:
    """Run the self-test of a loaded template and place each failure on its line."""
    from questions.loader import locate
    from quiz.core.selftest import check_template

    per_seed = 1 + sum(1 + len(p.mistakes) for p in t.all_parts())
    out = Checked(t.id, source, seeds, checks=seeds * per_seed + len(t.examples))
    try:
        failures = check_template(t, seeds)
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
            reason = f"{first} (seed {group[0][0].seed})"
        else:
            reason = f"{first} ({_seed_list(seeds_seen)})"
        out.problems.append(Problem(source, line, name, reason))
    out.problems.sort(key=lambda p: p.line)
    if stopped_at is not None:  # check_template stops at a seed that cannot be drawn
        out.passed = max(0, stopped_at * per_seed - len(failed))
    else:
        out.passed = out.checks - len(failed)
    return out


def _seed_list(seeds: list[int]) -> str:
    if len(seeds) == 1:
        return f"seed {seeds[0]}"
    shown = ", ".join(str(s) for s in seeds[:5])
    more = f" and {len(seeds) - 5} more" if len(seeds) > 5 else ""
    return f"seeds {shown}{more}"


def _place(t: Template, f: Failure) -> tuple[list[str | int], str, tuple[Any, ...]]:
    """Where a self-test failure belongs: (field path, reason, the check it fails)."""
    detail = f.detail
    base: list[str | int] = []
    part = 0
    m = re.match(r"part (\d+): ", detail)
    if m:
        part = int(m.group(1)) - 1
        base = ["parts", part] if t.parts else []
        detail = detail[m.end():]
    if f.check.startswith("examples["):
        index = int(f.check.removeprefix("examples[").rstrip("]"))
        return ["examples", index], detail, ("example", index)
    if f.check in ("key", "key display"):
        return [*base, "answer"], detail, (f.seed, part, "key")
    if f.check == "mistake":
        mistakes = t.all_parts()[part].mistakes
        which = next((i for i, mk in enumerate(mistakes) if repr(mk.name) in detail), None)
        loc: list[str | int] = [*base, "mistakes"] + ([which] if which is not None else [])
        return loc, detail, (f.seed, part, which)
    if f.check == "variant":
        loc, reason = _variant_problem(t, detail)
        return loc, reason, (f.seed, "variant")
    return [], f"{f.check}: {detail}", (f.seed, "variant")


def _variant_problem(t: Template, detail: str) -> tuple[list[str | int], str]:
    """Place a failure to draw a variant (make_variant's TemplateError)."""
    import difflib

    from questions.variants import MAX_DRAWS, NAMES

    detail = detail.removeprefix(f"{t.id}: ")
    m = re.search(r"constraint '(.*)' failed", detail)
    if m and m.group(1) in t.constraints:
        i = t.constraints.index(m.group(1))
        return ["constraints", i], (f"no draw of the parameters meets {m.group(1)!r} (tried "
                                    f"{MAX_DRAWS}); widen the parameters or relax it")
    m = re.search(r"constraint '(.*)' cannot be evaluated: (.*?)\)?$", detail)
    if m and m.group(1) in t.constraints:
        return ["constraints", t.constraints.index(m.group(1))], m.group(2)
    if "satisfies the template" in detail:
        return ["params"], detail
    m = re.search(r"the prompt's \{(\w+)\}", detail)
    if m:
        name = m.group(1)
        close = difflib.get_close_matches(name, sorted(NAMES | set(t.params)), n=1)
        hint = f" (did you mean {{{close[0]}}}?)" if close else ""
        for i, p in enumerate(t.parts):
            if "{" + name in p.prompt:
                return ["parts", i, "prompt"], detail + hint
        return ["intro" if "{" + name in t.intro else "prompt"], detail + hint
    m = re.match(r"part (\d+): ", detail)
    if m:
        index = int(m.group(1)) - 1
        base: list[str | int] = ["parts", index, "answer"] if t.parts else ["answer"]
        parts = t.all_parts()
        expr = parts[index].answer.expr if 0 <= index < len(parts) else None
        if expr and detail[m.end():].startswith(f"{expr}: "):
            return [*base, "expr"], detail[m.end():]
        return base, detail[m.end():]
    return ["answer"], detail


def _constraint_line(text: str, constraint: str, fallback: int) -> int:
    """The line that holds a constraint's text (constraints are items of one array)."""
    start = fallback - 1
    lines = text.splitlines()
    for n in range(max(start, 0), len(lines)):
        if constraint in lines[n]:
            return n + 1
    return fallback


def add_duplicates(results: list[Checked]) -> None:
    """An id used twice among these files, or by a different bundled file, is a problem
    (the app would skip one of them)."""
    import tomllib

    from questions.loader import bundled_files, locate, read_template_text

    owners: dict[str, str] = {}
    for path in bundled_files():
        try:
            owners[str(tomllib.loads(path.read_text(encoding="utf-8"))["id"])] = str(path)
        except (OSError, ValueError, KeyError):
            continue
    seen: dict[str, str] = {}
    for r in results:
        if r.seeds == 0:  # did not load
            continue
        source = Path(r.source).resolve()
        other = seen.get(r.name) or owners.get(r.name)
        if other and Path(other).resolve() != source:
            try:
                line, _ = locate(read_template_text(source), ["id"])
            except ValueError:  # changed since it was checked: the id is still a problem
                line = 1
            r.problems.insert(0, Problem(r.source, line, "id", f"duplicate id {r.name!r} "
                                         f"(also in {other}); the app would skip one"))
        seen.setdefault(r.name, r.source)
