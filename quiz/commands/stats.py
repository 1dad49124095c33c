"""`quiz stats`: attempts, accuracy by topic and rapid-fire item, streak."""

from __future__ import annotations

import argparse
import json
import sys


def run(args: argparse.Namespace) -> int:
    """Print the history's statistics (JSON with --json)."""
    from quiz import locations
    from quiz.core.store import Store
    from quiz.core.words import plural

    folder = locations.data_dir(args.data_dir)
    path = locations.db_path(folder)
    with Store.open(path) as store:
        if store.recovery_message:  # say so, or "0 attempts" would look like a loss
            print(f"warning: {store.recovery_message}", file=sys.stderr)
        stats = store.stats()
    for problem in stats["unreadable"]:
        print(f"warning: {path}: {problem}; left out of the statistics", file=sys.stderr)
    if args.json:
        print(json.dumps(stats, indent=2, default=str))
        return 0
    total = stats["attempts"]
    if not total:
        print("No attempts yet. Start with `quiz drill`.")
        return 0
    print(f"{plural(total, 'attempt')}, {stats['correct']} correct "
          f"({stats['correct'] / total:.0%}); streak {plural(stats['streak_days'], 'day')}")
    print("By topic:")
    for topic, g in sorted(stats["by_topic"].items()):
        print(f"  {topic:<15} {plural(g['attempts'], 'attempt'):>13}  {g['accuracy']:>5.0%} "
              "correct  "
              f"mean score {g['mean_score']:.2f}")
    weakest = stats["weakest_templates"]
    if weakest:
        print("Weakest templates:")
        for w in weakest:
            print(f"  {w['template_id']:<40} mean score {w['mean_score']:.2f} over "
                  f"{w['attempts']}")
    return 0
