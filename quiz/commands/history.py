"""`quiz history export|import`: move your history between machines or into a spreadsheet.

The file formats and the merge rules live in :mod:`quiz.core.portable`; this module only
reads arguments, files and prints one-line results.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def add_parser(sub: Any) -> None:
    """Register `quiz history ...` on the top-level subparsers."""
    h = sub.add_parser("history", help="export or import your history (JSON or CSV)",
                       description="Export every attempt (template, version, seed, answer, "
                       "verdict, score, time, named mistake) to a file, or merge such a file "
                       "into this history.")
    actions = h.add_subparsers(dest="action", parser_class=type(h), metavar="ACTION")
    e = actions.add_parser("export", help="write the whole history to a file or stdout",
                           description="Write every attempt to JSON (with mock sessions) or "
                           "CSV (one row per attempt, for spreadsheets).")
    e.add_argument("--format", choices=("json", "csv"), default=None,
                   help="file format (default: from --out's extension, else json)")
    e.add_argument("--out", metavar="FILE", help="write here instead of stdout")
    i = actions.add_parser("import", help="merge an exported history into this one",
                           description="Merge a history file into this history: rows are "
                           "validated first, attempts already present are skipped, a backup "
                           "is taken first, and spaced-repetition cards are rebuilt from the "
                           "merged review log.")
    i.add_argument("file", metavar="FILE", help="a file written by quiz history export")
    i.add_argument("--format", choices=("json", "csv"), default=None,
                   help="file format (default: guessed from the content)")


def _format_for(path: str | None, given: str | None) -> str:
    if given is not None:
        return given
    return "csv" if path is not None and path.lower().endswith(".csv") else "json"


def run(args: argparse.Namespace) -> int:
    """Run `quiz history ACTION`; returns the exit code."""
    if args.action == "export":
        return _export(args)
    if args.action == "import":
        return _import(args)
    sys.stderr.write("quiz: history needs an action: export or import "
                     "(see quiz history --help)\n")
    return 2


def _open_store(args: argparse.Namespace) -> Any:
    from quiz import locations
    from quiz.core.store import Store

    return Store.open(locations.db_path(locations.data_dir(args.data_dir)))


def _export(args: argparse.Namespace) -> int:
    from quiz.core.portable import export_history

    fmt = _format_for(args.out, args.format)
    with _open_store(args) as store:
        text = export_history(store, fmt)
    if args.out is None:
        sys.stdout.write(text)
        return 0
    out = Path(args.out)
    try:
        out.write_text(text, encoding="utf-8", newline="")
    except OSError as exc:
        sys.stderr.write(f"quiz: {out}: cannot write: {exc.strerror or exc}\n")
        return 2
    count = max(0, text.count("\n") - 1) if fmt == "csv" else text.count('"template":')
    print(f"Exported {count} attempt(s) to {out} ({fmt}).")
    return 0


def _import(args: argparse.Namespace) -> int:
    from quiz import locations
    from quiz.core.portable import backup_before_import, import_history, parse

    path = Path(args.file)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        sys.stderr.write(f"quiz: {path}: no such file\n")
        return 2
    except IsADirectoryError:
        sys.stderr.write(f"quiz: {path}: is a folder, not a history file\n")
        return 2
    except UnicodeDecodeError:
        sys.stderr.write(f"quiz: {path}: not a text file (not UTF-8): not a history file\n")
        return 2
    except OSError as exc:
        sys.stderr.write(f"quiz: {path}: cannot read: {exc.strerror or exc}\n")
        return 2
    history = parse(text, args.format, source=str(path))  # HistoryFileError: one line
    folder = locations.data_dir(args.data_dir)
    with _open_store(args) as store:
        backup = backup_before_import(store, locations.backups_dir(folder))
        result = import_history(store, history)
    print(f"Imported {result.added} new attempt(s) from {path}; {result.already} were "
          f"already here. Spaced-repetition cards rebuilt ({result.cards}). "
          f"Backup of the history before the import: {backup}")
    return 0
