"""The home screen's figures: today's drill, the streak, recent accuracy.

Apart from :mod:`quiz.tui.data` because the app computes them at start-up, before
anything else is loaded: importing this module costs one small record class, and
:func:`home_summary` imports only the history's queries and the scheduler.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from msgspec import Struct

if TYPE_CHECKING:
    from quiz.core.settings import Settings
    from quiz.core.settings_cache import DailyLimits
    from quiz.core.store import Store

Now = Callable[[], datetime]


def percent(value: float | None) -> str:
    """A share as a whole percentage, or an em dash when there is none.

    >>> percent(0.456), percent(None)
    ('46%', '—')
    """
    return "—" if value is None else f"{value:.0%}"


class HomeSummary(Struct, frozen=True):
    """The home screen's figures.

    Attributes:
        attempts: answers graded so far.
        streak: days in a row with at least one answer.
        recent_accuracy: share correct among the latest answers.
        due: questions left in today's drill (None until the bank is loaded).
        new_available: new templates today's drill may still introduce.
        reviews_done: review cards done today.
        new_done: templates introduced today.
    """

    attempts: int
    streak: int
    recent_accuracy: float | None
    due: int | None = None
    new_available: int | None = None
    reviews_done: int = 0
    new_done: int = 0


def home_summary(store: Store, limits: Settings | DailyLimits,
                 template_ids: Sequence[str] | None, now: Now | None) -> HomeSummary:
    """Compute the home screen's figures.

    Args:
        store: the history.
        limits: the drill's daily limits: the settings, or at start-up the limits
            cached from them (:func:`quiz.core.state.cached_limits`).
        template_ids: every template's id (the drill's queue needs no more of the
            templates); None: not known yet, so there is no due count.
        now: the clock (None: the store's).
    """
    from quiz.core.schedule import Drill
    from quiz.core.store.stats import home_figures

    figures = home_figures(store)  # recent days and the summary: any history size
    if template_ids is None:
        return HomeSummary(*figures)
    ids = sorted(template_ids)
    drill = Drill(store, limits, now=now)
    counts = drill.counts_today(ids)
    due = len(drill.queue(ids))
    return HomeSummary(*figures, due, counts["new_available"], counts["reviews_done"],
                       counts["new_done"])
