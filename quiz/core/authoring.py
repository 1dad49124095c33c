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

    per_seed = 1 + sum(1 + len(p.mistakes) + bool(p.answer.follow) for p in t.all_parts())
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
