"""FSRS fitted to this learner: ``quiz schedule optimize``, calibration, workload.

The daily drill starts with FSRS's published default parameters, which describe an
average Anki user. After enough reviews this learner's own forgetting can be fitted:
:func:`optimize` turns the review log into FSRS training items, fits the 21 FSRS-6
parameters with the maintained optimizer of ``fsrs-rs`` (the Rust crate Anki uses, via
``fsrs-rs-python``), and scores the parameters in force and the fitted ones on reviews
held out of the fit. The fitted parameters are kept in the history
(:meth:`Store.set_fsrs_parameters`) and every later review reads them
(:func:`scheduler_for`).

Conventions (named here, because the figures depend on them):

- **Items.** One card per template (see :mod:`quiz.core.schedule`). Every review of a
  template after its first is one prediction: FSRS, given the earlier reviews (their
  ratings and the days between them), predicts the chance of recall. ``delta_t`` is
  counted in local days of the store (``Store.tz``), as Anki counts them; a review on
  the same day as the one before (a learning step) is not a prediction of long-term
  recall and is neither counted nor scored, as in fsrs-rs.
- **Held out.** A split in time, not at random: the newest :data:`HELD_OUT` of the
  predicted reviews are scored, and only the older ones are fitted. A random split would
  let the fit see a template's later reviews while predicting its earlier ones.
- **Figures.** Log loss (mean negative log-likelihood of recall, lower is better) and
  RMSE over bins of predicted recall, both as fsrs-rs's ``evaluate`` computes them
  (Anki shows the same two).
- **Kept only if better.** The fitted parameters replace those in force only when their
  held-out log loss is lower; otherwise the old ones stay and the result says so.

What counts as a *lapse* and a *leech*: a review of a learned card (FSRS state Review)
rated Again is a lapse; a template reaching :data:`LEECH_LAPSES` lapses, and every
:data:`LEECH_LAPSES` // 2 more after that (Anki's rule), is suspended from the daily
drill until brought back (``quiz schedule unsuspend``, or the mistakes screen).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, tzinfo
from typing import TYPE_CHECKING, Any, Final

from quiz.core.clock import from_utc_text, local_day
from quiz.core.errors import UsageError

if TYPE_CHECKING:
    from fsrs import Scheduler

    from quiz.core.store import Store

__all__ = [
    "DEFAULT_PARAMETERS",
    "HELD_OUT",
    "LEECH_LAPSES",
    "MIN_REVIEWS",
    "RETENTION_RANGE",
    "CalibrationBin",
    "FitResult",
    "Metrics",
    "calibration",
    "forgetting_curve",
    "histories",
    "is_leech_at",
    "optimize",
    "parameters_in_force",
    "parse_parameters",
    "reset",
    "scheduler_for",
    "workload",
]

DEFAULT_PARAMETERS: Final[tuple[float, ...]] = (
    0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001, 1.8722, 0.1666, 0.796,
    1.4835, 0.0614, 0.2629, 1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658, 0.1542)
"""FSRS-6's published defaults (21 parameters; the same in the ``fsrs`` package and in
fsrs-rs; a test checks both)."""

MIN_REVIEWS: Final = 200
"""Predicted reviews (later-day reviews of a template seen before) needed to fit:
fewer leave too few held-out reviews (a fifth: 40) to tell two parameter sets apart."""

HELD_OUT: Final = 0.2
"""The newest share of the predicted reviews, scored and never fitted."""

LEECH_LAPSES: Final = 8
"""Lapses after which a template is suspended from the daily drill as a leech."""

RETENTION_RANGE: Final = (0.80, 0.97)
"""Desired retention the settings allow: below 0.80 reviews come too late to relearn
cheaply; above 0.97 the workload grows steeply for little more recall."""


@dataclass(frozen=True)
class Metrics:
    """How well a parameter set predicts held-out reviews."""

    log_loss: float
    """Mean negative log-likelihood of the outcomes (lower is better)."""
    rmse: float
    """RMSE between predicted and actual recall over bins (fsrs-rs's ``rmse_bins``)."""

    def to_json(self) -> dict[str, float]:
        """``{"log_loss", "rmse"}``, as ``quiz schedule optimize --json`` prints it."""
        return {"log_loss": self.log_loss, "rmse": self.rmse}


@dataclass(frozen=True)
class FitResult:
    """What :func:`optimize` did."""

    reviews: int
    """Predicted reviews in the history (the fit's and the held-out ones together)."""
    held_out: int
    """Of them, the newest ones scored and never fitted."""
    before: Metrics
    """The parameters in force before, on the held-out reviews."""
    after: Metrics
    """The fitted parameters, on the same reviews."""
    fitted: tuple[float, ...]
    """The fitted parameters."""
    applied: bool
    """Whether the fitted parameters are now in force (their log loss was lower)."""
    parameters: tuple[float, ...]
    """The parameters in force now."""

    def to_json(self) -> dict[str, Any]:
        """The contract of DESIGN.md plus ``held_out``, ``applied`` and ``fitted``."""
        return {"reviews": self.reviews, "held_out": self.held_out,
                "before": self.before.to_json(), "after": self.after.to_json(),
                "parameters": list(self.parameters), "applied": self.applied,
                "fitted": list(self.fitted)}


# ------------------------------------------------------------------ parameters


def parse_parameters(text: str | None) -> tuple[tuple[float, ...], str | None]:
    """Read stored parameters, falling back to the defaults when they are unusable.

    Args:
        text: The stored JSON text, or None (never fitted, or reset).

    Returns:
        The parameters to use, and None or a one-line reason why the stored ones were
        not usable (not JSON, not 21 finite numbers, out of FSRS's bounds).

    >>> parse_parameters(None)[0] == DEFAULT_PARAMETERS
    True
    >>> parse_parameters('[1, 2]')[1]
    'the stored FSRS parameters are not 21 numbers; using the defaults'
    """
    if text is None:
        return DEFAULT_PARAMETERS, None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return DEFAULT_PARAMETERS, "the stored FSRS parameters are not JSON; using the defaults"
    if not (isinstance(data, list) and len(data) == len(DEFAULT_PARAMETERS) and all(
            isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)
            for x in data)):
        return DEFAULT_PARAMETERS, ("the stored FSRS parameters are not "
                                    f"{len(DEFAULT_PARAMETERS)} numbers; using the defaults")
    parameters = tuple(float(x) for x in data)
    from fsrs import Scheduler

    try:
        Scheduler(parameters=parameters)  # checks each against FSRS's bounds
    except ValueError:
        return DEFAULT_PARAMETERS, ("the stored FSRS parameters are out of FSRS's bounds; "
                                    "using the defaults")
    return parameters, None


