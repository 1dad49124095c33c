"""`quiz templates list|show|new|validate|test|preview|schema`: authoring question templates.

Templates come from the bundled bank, the user's template folder (inside the data folder)
and any folder named by ``--templates`` or ``QUIZ_TEMPLATES``. Everything here reads
templates as data (``tomllib`` + pydantic, through :mod:`questions.loader`); nothing in a
template is ever run.

Problems are printed as ``FILE:LINE: FIELD: reason``, the form editors and CI logs link
to. ``validate`` adds the self-test (:mod:`quiz.core.selftest`) over a few seeds to the
loader's checks, and places each failure on the line it comes from: a constraint no draw
can meet on its ``constraints`` entry, a known mistake that equals the key on its
``[[mistakes]]`` entry, an example with the wrong verdict on its ``[[examples]]`` entry.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import textwrap
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quiz.commands.args import seed, whole

if TYPE_CHECKING:
    from questions.loader import Bank, Problem
    from questions.schema import Template
    from questions.variants import PartVariant, Variant
    from quiz.core.selftest import Failure

VALIDATE_SEEDS = 5
"""Seeds `validate` draws (enough to catch an impossible constraint or a bad mistake)."""

TEST_SEEDS = 20
"""Seeds `test` draws by default."""

ACTIONS = ("list", "show", "new", "validate", "test", "preview", "schema")


# ---------------------------------------------------------------- the command line


_positive = whole(1, 100_000)


def add_parser(sub: Any) -> None:
    """Register `quiz templates ...` on the top-level subparsers."""
    t = sub.add_parser("templates", help="list, check and write question templates",
                       description="List, show, write, validate, test and preview question "
                       "templates. See AUTHORING.md.")
    # The global --data-dir/--templates also work after the action
    # (`quiz templates list --templates DIR`). Other names and SUPPRESS keep the values
    # given before `templates` from being overwritten.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--templates", dest="more_templates", action="append",
                        default=argparse.SUPPRESS, metavar="DIR",
                        help="extra template folder (repeatable; env QUIZ_TEMPLATES)")
    common.add_argument("--data-dir", dest="more_data_dir", default=argparse.SUPPRESS,
                        metavar="PATH", help="data folder; its templates/ is yours")
    actions = t.add_subparsers(dest="action", parser_class=type(t), metavar="ACTION")

    a = actions.add_parser("list", parents=[common], help="every template: bank and yours")
    a.add_argument("--json", action="store_true", help="machine-readable output")

    a = actions.add_parser("show", parents=[common], help="a template's TOML and its file")
    a.add_argument("id", help="TEMPLATE_ID")

    a = actions.add_parser("new", parents=[common], help="write a working, commented template")
    a.add_argument("id", help="topic/name, e.g. memory/my-question")
    a.add_argument("--dir", help="folder to write into (default: your template folder)")

    a = actions.add_parser("validate", parents=[common],
                           help="check files; one FILE:LINE: FIELD: reason per problem")
    a.add_argument("paths", nargs="+", metavar="PATH", help="template files or folders")
    a.add_argument("--seeds", type=_positive, default=VALIDATE_SEEDS,
                   help=f"variants to draw and check (default {VALIDATE_SEEDS})")

    a = actions.add_parser("test", parents=[common],
                           help="every example and property over many seeds")
    a.add_argument("paths", nargs="*", metavar="PATH",
                   help="template files or folders (default: the bank and your folders)")
    a.add_argument("--seeds", type=_positive, default=TEST_SEEDS,
                   help=f"seeds per template (default {TEST_SEEDS})")

    a = actions.add_parser("preview", parents=[common],
                           help="a variant as the app shows it, with key and mistakes")
    a.add_argument("template", metavar="PATH_OR_ID", help="a .toml file, TEMPLATE_ID or "
                   "TEMPLATE_ID#SEED")
    a.add_argument("--seed", type=seed, help="the variant (default 0)")

    a = actions.add_parser("schema", parents=[common],
                           help="the JSON Schema of a template file (for editors)")
    a.add_argument("--markdown", action="store_true",
                   help="the field reference as Markdown instead (as in AUTHORING.md)")


def run(args: argparse.Namespace) -> int:
    """Run a `quiz templates` action; returns the exit code.

    Raises:
        ValueError: a usage problem (bad id, existing file, unknown template ...), which
            the caller prints as one line and exits 2 on.
    """
    args.templates = [*(getattr(args, "templates", None) or []),
                      *getattr(args, "more_templates", [])]
    if getattr(args, "more_data_dir", None):
        args.data_dir = args.more_data_dir
    action: Callable[[argparse.Namespace], int] | None = {
        "list": _list, "show": _show, "new": _new, "validate": _validate, "test": _test,
        "preview": _preview, "schema": _schema}.get(args.action or "")
    if action is None:
        raise ValueError(f"quiz templates needs an action: {', '.join(ACTIONS)} "
                         "(see quiz templates --help)")
    try:
        return action(args)
    except BrokenPipeError:  # `quiz templates list | head`: the reader has gone; stop quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # a folder that cannot be written or read: one line, exit 2
        raise ValueError(f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": ")) from exc


def _user_dir(args: argparse.Namespace) -> Path:
    from quiz import locations

    return locations.user_templates_dir(locations.data_dir(getattr(args, "data_dir", None)))


def _bank(args: argparse.Namespace) -> Bank:
    """The bank with the user's folders; broken files are warned about on stderr."""
    from quiz import locations
    from quiz.commands.common import bank

    for folder in locations.extra_template_dirs(args.templates):
        if not folder.is_dir():
            print(f"warning: template folder {folder} does not exist", file=sys.stderr)
    return bank(args)


