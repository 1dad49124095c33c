"""`quiz export anki`: the bank's seeded variants as an Anki deck (see quiz.core.anki)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from quiz.commands.args import out_file, whole
from quiz.commands.common import bank


def add_parser(sub: Any) -> None:
    """Register `quiz export ...` on the top-level subparsers."""
    e = sub.add_parser("export",
                       description="Export seeded question variants to other study tools.")
    kinds = e.add_subparsers(dest="target", parser_class=type(e), metavar="TARGET")
    a = kinds.add_parser(
        "anki", help="an .apkg deck: N variants per template, key and derivation on the back",
        description="Write an Anki deck (.apkg): for each template, variants at seeds 0..N-1. "
        "The front shows the prompt, its parameters and TEMPLATE_ID#SEED; the back the key, "
        "the accepted range, the worked derivation and the named mistakes. Cards are tagged "
        "by topic and rapid-fire item. Re-importing a newer deck updates the same notes.")
    a.add_argument("--out", metavar="FILE", default="quiz.apkg", type=out_file,
                   help="the deck file to write, a new or regular file replaced whole "
                   "(default: quiz.apkg); - writes it to stdout")
    a.add_argument("--variants", type=whole(1, 1000), default=5, metavar="N",
                   help="variants per template (default 5)")
    a.add_argument("--topic", action="append", default=[], help="only this topic (repeatable)")
    a.add_argument("--tag", action="append", default=[],
                   help="only templates with this tag, e.g. rapid-fire-3 (repeatable)")
    a.add_argument("--template", action="append", default=[], metavar="ID",
                   help="only this template id or id prefix, e.g. memory/ (repeatable)")


def run(args: argparse.Namespace) -> int:
    """Run `quiz export TARGET`; returns the exit code."""
    if args.target != "anki":
        sys.stderr.write("quiz: export needs a target: anki (see quiz export --help)\n")
        return 2
    from quiz.core.anki import build_notes, select_templates, write_apkg, write_apkg_to
    from quiz.core.outputs import STDOUT, check_target

    to_stdout = args.out == STDOUT
    out = Path(args.out)
    if to_stdout and sys.stdout.isatty():
        sys.stderr.write("quiz: an .apkg deck is binary: redirect stdout to a file, "
                         "or name one with --out\n")
        return 2
    if not to_stdout:
        check_target(out)  # before the bank is built: a device or folder is refused
    loaded = bank(args)
    ids = select_templates(loaded, topics=args.topic, tags=args.tag, templates=args.template)
    notes, skipped = build_notes(loaded, ids, args.variants)
    for s in skipped:
        print(f"warning: skipped {s.variant}: {s.reason}", file=sys.stderr)
    if to_stdout:
        write_apkg_to(notes, sys.stdout.buffer)
        sys.stdout.flush()
        return 0
    write_apkg(notes, out)  # OutputError: one line and exit 2
    print(f"Wrote {len(notes)} cards ({len(ids)} templates x {args.variants} variants) to "
          f"{out}. Import it in Anki with File > Import.")
    return 0
