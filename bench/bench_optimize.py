"""`quiz schedule optimize` on a 100,000-review history: time to fit (goal <= 30 s).

Builds the synthetic learner's review log of the unit tests (``tests/unit/learner.py``:
a known forgetting curve, reviews when the default scheduler puts them) in a temp
history, in shapes of 100,000 reviews (the fit's cost grows with the square of a
template's reviews, since each prediction replays the reviews before it):

- ``wide``: 5,000 templates x 20 reviews (a big bank drilled for a few years);
- ``deep``: 2,000 templates x 50 reviews (about as many as one template gets: intervals
  grow, and 8 lapses suspend it as a leech);
- ``long``: 400 templates x 250 reviews, a worst case the drill does not produce (only
  with ``--shapes long``).

Per shape and round, in this process:

- baseline: reading the review log and scoring the defaults on every later-day review
  once (``histories`` + one fsrs-rs ``evaluate``): a single pass over the same data;
- optimize: the whole of :func:`quiz.core.optimizer.optimize` (read, split, fit, score
  before and after, store).

Prints min / median per shape, the ratio optimize / baseline, and whether the median
meets the goal. Asserts nothing.

Run: python bench/bench_optimize.py [--rounds N] [--shapes wide deep long]

Measured 2026-12-01 on the shared 2-core machine (load average 8-10), medians of 2
rounds: wide 7.1 s (1.8x baseline), deep 9.9 s (2.1x); long 56-85 s under that load
(its fit alone took 15 s on a quieter machine).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import UTC
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "unit"))

from learner import synthetic_reviews

from quiz.core.clock import to_utc_text
from quiz.core.optimizer import (
    DEFAULT_PARAMETERS,
    _evaluate,
    _items,
    histories,
    optimize,
)
from quiz.core.store import Store

SHAPES = {"wide": (5_000, 20), "deep": (2_000, 50), "long": (400, 250)}
GOAL = 30.0


def build(path: Path, templates: int, each: int) -> int:
    """Write the learner's log straight into a fresh history; return its size."""
    reviews = synthetic_reviews(templates, each, seed=1)
    with Store.open(path, tz=UTC) as store, store.batch():
        conn = store._conn
        conn.executemany(
            "INSERT INTO review_log (template_id, rating, state_before, reviewed_at) "
            "VALUES (?, ?, ?, ?)",
            [(r.template_id, r.rating, r.state_before,
              to_utc_text(r.reviewed_at)) for r in reviews])
    return len(reviews)


def baseline(store: Store) -> float:
    start = time.perf_counter()
    hs = histories(store.review_rows(), store.tz)
    _evaluate(DEFAULT_PARAMETERS, _items(hs, None, held_out=False))
    return time.perf_counter() - start


def fit(store: Store) -> float:
    store.set_fsrs_parameters(None)  # every round fits against the defaults
    start = time.perf_counter()
    optimize(store)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--shapes", nargs="+", choices=sorted(SHAPES), default=["wide", "deep"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for shape in args.shapes:
            templates, each = SHAPES[shape]
            path = Path(tmp) / f"{shape}.db"
            n = build(path, templates, each)
            base: list[float] = []
            opt: list[float] = []
            with Store.open(path, tz=UTC) as store:
                for _ in range(args.rounds):  # alternate, so load spikes hit both
                    base.append(baseline(store))
                    opt.append(fit(store))
            b, o = statistics.median(base), statistics.median(opt)
            print(f"{shape:>5}: {n:,} reviews ({templates:,} templates x {each})")
            print(f"       baseline (read + score once)  min {min(base):6.2f} s  "
                  f"median {b:6.2f} s")
            print(f"       optimize                      min {min(opt):6.2f} s  "
                  f"median {o:6.2f} s  = {o / b:5.1f}x baseline  "
                  f"goal <= {GOAL:.0f} s: {'met' if o <= GOAL else 'MISSED'}")


if __name__ == "__main__":
    main()