def parameters_in_force(store: Store) -> tuple[tuple[float, ...], str | None]:
    """The parameters the drill uses now, and why the stored ones were not usable (or
    None); see :func:`parse_parameters`."""
    return parse_parameters(store.fsrs_parameters())


def scheduler_for(store: Store, desired_retention: float = 0.9) -> Scheduler:
    """The FSRS scheduler of the daily drill: the parameters in force (fitted, or the
    defaults) at the desired retention (clamped into :data:`RETENTION_RANGE`)."""
    from fsrs import Scheduler

    low, high = RETENTION_RANGE
    retention = desired_retention if math.isfinite(desired_retention) else 0.9
    return Scheduler(parameters=parameters_in_force(store)[0],
                     desired_retention=min(high, max(low, retention)))


def forgetting_curve(elapsed_days: float, stability: float,
                     parameters: Sequence[float] = DEFAULT_PARAMETERS) -> float:
    """FSRS-6's probability of recall ``elapsed_days`` after a review.

    ``R = (1 + factor * t / S) ** -w20`` with ``factor = 0.9 ** (-1 / w20) - 1``, so that
    ``R = 0.9`` when ``t = S`` (stability is the time to fall to 90 %).

    >>> round(forgetting_curve(10, 10), 6)
    0.9
    >>> forgetting_curve(0, 3.0)
    1.0
    """
    decay = parameters[20]
    factor = 0.9 ** (-1 / decay) - 1
    return float((1 + factor * max(0.0, elapsed_days) / stability) ** -decay)


# ------------------------------------------------------------------ the review log


@dataclass
class History:
    """One template's reviews, oldest first, as FSRS sees them."""

    ratings: list[int] = field(default_factory=list)
    """1 (Again) to 4 (Easy)."""
    delta_days: list[int] = field(default_factory=list)
    """Local days since the review before (0 for the first, and on the same day)."""
    times: list[str] = field(default_factory=list)
    """When, as stored (UTC text: it sorts in time order)."""


def histories(rows: Iterable[tuple[str, int, str, int]], tz: tzinfo | None) -> list[History]:
    """Group :meth:`Store.review_rows` by template into FSRS histories.

    A row whose time cannot be read, or whose rating is not 1 to 4, is left out (the log
    is the user's file; one bad row should not stop a fit).
    """
    by_template: dict[str, History] = {}
    last_day: dict[str, date] = {}
    days: dict[str, date] = {}  # one parse per distinct stored time
    for template_id, rating, at, _state in rows:
        if not 1 <= rating <= 4:
            continue
        day = days.get(at)
        if day is None:
            try:
                day = local_day(from_utc_text(at), tz)
            except (ValueError, TypeError, OverflowError):
                continue
            days[at] = day
        h = by_template.setdefault(template_id, History())
        before = last_day.get(template_id)
        h.ratings.append(rating)
        h.delta_days.append(0 if before is None else max(0, (day - before).days))
        h.times.append(at)
        last_day[template_id] = day
    return list(by_template.values())


