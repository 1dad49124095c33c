"""`quiz mistakes` and `quiz flags`: what you got wrong, and what you reported."""

from __future__ import annotations

import argparse
import json
import shutil
import textwrap
from typing import Any

from quiz.commands.common import open_store


def add_parser(sub: Any) -> None:
    """Register `mistakes` and `flags`."""
    from quiz.commands.args import whole

    m = sub.add_parser("mistakes")
    m.add_argument("topic", nargs="?", help="only this topic, tag (rapid-fire-3) or id prefix")
    m.add_argument("--limit", type=whole(1, 10_000), default=50,
                   help="at most this many (default 50)")
    m.add_argument("--json", action="store_true", help="machine-readable output")
    f = sub.add_parser("flags")
    f.add_argument("--json", action="store_true", help="machine-readable output")


def run(args: argparse.Namespace) -> int:
    """Print the mistakes or the flags (JSON with --json)."""
    if args.command == "flags":
        return _flags(args)
    return _mistakes(args)


def _flags(args: argparse.Namespace) -> int:
    from quiz.core.words import plural

    with open_store(args) as store:
        flags = store.flags()
    if args.json:
        print(json.dumps([{"template": f.template_id, "seed": f.seed, "variant": f.variant,
                           "part": f.part, "template_version": f.template_version,
                           "reason": f.reason, "note": f.note,
                           "flagged_at": f.flagged_at.isoformat(),
                           "attempt_id": f.attempt_id} for f in flags], indent=2))
        return 0
    if not flags:
        print("No flags yet. In the app, Ctrl+F flags a question as wrong or unclear.")
        return 0
    width = shutil.get_terminal_size((100, 24)).columns
    print(f"{plural(len(flags), 'flag')}, newest first:")
    for f in flags:
        part = f" part {f.part}" if f.part > 1 else ""
        print(f"  {f.flagged_at:%Y-%m-%d %H:%M}  {f.reason:<7}  {f.variant}{part}"
              f"  (v{f.template_version})")
        if f.note:
            print(textwrap.fill(f.note, width=max(40, width - 2), initial_indent="      ",
                                subsequent_indent="      "))
    return 0


def _mistakes(args: argparse.Namespace) -> int:
    from quiz.commands.common import bank
    from quiz.core.mistakes import by_mistake, by_topic, leeches, mistakes
    from quiz.core.words import plural

    loaded = bank(args)
    with open_store(args) as store:
        entries = mistakes(store, loaded, topic=args.topic, limit=args.limit)
        leech_ids = leeches(store)
    if args.json:
        print(json.dumps({"mistakes": [m.to_json() for m in entries],
                          "by_mistake": dict(by_mistake(entries)),
                          "leeches": leech_ids}, indent=2))
        return 0
    if not entries:
        where = f" in {args.topic}" if args.topic else ""
        print(f"No mistakes{where} yet.")
        return 0
    width = max(40, shutil.get_terminal_size((100, 24)).columns - 6)
    named = by_mistake(entries)
    print(f"{plural(len(entries), 'answer')} not fully right, newest first.")
    if named:
        print("Named mistakes: " + ", ".join(f"{name} ({n})" for name, n in named))
    if leech_ids:
        print("Leeches (missed again and again; practise them with "
              f"`quiz practice ID`): {', '.join(leech_ids)}")
    for topic, group in by_topic(entries).items():
        print(f"\n{topic}")
        for m in group:
            a = m.attempt
            part = f" part {m.part}" if m.part > 1 else ""
            marks = (" [leech]" if m.leech else "") + (" [template changed]" if m.stale else "")
            print(f"  {a.answered_at:%Y-%m-%d}  {m.variant}{part}  {a.verdict}"
                  f"{' — ' + a.mistake if a.mistake else ''}{marks}")
            print(f"      you: {m.yours}   key: {m.shown_key}")
            for line in textwrap.wrap(m.feedback, width):
                print(f"      {line}")
            print(f"      retry: quiz ask {m.variant}")
    return 0
