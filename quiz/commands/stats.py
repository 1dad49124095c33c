"""`quiz stats`: attempts, accuracy by topic and rapid-fire item, streak."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from quiz.core.learn import Progress
    from quiz.core.store import Store


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
        learn = _learn(args, store)
    for problem in stats["unreadable"]:
        print(f"warning: {path}: {problem}; left out of the statistics", file=sys.stderr)
    if args.json:
        print(json.dumps({**stats, "learn": {p.group: p.to_json() for p in learn}},
                         indent=2, default=str))
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
    walked = [p for p in learn if p.walked]
    if walked:
        print("Learn mode (templates answered right cold after a walk-through):")
        for p in walked:
            print(f"  {p.group:<15} {p.learned} of {p.templates} learned, "
                  f"{p.walked} walked through")
    weakest = stats["weakest_templates"]
    if weakest:
        print("Weakest templates:")
        for w in weakest:
            print(f"  {w['template_id']:<40} mean score {w['mean_score']:.2f} over "
                  f"{w['attempts']}")
    return 0


def _learn(args: argparse.Namespace, store: Store) -> list[Progress]:
    """Learn-mode progress per rapid-fire item and topic, from the template catalog (the
    cached ids, topics and tags: no template is compiled, no sympy imported)."""
    from quiz.commands.common import catalog
    from quiz.core.learn import progress_in

    entries = catalog(args, warn=False).entries.values()
    return progress_in(store, [(e.id, e.topic, e.tags) for e in entries])
