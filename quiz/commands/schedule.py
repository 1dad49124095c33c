"""`quiz schedule optimize|leeches|unsuspend`: the daily drill's scheduler and its leeches.

The fitting, the figures and the leech rule live in :mod:`quiz.core.optimizer`; this
module reads arguments and prints results.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from quiz.commands.common import open_store

if TYPE_CHECKING:
    pass


def add_parser(sub: Any) -> None:
    """Register `quiz schedule ...` on the top-level subparsers."""
    s = sub.add_parser("schedule",
                       description="Fit the spaced-repetition scheduler (FSRS) to your own "
                       "reviews, and list or bring back the leeches it suspended.")
    actions = s.add_subparsers(dest="action", parser_class=type(s), metavar="ACTION")
    o = actions.add_parser("optimize", help="fit FSRS to your reviews; show the gain",
                           description="Fit FSRS's parameters to your review log and show "
                           "log loss and RMSE on the newest fifth of your reviews (held out "
                           "of the fit), before and after. The fitted parameters are used "
                           "from the next review when they predict better.")
    o.add_argument("--reset", action="store_true",
                   help="put FSRS's default parameters back instead of fitting")
    o.add_argument("--json", action="store_true", help="machine-readable output")
    le = actions.add_parser("leeches", help="templates suspended as leeches",
                            description="List the templates suspended from the daily drill "
                            "because they were forgotten again and again (8 lapses).")
    le.add_argument("--json", action="store_true", help="machine-readable output")
    u = actions.add_parser("unsuspend", help="bring suspended leeches back into the drill")
    u.add_argument("template", nargs="*", metavar="TEMPLATE_ID",
                   help="the templates to bring back")
    u.add_argument("--all", action="store_true", help="bring every suspended one back")


def run(args: argparse.Namespace) -> int:
    """Run `quiz schedule ACTION`; returns the exit code."""
    if args.action == "optimize":
        return _optimize(args)
    if args.action == "leeches":
        return _leeches(args)
    if args.action == "unsuspend":
        return _unsuspend(args)
    sys.stderr.write("quiz: schedule needs an action: optimize, leeches or unsuspend "
                     "(see quiz schedule --help)\n")
    return 2


def _optimize(args: argparse.Namespace) -> int:
    from quiz.core.optimizer import DEFAULT_PARAMETERS, optimize, parameters_in_force, reset

    with open_store(args) as store:
        if args.reset:
            before, problem = parameters_in_force(store)
            reviews, scored_before, scored_after = reset(store)
            if args.json:
                print(json.dumps({
                    "reviews": reviews,
                    "before": scored_before.to_json() if scored_before else None,
                    "after": scored_after.to_json() if scored_after else None,
                    "parameters": list(DEFAULT_PARAMETERS), "reset": True}, indent=2))
                return 0
            print("The scheduler uses FSRS's default parameters again"
                  + (" (they were already in force)." if before == DEFAULT_PARAMETERS
                     and problem is None else "."))
            if scored_before is not None and scored_after is not None:
                print(f"  held-out log loss {scored_before.log_loss:.4f} -> "
                      f"{scored_after.log_loss:.4f}, RMSE {scored_before.rmse:.4f} -> "
                      f"{scored_after.rmse:.4f}")
            return 0
        _, problem = parameters_in_force(store)
        if problem is not None:
            print(f"warning: {store.path}: {problem}", file=sys.stderr)
        result = optimize(store)
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
        return 0
    b, a = result.before, result.after
    print(f"Fitted FSRS to {result.reviews} reviews; scored on the newest {result.held_out}, "
          "held out of the fit:")
    print(f"  log loss  {b.log_loss:.4f} -> {a.log_loss:.4f}   (lower is better)")
    print(f"  RMSE      {b.rmse:.4f} -> {a.rmse:.4f}")
    if result.applied:
        print("The fitted parameters are in force from the next review "
              "(quiz schedule optimize --reset puts the defaults back).")
    else:
        print("They predict no better than the parameters in force, which stay.")
    return 0


def _leeches(args: argparse.Namespace) -> int:
    from quiz.core.clock import from_utc_text

    with open_store(args) as store:
        suspended = store.suspended()
    if args.json:
        print(json.dumps([{"template": t, "lapses": n, "suspended_at": at}
                          for t, (at, n) in suspended.items()], indent=2))
        return 0
    if not suspended:
        print("No leeches: no template has been forgotten 8 times.")
        return 0
    print("Suspended from the daily drill (forgotten again and again); "
          "quiz schedule unsuspend TEMPLATE_ID brings one back:")
    for t, (at, n) in suspended.items():
        try:
            when = f"{from_utc_text(at):%Y-%m-%d}"
        except (ValueError, TypeError, OverflowError):
            when = "?"
        print(f"  {t:<40} {n} lapses, since {when}")
    return 0


def _unsuspend(args: argparse.Namespace) -> int:
    from quiz.core.errors import UsageError

    if not args.template and not args.all:
        raise UsageError("name the templates to bring back, or --all "
                         "(quiz schedule leeches lists them)")
    with open_store(args) as store:
        suspended = store.suspended()
        wanted = list(suspended) if args.all else list(dict.fromkeys(args.template))
        unknown = [t for t in wanted if t not in suspended]
        if unknown:
            raise UsageError(f"not suspended: {', '.join(map(repr, unknown))[:200]} "
                             "(quiz schedule leeches lists the suspended ones)")
        for t in wanted:
            store.unsuspend(t)
    if not wanted:
        print("No leeches were suspended.")
    else:
        print(f"Back in the daily drill: {', '.join(wanted)}.")
    return 0
