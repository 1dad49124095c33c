"""`quiz history export|import`: move your history between machines or into a spreadsheet.

The file formats and the merge rules live in the store package
(:mod:`quiz.core.store.fileformat` and its neighbours); this module only reads
arguments, files and prints one-line results.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from quiz.commands.args import out_file


def add_parser(sub: Any) -> None:
    """Register `quiz history ...` on the top-level subparsers."""
    h = sub.add_parser("history",
                       description="Export every attempt (template, version, seed, answer, "
                       "verdict, score, time, named mistake) to a file, or merge such a file "
                       "into this history.")
    actions = h.add_subparsers(dest="action", parser_class=type(h), metavar="ACTION")
    e = actions.add_parser("export", help="write the whole history to a file or stdout",
                           description="Write every attempt to JSON (with mock sessions) or "
                           "CSV (one row per attempt, for spreadsheets).")
    e.add_argument("--format", choices=("json", "csv"), default=None,
                   help="file format (default: from --out's extension, else json)")
    e.add_argument("--out", metavar="FILE", type=out_file,
                   help="write here (a new or regular file, replaced whole) instead of "
                   "stdout; - is stdout")
    i = actions.add_parser("import", help="merge an exported history into this one",
                           description="Merge a history file into this history: rows are "
                           "validated first, attempts already present are skipped, a backup "
                           "is taken first, and spaced-repetition cards are rebuilt from the "
                           "merged review log.")
    i.add_argument("file", metavar="FILE", help="a file written by quiz history export")
    i.add_argument("--format", choices=("json", "csv"), default=None,
                   help="file format (default: guessed from the content)")
    r = actions.add_parser("restore", help="list the backups, or make one the history",
                           description="With no BACKUP, list the backups (daily ones and "
                           "those taken before an import). With one, check it, move the "
                           "current history (and its -wal/-shm files) aside, and put the "
                           "backup in its place. Close quiz everywhere else first.")
    r.add_argument("backup", nargs="?", metavar="BACKUP",
                   help="a backup's name or date as listed, or the path of a history file")


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
    if args.action == "restore":
        return _restore(args)
    sys.stderr.write("quiz: history needs an action: export, import or restore "
                     "(see quiz history --help)\n")
    return 2


def _open_store(args: argparse.Namespace) -> Any:
    from quiz import locations
    from quiz.core.store import Store

    return Store.open(locations.db_path(locations.data_dir(args.data_dir)))


def _export(args: argparse.Namespace) -> int:
    from quiz.core.outputs import STDOUT, check_target, replacing
    from quiz.core.store.writer import write_history

    fmt = _format_for(args.out, args.format)
    if args.out is None or args.out == STDOUT:
        with _open_store(args) as store:
            write_history(store, fmt, sys.stdout)  # streamed: any size, fixed memory
        return 0
    out = Path(args.out)
    check_target(out)  # before the history is opened: a device or folder is refused
    # Written beside the target and renamed (see quiz.core.outputs): a failed export (a
    # full disk, a refused row, Ctrl+C) leaves no half-written file under the name.
    with _open_store(args) as store, replacing(out) as partial, \
            partial.open("w", encoding="utf-8", newline="") as handle:
        count = write_history(store, fmt, handle)
    print(f"Exported {count} attempt(s) to {out} ({fmt}).")
    return 0


def _import(args: argparse.Namespace) -> int:
    import itertools

    from quiz import locations
    from quiz.core.clock import utc_now
    from quiz.core.store import pipeline
    from quiz.core.store.fileformat import HistoryFileError
    from quiz.core.store.merge import (
        backup_before_import,
        import_prepared,
        import_rows,
        latest_time,
    )
    from quiz.core.store.reader import ReadError, open_file
    from quiz.core.store.validate import read_rows

    path = Path(args.file)
    source = str(path)
    try:
        handle = open_file(path)  # a regular file only, and not too large
    except ReadError as exc:
        raise HistoryFileError(str(exc)) from None
    with handle:
        # About 200 bytes a row or more: enough to tell a big import from a small.
        expected = os.fstat(handle.fileno()).st_size // 200
        if expected >= pipeline.PIPE_ROWS:  # read and prepared by a second process
            child = pipeline.Child(handle, args.format, source, latest_time(utc_now()))
            with child:
                batches = iter(child)
                ahead = next(batches, None)  # the header and first rows checked first
                folder = locations.data_dir(args.data_dir)
                with _open_store(args) as store:
                    backup = backup_before_import(store, locations.backups_dir(folder))
                    try:
                        result = import_prepared(
                            store, itertools.chain([ahead] if ahead else [], batches),
                            source=source, expected=expected)
                    except BaseException:
                        backup.unlink(missing_ok=True)  # nothing changed
                        raise
        else:
            rows = read_rows(handle, args.format, source=source, fast=True)  # streamed
            first = next(rows, None)  # the header and first row checked before any backup
            folder = locations.data_dir(args.data_dir)
            with _open_store(args) as store:
                backup = backup_before_import(store, locations.backups_dir(folder))
                try:
                    result = import_rows(store, itertools.chain([first] if first else [],
                                                                rows),
                                         source=source, expected=expected)
                except BaseException:
                    backup.unlink(missing_ok=True)  # nothing changed: the copy is the history
                    raise
    print(f"Imported {result.added} new attempt(s) from {path}; {result.already} were "
          f"already here. Spaced-repetition cards rebuilt ({result.cards}). "
          f"Backup of the history before the import: {backup}")
    return 0


def _restore(args: argparse.Namespace) -> int:
    from datetime import UTC, datetime

    from quiz import locations
    from quiz.core.errors import StoreError
    from quiz.core.store import Store
    from quiz.core.store.recovery import backup_summary, restore_backup

    folder = locations.data_dir(args.data_dir)
    path = locations.db_path(folder)
    backups_dir = locations.backups_dir(folder)
    backups = sorted(backups_dir.glob("*.db")) if backups_dir.is_dir() else []
    if args.backup is None:
        if not backups:
            print(f"No backups in {backups_dir} yet (one is taken each day quiz starts).")
            return 0
        print(f"Backups in {backups_dir}:")
        for backup in backups:
            try:
                count, last = backup_summary(backup)
                about = f"{count} attempt(s), last {last[:16] if last else 'none'}"
            except StoreError as exc:
                about = f"unusable: {str(exc).removeprefix(f'{backup}: ')}"
            print(f"  {backup.name:<40} {about}")
        print("Restore one with: quiz history restore NAME")
        return 0
    wanted = args.backup
    matches = [b for b in backups if wanted in (b.name, b.stem)
               or b.stem.endswith(f"-{wanted}")]
    if len(matches) == 1:
        backup = matches[0]
    elif len(matches) > 1:
        raise StoreError(f"{wanted!r} matches several backups: "
                         f"{', '.join(b.name for b in matches)}")
    else:
        backup = Path(wanted).expanduser()
        if not backup.exists():
            raise StoreError(f"no backup named {wanted!r}; quiz history restore lists them")
    if backup.resolve() == path.resolve():
        raise StoreError(f"{backup} is the history itself; pick a backup")
    count, _ = backup_summary(backup)
    aside = restore_backup(path, backup, datetime.now(UTC))
    with Store.open(path) as store:  # migrates an older backup; proves it opens
        restored = store.count_attempts()
    print(f"Restored {backup.name}: {restored} attempt(s) (the backup had {count}).")
    if aside is not None:
        print(f"The history it replaced is kept as {aside}.")
    return 0