# ---------------------------------------------------------------- list, show, schema


def _list(args: argparse.Namespace) -> int:
    from questions.loader import bundled_files

    bank = _bank(args)
    templates = [bank.templates[tid] for tid in sorted(bank.templates)]
    if args.json:
        print(json.dumps([{"id": t.id, "title": t.title, "topic": t.topic,
                           "tags": list(t.tags), "difficulty": t.difficulty,
                           "answer_kind": t.kind, "pack": bank.packs.get(t.id)}
                          for t in templates], indent=2))
        return 0
    bundled = {str(p) for p in bundled_files()}
    mine = sum(1 for tid, src in bank.sources.items()
               if src not in bundled and tid not in bank.packs)
    header = ["ID", "TOPIC", "KIND", "LEVEL", "TAGS", "TITLE"]
    rows = [[t.id, t.topic, t.kind, str(t.difficulty), ", ".join(t.tags), t.title]
            for t in templates]
    if bank.packs:  # the column only when a pack is installed
        header.append("PACK")
        for row, t in zip(rows, templates, strict=True):
            row.append(bank.packs.get(t.id, ""))
    print(_table([header, *rows]))
    from_packs = ""
    if bank.packs:
        names = sorted(set(bank.packs.values()))
        from_packs = f", {len(bank.packs)} from packs: {', '.join(names)}"
    print(f"\n{_plural(len(rows), 'template')} ({mine} from your folders{from_packs})")
    return 0


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _table(rows: Sequence[Sequence[str]], right: Iterable[int] = ()) -> str:
    """Rows of cells as aligned columns (`right`: the columns aligned right)."""
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    right = set(right)
    lines = []
    for row in rows:
        cells = [str(c).rjust(w) if i in right else str(c).ljust(w)
                 for i, (c, w) in enumerate(zip(row, widths, strict=True))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def _show(args: argparse.Namespace) -> int:
    from questions.variants import parse_variant_id

    tid, _ = parse_variant_id(args.id)
    bank = _bank(args)
    bank.get(tid)  # LookupError with a suggestion for an unknown id
    source = Path(bank.sources[tid])
    # The location is a TOML comment, so `show ID > copy.toml` is still a template.
    from questions.loader import read_template_text

    text = read_template_text(source)  # TemplateFileError (a ValueError): one line
    print(f"# {tid}: {source}")
    sys.stdout.write(text)
    return 0


def _schema(args: argparse.Namespace) -> int:
    from questions.schema import Template

    if args.markdown:
        print(reference_markdown(), end="")
    else:
        print(json.dumps(Template.model_json_schema(by_alias=True), indent=2))
    return 0


# ---------------------------------------------------------------- new


def _new(args: argparse.Namespace) -> int:
    from questions.loader import load_bank
    from questions.scaffold import check_id, scaffold
    from quiz.commands.common import template_dirs

    check_id(args.id)
    folder = Path(args.dir).expanduser() if args.dir else _user_dir(args)
    path = (folder / f"{args.id}.toml").absolute()
    if path.exists():
        raise ValueError(f"{path} already exists; choose another id or move that file")
    taken = load_bank(template_dirs(args)).sources.get(args.id)
    if taken:
        raise ValueError(f"the id {args.id!r} is taken by {taken}; choose another id")
    text = scaffold(args.id, str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("x", encoding="utf-8") as out:  # "x": never overwrite, even in a race
        out.write(text)
    print(path)
    return 0


# ---------------------------------------------------------------- located self-test


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
    from questions.loader import Problem, locate
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


# ---------------------------------------------------------------- validate


def _expand(paths: Sequence[str]) -> tuple[list[Path], list[Checked]]:
    """Files as given, and the .toml files inside folders (recursively); a folder that
    cannot be read is a result with a problem.

    Raises:
        ValueError: nothing to check at all.
    """
    from questions.loader import scan_folder

    out: list[Path] = []
    unreadable: list[Checked] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            found, problems = scan_folder(path)
            out += found
            unreadable += [Checked(Path(p.file).name, p.file, 0, problems=[p])
                           for p in problems]
        else:
            out.append(path)
    if not out and not unreadable:
        raise ValueError(f"no .toml files in {', '.join(paths)}")
    return out, unreadable


def _validate(args: argparse.Namespace) -> int:
    files, unreadable = _expand(args.paths)
    results = unreadable + [check_file(path, args.seeds) for path in files]
    _add_duplicates(results)
    bad = 0
    for r in results:
        if r.problems:
            bad += 1
            for problem in r.problems:
                print(problem)
        else:
            print(f"{r.source}: ok ({r.name}, {r.seeds} seeds, {r.checks} checks)")
    if len(results) > 1:
        print(f"{_plural(len(results), 'file')}, {bad} with problems")
    return 1 if bad else 0


def _add_duplicates(results: list[Checked]) -> None:
    """An id used twice among these files, or by a different bundled file, is a problem
    (the app would skip one of them)."""
    import tomllib

    from questions.loader import Problem, bundled_files, locate, read_template_text

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


# ---------------------------------------------------------------- test


def _test(args: argparse.Namespace) -> int:
    results: list[Checked] = []
    if args.paths:
        files, results = _expand(args.paths)
        results += [check_file(path, args.seeds) for path in files]
    else:
        from questions.loader import TemplateFileError, load_bank, read_template_text
        from quiz.commands.common import template_dirs

        bank = load_bank(template_dirs(args))
        for problem in bank.problems:
            results.append(Checked(Path(problem.file).name, problem.file, 0,
                                   problems=[problem]))
        for tid in sorted(bank.templates):
            source = bank.sources[tid]
            try:
                text = read_template_text(Path(source))
            except TemplateFileError as exc:  # changed or removed since it loaded
                results.append(Checked(tid, source, 0, problems=list(exc.problems)))
                continue
            results.append(check_loaded(bank.templates[tid], source, text, args.seeds))
    rows = [[r.name, str(r.seeds), f"{r.passed}/{r.checks}", str(len(r.problems))]
            for r in results]
    print(_table([["TEMPLATE", "SEEDS", "PASSED", "FAILURES"], *rows], right=(1, 2, 3)))
    failures = [p for r in results for p in r.problems]
    if failures:
        print("\nFailures:")
        for p in failures:
            print(p)
    checks = sum(r.checks for r in results)
    passed = sum(r.passed for r in results)
    print(f"\n{_plural(len(results), 'template')}, {passed} of {checks} checks passed, "
          f"{_plural(len(failures), 'failure')}")
    return 1 if failures else 0


# ---------------------------------------------------------------- preview


def _preview(args: argparse.Namespace) -> int:
    from questions.loader import TemplateFileError, load_template
    from questions.variants import make_variant, variant_ref

    ref = args.template
    path = Path(ref).expanduser()
    seed: int | None = None
    if ref.endswith(".toml") or path.is_file():
        try:
            template = load_template(path)
        except TemplateFileError as exc:
            for problem in exc.problems:
                print(problem, file=sys.stderr)
            return 1
        source = str(path)
    else:
        tid, seed = variant_ref(ref, args.seed)
        bank = _bank(args)
        template = bank.get(tid)
        source = bank.sources[tid]
    if seed is None:
        seed = args.seed or 0
    print(render_preview(make_variant(template, seed), source))
    return 0


def render_preview(v: Variant, source: str) -> str:
    """A variant as the question screen shows it, followed by what the author needs to
    see: the drawn parameters, the key, the known mistakes and the explanation."""
    from questions.variants import describe

    t = v.template
    tags = f", tags {', '.join(t.tags)}" if t.tags else ""
    lines = [f"{v.id}  {t.title}",
             f"version {t.version}, topic {t.topic}, difficulty {t.difficulty}{tags}",
             f"file {source}", ""]
    if v.params:
        lines.append("Parameters:")
        width = max(len(k) for k in v.params)
        lines += [f"  {k.ljust(width)} = {describe(k, val)}" for k, val in v.params.items()]
        lines.append("")
    if t.intro:
        lines += [textwrap.fill(v.intro, 88), ""]
    for pv in v.parts:
        if len(v.parts) > 1:
            lines.append(f"Part {pv.index} ({pv.kind})")
        lines += _preview_part(pv)
    return "\n".join(lines).rstrip()


def _preview_part(pv: PartVariant) -> list[str]:
    from solver.units import format_value

    spec, key = pv.spec, pv.key
    lines = [textwrap.fill(line, 88) if line.strip() else "" for line in pv.prompt.splitlines()]
    lines += [f"  {chr(ord('a') + j)}) {choice}" for j, choice in enumerate(spec.choices)]
    if spec.rows:
        cols = ", ".join(f"{k} = {v}" for k, v in spec.columns.items())
        lines.append(f"  Rows: {', '.join(spec.rows)}. Columns: {cols}.")
    lines.append("")
    extra = ""
    if key.value is not None and key.unit:
        extra = f"   ({key.value:.6g} {key.unit}, tolerance {key.tolerance:.0%})"
    lines += [f"Answer kind: {pv.kind}", f"Key: {key.display}{extra}"]
    for acc in pv.accepted:
        lines.append(f"Also accepted ({acc.name}): {format_value(acc.value, key.unit or '1')}")
    if pv.mistakes:
        lines.append("Known mistakes:")
        rows = []
        for m in pv.mistakes:
            if m.value is not None:
                shown = format_value(m.value, key.unit or "1")
            else:
                shown = m.formula or ", ".join(m.choice) or "-"
            rows.append([f"  {m.name}", shown, f"credit {m.credit:g}"])
        lines.append(_table(rows))
    for i, h in enumerate(spec.hints, 1):
        lines.append(f"Hint {i} (costs {h.cost:g}): {h.text}")
    lines += ["", "Explanation:"]
    lines += [f"  {line}" for line in pv.explanation.splitlines()]
    lines.append("")
    return lines


# ---------------------------------------------------------------- field reference


def reference_markdown() -> str:
    """The reference of every template field, as Markdown tables built from the models'
    field docstrings (AUTHORING.md carries this text; a test keeps the two equal)."""
    from questions import schema

    sections: list[tuple[str, type[Any]]] = [
        ("Top level", schema.Template),
        ("`[params.NAME]`: how a parameter is drawn", schema.ParamSpec),
        ("`[answer]` (or `[parts.answer]`)", schema.Answer),
        ("`[[answer.accept]]`: other accepted conventions", schema.Accepted),
        ("`answer.when`: choice keys that depend on the draw", schema.Condition),
        ("`[[mistakes]]` (or `[[parts.mistakes]]`)", schema.Mistake),
        ("`[[hints]]` (or `[[parts.hints]]`)", schema.Hint),
        ("`[[examples]]`", schema.Example),
        ("`[[parts]]`: one step of a scenario", schema.Part),
    ]
    out: list[str] = []
    for title, model in sections:
        out += [f"### {title}", "", "| field | type | default | meaning |",
                "|---|---|---|---|"]
        for name, info in model.model_fields.items():
            label = info.alias or name
            meaning = " ".join((info.description or "").split()).replace("|", "\\|")
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
