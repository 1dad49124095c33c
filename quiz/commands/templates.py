"""`quiz templates list|show|new|validate|test|preview|schema`: authoring question templates.

Templates come from the bundled bank, the user's template folder (inside the data folder)
and any folder named by ``--templates`` or ``QUIZ_TEMPLATES``. Everything here reads
templates as data (``tomllib`` + pydantic, through :mod:`questions.loader`); nothing in a
template is ever run.

Problems are printed as ``FILE:LINE: FIELD: reason``, the form editors and CI logs link
to. ``validate`` adds the self-test over a few seeds to the loader's checks, each failure
placed on the line it comes from (:mod:`quiz.core.authoring`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quiz.commands.args import seed, whole
from quiz.core.errors import UsageError
from quiz.core.words import plural

if TYPE_CHECKING:
    from questions.catalog import Catalog
    from questions.loader import Bank, Summary
    from questions.variants import PartVariant, Variant
    from quiz.core.authoring import Checked

VALIDATE_SEEDS = 5
"""Seeds `validate` draws (enough to catch an impossible constraint or a bad mistake)."""

TEST_SEEDS = 20
"""Seeds `test` draws by default."""

ACTIONS = ("list", "show", "new", "validate", "test", "preview", "schema")


# ---------------------------------------------------------------- the command line


_positive = whole(1, 100_000)


def add_parser(sub: Any) -> None:
    """Register `quiz templates ...` on the top-level subparsers."""
    t = sub.add_parser("templates",
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
                   help="template files, folders or ids (default: the bank and your "
                        "folders)")
    a.add_argument("--seeds", type=_positive, default=TEST_SEEDS,
                   help=f"seeds per template (default {TEST_SEEDS})")
    a.add_argument("-j", "--workers", type=whole(1, 1024), default=None, metavar="N",
                   help="processes to test on (default: one per CPU)")

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
        QuizError: a usage problem (bad id, existing file, unknown template ...), which
            the caller prints as one line and exits 2 on; OSError likewise.
    """
    args.templates = [*(getattr(args, "templates", None) or []),
                      *getattr(args, "more_templates", [])]
    if getattr(args, "more_data_dir", None):
        args.data_dir = args.more_data_dir
    action: Callable[[argparse.Namespace], int] | None = {
        "list": _list, "show": _show, "new": _new, "validate": _validate, "test": _test,
        "preview": _preview, "schema": _schema}.get(args.action or "")
    if action is None:
        raise UsageError(f"quiz templates needs an action: {', '.join(ACTIONS)} "
                         "(see quiz templates --help)")
    try:
        return action(args)
    except BrokenPipeError:  # `quiz templates list | head`: the reader has gone; stop quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _user_dir(args: argparse.Namespace) -> Path:
    from quiz import locations

    return locations.user_templates_dir(locations.data_dir(getattr(args, "data_dir", None)))


def _bank(args: argparse.Namespace) -> Bank:
    """The bank with the user's folders; broken files are warned about on stderr."""
    from quiz.commands.common import bank

    _warn_missing_folders(args)
    return bank(args)


LIST_COMPILES = 200
"""Changed files ``list``, ``show`` and ``new`` compile (a quarter of a second), so that
their problems are warned about at once; with more (a new folder of thousands, or any
upgrade, which drops the compiled bank), they only summarize them
(:func:`questions.catalog.build`): the first ``list`` of 6,500 templates then takes under
a second, not six. Those files' problems are warned about by the next command that
loads the bank (``quiz``, ``quiz drill``, ``quiz templates test``) and by
``quiz templates validate``."""


def _catalog(args: argparse.Namespace) -> Catalog:
    """Every template's summary (no template validated again when the cache is fresh;
    see :data:`LIST_COMPILES`)."""
    from quiz.commands.common import catalog

    _warn_missing_folders(args)
    return catalog(args, compile_up_to=LIST_COMPILES)


def _warn_missing_folders(args: argparse.Namespace) -> None:
    from quiz import locations

    for folder in locations.extra_template_dirs(args.templates):
        if not folder.is_dir():
            print(f"warning: template folder {folder} does not exist", file=sys.stderr)


# ---------------------------------------------------------------- list, show, schema