def _items(hs: Sequence[History], cutoff: str | None, *, held_out: bool) -> list[Any]:
    """fsrs-rs training items: one per later-day review, with the reviews before it.

    ``cutoff`` splits in time: items whose predicted review is older than it (or, with
    ``held_out``, at or after it).
    """
    from fsrs_rs_python import FSRSItem, FSRSReview

    items: list[Any] = []
    for h in hs:
        reviews = [FSRSReview(r, d) for r, d in zip(h.ratings, h.delta_days, strict=True)]
        for i in range(1, len(reviews)):
            if h.delta_days[i] == 0:
                continue
            late = cutoff is not None and h.times[i] >= cutoff
            if late == held_out:
                items.append(FSRSItem(reviews[: i + 1]))
    return items


def _predicted_times(hs: Sequence[History]) -> list[str]:
    return sorted(h.times[i] for h in hs for i in range(1, len(h.times)) if h.delta_days[i])


def _within_bounds(parameters: Sequence[float]) -> tuple[float, ...]:
    """Parameters clamped into the bounds of the ``fsrs`` package's scheduler (which the
    drill reviews with, and which refuses others); what is scored is what will be used.

    >>> _within_bounds([1e9] * 21)[0], _within_bounds([-1.0] * 21)[20]
    (100.0, 0.1)
    """
    from fsrs.scheduler import LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS

    return tuple(
        min(high, max(low, float(x) if math.isfinite(float(x)) else default))
        for x, low, high, default in zip(parameters, LOWER_BOUNDS_PARAMETERS,
                                         UPPER_BOUNDS_PARAMETERS, DEFAULT_PARAMETERS,
                                         strict=True))


def _evaluate(parameters: Sequence[float], items: Sequence[Any]) -> Metrics:
    from fsrs_rs_python import FSRS

    evaluation = FSRS(list(parameters)).evaluate(list(items))
    return Metrics(log_loss=float(evaluation.log_loss), rmse=float(evaluation.rmse_bins))


def _split(store: Store, min_reviews: int) -> tuple[int, list[Any], list[Any]]:
    """The predicted reviews' count, and their items to fit and to score (held out).

    Raises:
        UsageError: fewer than ``min_reviews``, or all on one day.
    """
    hs = histories(store.review_rows(), store.tz)
    times = _predicted_times(hs)
    if len(times) < max(min_reviews, 2):
        raise UsageError(
            f"fitting the scheduler needs at least {max(min_reviews, 2)} reviews of questions "
            f"seen on an earlier day; your history has {len(times)}: keep drilling")
    cutoff = times[min(len(times) - 1, int(len(times) * (1 - HELD_OUT)))]
    train = _items(hs, cutoff, held_out=False)
    test = _items(hs, cutoff, held_out=True)
    if not train or not test:
        raise UsageError("fitting the scheduler needs reviews on more than one day: "
                         "keep drilling")
    return len(times), train, test


def optimize(store: Store, *, min_reviews: int = MIN_REVIEWS) -> FitResult:
    """Fit FSRS to the history's reviews, score it on held-out ones, keep it if better.

    Args:
        store: The history (its review log, its time zone for days).
        min_reviews: Predicted reviews needed (see :data:`MIN_REVIEWS`).

    Returns:
        The figures before and after, and the parameters in force now.

    Raises:
        UsageError: too few reviews to fit (one line saying how many there are), or
            the optimizer refused the data.
    """
    reviews, train, test = _split(store, min_reviews)
    from fsrs_rs_python import FSRS

    current, _ = parameters_in_force(store)
    try:
        raw = FSRS(list(DEFAULT_PARAMETERS)).compute_parameters(
            train, enable_short_term=True, num_relearning_steps=1)
    except BaseException as exc:
        # fsrs-rs raises ValueError for data it refuses; a Rust panic arrives as
        # pyo3's PanicException, which derives from BaseException.
        if isinstance(exc, KeyboardInterrupt | SystemExit | GeneratorExit):
            raise
        raise UsageError(f"the FSRS optimizer could not fit your reviews ({exc})") from exc
    fitted = _within_bounds(raw)
    before = _evaluate(current, test)
    after = _evaluate(fitted, test)
    applied = after.log_loss < before.log_loss
    if applied:
        store.set_fsrs_parameters(json.dumps(list(fitted)), reviews=reviews, metrics=json.dumps(
            {"before": before.to_json(), "after": after.to_json(), "held_out": len(test)}))
    return FitResult(reviews=reviews, held_out=len(test), before=before, after=after,
                     fitted=fitted, applied=applied, parameters=fitted if applied else current)