def _list(args: argparse.Namespace) -> int:
    from questions.loader import bundled_files

    found = _catalog(args)
    entries = [found.entries[tid] for tid in found.ids]
    if args.json:
        print(pretty_json([{"id": e.id, "title": e.title, "topic": e.topic,
                            "tags": list(e.tags), "difficulty": e.difficulty,
                            "answer_kind": e.kind, "pack": e.pack} for e in entries]))
        return 0
    bundled = {str(p) for p in bundled_files()}
    mine = sum(1 for e in entries if e.file not in bundled and e.pack is None)
    header = ["ID", "TOPIC", "KIND", "LEVEL", "TAGS", "TITLE"]
    rows = [[e.id, e.topic, e.kind, str(e.difficulty), ", ".join(e.tags), e.title]
            for e in entries]
    packs = {e.id: e.pack for e in entries if e.pack}
    if packs:  # the column only when a pack is installed
        header.append("PACK")
        for row, e in zip(rows, entries, strict=True):
            row.append(e.pack or "")
    # Tags and title wrap; on a narrow terminal the topic (the id's first part), the
    # level and the kind give way.
    print(_table([header, *rows], wrap=(4, 5), drop=(1, 3, 2)))
    from_packs = ""
    if packs:
        names = sorted(set(packs.values()))
        from_packs = f", {len(packs)} from packs: {', '.join(names)}"
    print(f"\n{plural(len(rows), 'template')} ({mine} from your folders{from_packs})")
    return 0


Flat = str | int | bool | None | list[str]


def pretty_json(rows: Sequence[dict[str, Flat]]) -> str:
    """``json.dumps(rows, indent=2)``, the same text, for rows of flat fields.

    json's indented output runs in pure Python (0.2 s for 6,500 templates, as much as
    everything else ``templates list --json`` does); this one writes the same layout
    with json's C string encoder.

    >>> print(pretty_json([{"id": "a/b", "tags": ["x"], "pack": None}]))
    [
      {
        "id": "a/b",
        "tags": [
          "x"
        ],
        "pack": null
      }
    ]
    """
    from json.encoder import encode_basestring_ascii as text

    def value(v: Flat) -> str:
        if isinstance(v, str):
            return text(v)
        if isinstance(v, list):
            return "[\n" + ",\n".join(f"      {text(x)}" for x in v) + "\n    ]" if v \
                else "[]"
        if v is None:
            return "null"
        if isinstance(v, bool):
            return "true" if v else "false"
        return int.__repr__(v)

    if not rows:
        return "[]"
    return "[\n" + ",\n".join(
        "  {\n" + ",\n".join(f"    {text(k)}: {value(v)}" for k, v in row.items()) + "\n  }"
        if row else "  {}" for row in rows) + "\n]"


def _table(rows: Sequence[Sequence[str]], right: Iterable[int] = (),
           wrap: Iterable[int] | None = None, drop: Sequence[int] = ()) -> str:
    """Rows of cells as aligned columns, fitted to the terminal (see commands.table)."""
    from quiz.commands.table import render_table, terminal_width

    return render_table(rows, right=right, wrap=wrap, drop=drop, width=terminal_width())


def _show(args: argparse.Namespace) -> int:
    from questions.variants import parse_variant_id

    tid, _ = parse_variant_id(args.id)
    source = Path(_catalog(args).entry(tid).file)  # LookupError for an unknown id
    # The location is a TOML comment, so `show ID > copy.toml` is still a template.
    from questions.loader import read_template_text

    text = read_template_text(source)  # TemplateFileError (a ValueError): one line
    print(f"# {tid}: {source}")
    sys.stdout.write(text)
    return 0


def _schema(args: argparse.Namespace) -> int:
    from questions.schema import Template

    if args.markdown:
        from questions.reference import reference_markdown

        print(reference_markdown(), end="")
    else:
        from questions.fielddocs import json_schema

        print(json.dumps(json_schema(Template, by_alias=True), indent=2))
    return 0


# ---------------------------------------------------------------- new


def _new(args: argparse.Namespace) -> int:
    from questions.scaffold import check_id, scaffold
    from quiz.commands.common import catalog

    check_id(args.id)
    folder = Path(args.dir).expanduser() if args.dir else _user_dir(args)
    path = (folder / f"{args.id}.toml").absolute()
    if path.exists():
        raise UsageError(f"{path} already exists; choose another id or move that file")
    known = catalog(args, warn=False).entries.get(args.id)
    taken = known.file if known else None
    if taken:
        raise UsageError(f"the id {args.id!r} is taken by {taken}; choose another id")
    text = scaffold(args.id, str(path))
    if args.dir:
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = 0o666  # the user's own folder: the umask decides
    else:  # inside the data folder: private, like everything there
        from questions.private import FILE_MODE, private_folder
        from quiz import locations

        locations.claim(folder.parent)
        private_folder(path.parent)
        mode = FILE_MODE
    # O_EXCL: never overwrite, even in a race (and never through a link).
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    with open(fd, "w", encoding="utf-8") as out:
        out.write(text)
    print(path)
    return 0


# ---------------------------------------------------------------- validate


def _expand(paths: Sequence[str]) -> tuple[list[Path], list[Checked]]:
    """Files as given, and the .toml files inside folders (recursively); a folder that
    cannot be read is a result with a problem.

    Raises:
        UsageError: nothing to check at all.
    """
    from questions.loader import scan_folder
    from quiz.core.authoring import Checked

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
        raise UsageError(f"no .toml files in {', '.join(paths)}")
    return out, unreadable