def reset(store: Store, *, min_reviews: int = MIN_REVIEWS
          ) -> tuple[int, Metrics | None, Metrics | None]:
    """Put FSRS's default parameters back in force (the fits stay in the history).

    Returns:
        The predicted reviews, and the held-out figures of the parameters in force
        before and of the defaults, as :func:`optimize` splits them; None for both when
        there are too few reviews to score (a reset needs none).
    """
    current, _ = parameters_in_force(store)
    store.set_fsrs_parameters(None)
    try:
        reviews, _, test = _split(store, min_reviews)
    except UsageError:
        return len(_predicted_times(histories(store.review_rows(), store.tz))), None, None
    return reviews, _evaluate(current, test), _evaluate(DEFAULT_PARAMETERS, test)


# ------------------------------------------------------------------ calibration


@dataclass(frozen=True)
class CalibrationBin:
    """Later-day reviews whose predicted recall fell in one bin."""

    low: float
    """The bin's lower edge of predicted recall."""
    predicted: float
    """Mean predicted recall in the bin."""
    actual: float
    """Share of them recalled (rated above Again)."""
    count: int
    """How many reviews."""


def calibration(store: Store, bins: int = 10) -> list[CalibrationBin]:
    """Predicted recall against actual recall, binned, under the parameters in force.

    Every later-day review of a template is predicted from the reviews before it (the
    memory state fsrs-rs computes, then :func:`forgetting_curve`), as the drill's
    scheduler saw it. Bins are of equal width in predicted recall; empty ones are left
    out.
    """
    from fsrs_rs_python import FSRS, FSRSItem, FSRSReview

    parameters, _ = parameters_in_force(store)
    hs = [h for h in histories(store.review_rows(), store.tz) if len(h.ratings) > 1]
    if not hs:
        return []
    items = [FSRSItem([FSRSReview(r, d) for r, d in zip(h.ratings, h.delta_days, strict=True)])
             for h in hs]
    states = FSRS(list(parameters)).historical_memory_state_batch(items)
    sums = [[0.0, 0.0, 0] for _ in range(bins)]
    for h, path in zip(hs, states, strict=True):
        for i in range(1, len(h.ratings)):
            if not h.delta_days[i]:
                continue
            p = forgetting_curve(h.delta_days[i], path[i - 1].stability, parameters)
            b = sums[min(bins - 1, int(p * bins))]
            b[0] += p
            b[1] += h.ratings[i] > 1
            b[2] += 1
    return [CalibrationBin(low=i / bins, predicted=p / n, actual=a / n, count=int(n))
            for i, (p, a, n) in enumerate(sums) if n]


# ------------------------------------------------------------------ workload


def workload(retention: float, *, templates: int, new_per_day: int,
             reviews_per_day: int = 100_000,
             parameters: Sequence[float] = DEFAULT_PARAMETERS, days: int = 365) -> float:
    """Forecast reviews a day at a desired retention: fsrs-rs's simulator, run over a
    deck of ``templates`` cards learned ``new_per_day`` a day, averaged over ``days``.

    The simulation starts from an unseen deck (it does not take this history's cards)
    and its seed is fixed: the same inputs always give the same figure.

    Raises:
        ValueError: a retention outside :data:`RETENTION_RANGE`.
    """
    low, high = RETENTION_RANGE
    if not (math.isfinite(retention) and low <= retention <= high):
        raise ValueError(f"desired retention must be from {low} to {high}, got {retention!r}")
    if templates <= 0 or new_per_day <= 0 or reviews_per_day <= 0 or days <= 0:
        return 0.0
    from fsrs_rs_python import default_simulator_config, simulate

    config = default_simulator_config()
    config.deck_size = templates
    config.learn_span = days
    config.learn_limit = new_per_day
    config.review_limit = reviews_per_day
    config.max_cost_perday = 1e9  # no limit in time: the daily caps are the limits
    result = simulate(list(parameters), retention, config, 2026)
    counts = result.review_cnt_per_day
    return sum(counts) / len(counts) if counts else 0.0


def is_leech_at(lapses: int) -> bool:
    """Whether a template that has just lapsed for the ``lapses``-th time is suspended:
    at :data:`LEECH_LAPSES`, then every half of it more (8, 12, 16, …), so a leech
    brought back is given a few more chances.

    >>> [n for n in range(1, 17) if is_leech_at(n)]
    [8, 12, 16]
    """
    step = max(1, LEECH_LAPSES // 2)
    return lapses >= LEECH_LAPSES and (lapses - LEECH_LAPSES) % step == 0