def _ids_to_paths(args: argparse.Namespace) -> list[str]:
    """``quiz templates test`` takes template ids as well as paths: an argument that is
    no file or folder but a loaded template's id stands for that template's file.

    Raises:
        UsageError: an argument is neither, with the closest id.
    """
    if all(Path(raw).expanduser().exists() or raw.endswith(".toml") for raw in args.paths):
        return list(args.paths)
    import difflib

    from quiz.commands.common import bank as load

    bank = load(args, warn=False)
    out = []
    for raw in args.paths:
        if Path(raw).expanduser().exists() or raw.endswith(".toml"):
            out.append(raw)
        elif raw in bank.sources:
            out.append(str(bank.sources[raw]))
        else:
            close = difflib.get_close_matches(raw, sorted(bank.templates), n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise UsageError(f"{raw!r} is neither a template file or folder nor a "
                             f"template id{hint}")
    return out


def _validate(args: argparse.Namespace) -> int:
    from quiz.commands.common import template_dirs
    from quiz.core.authoring import add_duplicates, check_file, loaded_ids

    files, unreadable = _expand(args.paths)
    results = unreadable + [check_file(path, args.seeds) for path in files]
    add_duplicates(results, loaded_ids(template_dirs(args)))
    bad = 0
    for r in results:
        for warning in r.warnings:
            print(warning)
        if r.problems:
            bad += 1
            for problem in r.problems:
                print(problem)
        else:
            print(f"{r.source}: ok ({r.name}, {r.seeds} seeds, {r.checks} checks)")
    if len(results) > 1:
        print(f"{plural(len(results), 'file')}, {bad} with problems")
    return 1 if bad else 0


# ---------------------------------------------------------------- test


def _test(args: argparse.Namespace) -> int:
    from quiz.core.authoring import Checked
    from quiz.core.checkpool import Job, check_all, default_workers

    results: list[Checked] = []  # files that did not load come first, as found
    bank = None
    if args.paths:
        files, results = _expand(_ids_to_paths(args))
        jobs = [Job(str(path), cost=_cost(str(path))) for path in files]
    else:
        from quiz.commands.common import bank as load

        bank = load(args, warn=False)
        for problem in bank.problems:
            results.append(Checked(Path(problem.file).name, problem.file, 0,
                                   problems=[problem]))
        jobs = [Job(bank.sources[tid], tid, _cost(bank.sources[tid], s.kind), _body(s))
                for tid in sorted(bank.templates) for s in [bank.summaries[tid]]]
    results += check_all(jobs, args.seeds, args.workers or default_workers(), bank,
                         _reload(args) if bank is not None else None)
    if args.paths:  # the whole bank's duplicates are among its problems already
        from quiz.commands.common import template_dirs
        from quiz.core.authoring import add_duplicates, loaded_ids

        add_duplicates(results, loaded_ids(template_dirs(args)))
    rows = [[r.name, str(r.seeds), f"{r.passed}/{r.checks}", str(len(r.problems))]
            for r in results]
    print(_table([["TEMPLATE", "SEEDS", "PASSED", "FAILURES"], *rows], right=(1, 2, 3)))
    failures = [p for r in results for p in r.problems]
    warnings = [w for r in results for w in r.warnings]
    quiet = 0
    if not args.paths:  # the whole bank: the bundled templates' warnings as a count
        from questions.loader import bundled_files

        bundled = {str(p) for p in bundled_files()}
        quiet = sum(1 for w in warnings if w.file in bundled)
        warnings = [w for w in warnings if w.file not in bundled]
    if warnings:
        print("\nWarnings (they do not fail the test):")
        for w in warnings:
            print(w)
    if quiet:
        print(f"\n{plural(quiet, 'warning')} in the bundled bank (quiz templates validate "
              "FILE shows a template's)")
    if failures:
        print("\nFailures:")
        for p in failures:
            print(p)
    checks = sum(r.checks for r in results)
    passed = sum(r.passed for r in results)
    print(f"\n{plural(len(results), 'template')}, {passed} of {checks} checks passed, "
          f"{plural(len(failures), 'failure')}")
    return 1 if failures else 0


def _cost(source: str, kind: str = "") -> float:
    """A template's guessed share of the self-test: its size (parts, mistakes and texts
    to check), four times over for a layout answer (a search over layouts per draw)."""
    try:
        size = Path(source).stat().st_size
    except OSError:
        return 0.0
    from questions.kinds import kind_of

    return size * (4 if kind and kind_of(kind).searches_layout else 1)


def _body(s: Summary) -> str:
    """What copies of one template body (equal but for the id) have in common, read
    from the bank's summaries without validating anything: the self-test's workers
    get one such group each (:attr:`quiz.core.checkpool.Job.group`). Two bodies that
    share it only share a worker, never a finding (:class:`quiz.core.selftest.Bodies`
    compares whole bodies)."""
    return repr((s.title, s.topic, s.kind, s.difficulty, list(s.tags)))


def _reload(args: argparse.Namespace) -> Callable[[], Bank]:
    """Loads the bank as :func:`quiz.commands.common.bank` did, in a spawned worker."""
    from functools import partial

    from questions.catalog import load_bank
    from quiz.commands.common import bank_cache, template_dirs

    return partial(load_bank, template_dirs(args), cache=bank_cache(args))


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
    from quiz.core.kinds import key_text, kind_of
    from solver.units import format_value

    spec, key = pv.spec, pv.key
    lines = [textwrap.fill(line, 88) if line.strip() else "" for line in pv.prompt.splitlines()]
    lines += kind_of(pv.kind).prompt_lines(pv)
    lines.append("")
    extra = ""
    if key.value is not None and key.unit:
        unit = "" if key.unit == "1" else f" {key.unit}"  # a ratio or count has no unit
        graded = kind_of(pv.kind).tolerance_words(pv)
        extra = f"   ({key.value:.6g}{unit}, {graded})"
    lines += [f"Answer kind: {pv.kind}", f"Key: {key_text(pv)}{extra}"]
    for acc in pv.accepted:
        lines.append(f"Also accepted ({acc.name}): {format_value(acc.value, key.unit or '1')}")
    if pv.follow is not None:
        carried = ", ".join(f"part {c.part} ({c.name})" for c in pv.follow.carried)
        lines.append(f"Follows through from {carried}: an answer right from the learner's "
                     f"own earlier answers earns {pv.follow.credit:g}")
    if pv.mistakes:
        lines.append("Known mistakes:")
        rows = []
        from questions.kinds import kind_of as question_kind
        from questions.variants import mistake_figure

        for m in pv.mistakes:
            # an amount as its feedback's {mistake} shows it; anything else as typed
            if question_kind(pv.kind).mistake_value(m) is not None:
                shown = mistake_figure(spec, key, m)
            else:
                shown = kind_of(pv.kind).mistake_answer(pv, m) or "-"
            rows.append([f"  {m.name}", shown, f"credit {m.credit:g}"])
        lines.append(_table(rows, wrap=(1,)))
        lines.append("Feedback of each known mistake (as a learner who makes it reads it):")
        for m in pv.mistakes:
            lines.append(textwrap.fill(f"{m.name}: {m.feedback}", 88, initial_indent="  ",
                                       subsequent_indent="    "))
    for i, h in enumerate(spec.hints, 1):
        lines.append(f"Hint {i} (costs {h.cost:g}): {h.text}")
    lines += ["", "Explanation:"]
    from questions.derivation import explanation_of

    lines += [f"  {line}" for line in explanation_of(pv).splitlines()]
    lines.append("")
    return lines
