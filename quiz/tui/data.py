"""What the screens show, computed without Textual (and run by the screens in workers).

Every function here may import sympy through the core, so none of them is called at
import time and the modules that import this one stay light: core modules are imported
inside the functions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING

from questions.derivation import derivation_of

# The home's figures live apart (start-up imports them alone); here for the screens.
from quiz.tui.today import HomeSummary as HomeSummary
from quiz.tui.today import home_summary as home_summary
from quiz.tui.today import percent as percent

if TYPE_CHECKING:
    from questions.derivation import Derivation
    from questions.derivation import Step as DerivationStep
    from questions.loader import Bank
    from quiz.core.learn import Progress
    from quiz.core.optimizer import CalibrationBin
    from quiz.core.state import AppState
    from quiz.core.store import Stats

Now = Callable[[], datetime]


# ---------------------------------------------------------------- formatting


def clock_text(seconds: float) -> str:
    """Seconds as a countdown: ``m:ss`` (whole seconds, rounded up).

    >>> clock_text(61.2), clock_text(0)
    ('1:02', '0:00')
    """
    whole = max(0, int(-(-seconds // 1)))
    return f"{whole // 60}:{whole % 60:02d}"


def seconds_text(seconds: float) -> str:
    """A duration for tables: ``42s`` or ``3m 05s``.

    >>> seconds_text(42.4), seconds_text(185)
    ('42s', '3m 05s')
    """
    whole = round(seconds)
    return f"{whole}s" if whole < 60 else f"{whole // 60}m {whole % 60:02d}s"


def forecast(state: AppState, bank: Bank | None, now: Now | None,
             days: int = 14) -> list[tuple[date, int]]:
    """Cards falling due on each of the next ``days`` days."""
    from quiz.core.schedule import Drill

    ids = sorted(bank.templates) if bank is not None else None
    return Drill(state.store, state.settings, now=now).due_forecast(days, ids)


# ---------------------------------------------------------------- stats


@dataclass(frozen=True)
class StatsData:
    """The stats screen's figures.

    Attributes:
        stats: the store's summary (by topic, by tag, by day, weakest templates).
        retention: share of review cards recalled over the last 30 days.
        forecast: cards due on each of the next 14 days.
        titles: template id -> title, for the weakest templates.
        topic_trend: topic -> running accuracy per recent local day with answers.
        item_trend: rapid-fire item -> running accuracy per recent local day with answers.
        learn: learn-mode progress per rapid-fire item and topic (empty without the bank).
    """

    stats: Stats
    retention: float | None
    forecast: list[tuple[date, int]]
    titles: dict[str, str] = field(default_factory=dict)
    topic_trend: dict[str, list[tuple[str, float]]] = field(default_factory=dict)
    item_trend: dict[str, list[tuple[str, float]]] = field(default_factory=dict)
    learn: list[Progress] = field(default_factory=list)


TREND_DAYS = 90
"""The trends plot the last this many local days (the share is over all answers)."""


def stats_data(state: AppState, bank: Bank | None, now: Now | None) -> StatsData:
    """Compute the stats screen's figures (reading the history's summary tables and the
    last :data:`TREND_DAYS` days' attempts, not every attempt)."""
    from quiz.core.schedule import Drill

    drill = Drill(state.store, state.settings, now=now)
    ids = sorted(bank.templates) if bank is not None else None
    titles = {tid: t.title for tid, t in bank.summaries.items()} if bank is not None \
        else {}
    from quiz.core.store.stats import readable, stats
    from quiz.core.trends import history_trends

    store = state.store
    base = readable(store)  # the summary tables, read once for the stats and the trends
    totals = [(topic, g.tags, g.attempts, g.correct) for (_, topic, _), g in base.groups.items()]
    since = store.today() - timedelta(days=TREND_DAYS - 1)
    topic_trend, item_trend = history_trends(totals, store.recent_tallies(since))
    from quiz.core.learn import bank_templates, progress_in

    learn = progress_in(store, bank_templates(bank)) if bank is not None \
        else []
    return StatsData(stats(store, weakest=8, base=base), drill.retention(),
                     drill.due_forecast(14, ids), titles, topic_trend, item_trend, learn)


# ---------------------------------------------------------------- the fitted scheduler


def workload_text(state: AppState, templates: int, retention: float) -> str:
    """The settings screen's forecast for a desired retention, beside the one in force:
    "0.95: about 26 reviews a day over the next year (0.9 now: about 15)"."""
    from quiz.core.optimizer import parameters_in_force, workload

    parameters, _ = parameters_in_force(state.store)
    settings = state.settings

    def per_day(r: float) -> float:
        return workload(r, templates=templates, new_per_day=settings.new_per_day,
                        reviews_per_day=settings.reviews_per_day, parameters=parameters)

    def shown(r: float) -> str:
        n = per_day(r)
        return f"{n:.1f}" if n < 10 else f"{n:.0f}"

    now = settings.desired_retention
    text = f"{retention:g}: about {shown(retention)} reviews a day over the next year"
    if now != retention:
        text += f" ({now:g} now: about {shown(now)})"
    return text + "."


def fit_scheduler(state: AppState, timeout: float = 600.0) -> tuple[str, bool]:
    """Run ``quiz schedule optimize --json`` on the app's history in another process.

    Another process, not a thread: fsrs-rs holds the interpreter lock while it fits
    (measured: 1.7 s of a 2.3 s fit of 30,000 reviews, and a fit of 100,000 takes tens of
    seconds), which would freeze the screen for as long.

    Returns:
        What happened, as a sentence for a notification, and whether a fit ran (False:
        too few reviews, or the command failed; the sentence says why).
    """
    import json
    import subprocess
    import sys

    command = [sys.executable, "-m", "quiz.cli", "--data-dir", str(state.data_dir),
               "schedule", "optimize", "--json"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"The scheduler could not be fitted: {exc}", False
    lines = [line for line in done.stderr.splitlines()
             if line.strip() and not line.startswith("warning:")]
    if done.returncode != 0:
        reason = lines[-1].removeprefix("quiz: ") if lines else f"exit {done.returncode}"
        return reason[:1].upper() + reason[1:] + ("" if reason.endswith(".") else "."), False
    try:
        result = json.loads(done.stdout)
        before, after = result["before"], result["after"]
        text = (f"Fitted to {result['reviews']} reviews. Held-out log loss "
                f"{before['log_loss']:.3f} → {after['log_loss']:.3f}, RMSE "
                f"{before['rmse']:.3f} → {after['rmse']:.3f}: ")
    except (ValueError, KeyError, TypeError):
        return "The scheduler's fit gave no readable result.", False
    return text + ("now in force." if result.get("applied")
                   else "not better than those in force, which stay."), True


@dataclass(frozen=True)
class SchedulerData:
    """The stats screen's calibration section.

    Attributes:
        bins: predicted against actual recall (see :func:`quiz.core.optimizer.calibration`).
        status: one line: which parameters are in force, and why stored ones were not.
    """

    bins: list[CalibrationBin]
    status: str


def scheduler_data(state: AppState) -> SchedulerData:
    """Calibration of the parameters in force over the whole review log."""
    from quiz.core.optimizer import calibration, parameters_in_force

    stored = state.store.fsrs_parameters()
    _, problem = parameters_in_force(state.store)
    if problem is not None:
        status = f"FSRS's default parameters: {problem}."
    elif stored is None:
        status = "FSRS's default parameters (o fits them to your reviews)."
    else:
        status = "Parameters fitted to your reviews (o fits them again)."
    return SchedulerData(calibration(state.store), status)


# ---------------------------------------------------------------- template preview


@dataclass(frozen=True)
class PartPreview:
    """One part of a template drawn at a seed, as the browser shows it."""

    index: int
    kind: str
    prompt: str
    choices: list[str]
    key: str
    mistakes: list[tuple[str, float, str]]
    derivation: Derivation


@dataclass(frozen=True)
class TemplatePreview:
    """A template drawn at one seed (or the reason it could not be).

    Attributes:
        template_id: the template.
        seed: the seed drawn.
        title: the template's title.
        params: the drawn parameters as (name, shown value).
        parts: each part's prompt, key, known mistakes and derivation.
        error: why no variant could be drawn, or None.
    """

    template_id: str
    seed: int
    title: str
    params: list[tuple[str, str]] = field(default_factory=list)
    parts: list[PartPreview] = field(default_factory=list)
    error: str | None = None

    @property
    def label(self) -> str:
        """``TEMPLATE_ID#SEED``."""
        return f"{self.template_id}#{self.seed}"


def preview_template(bank: Bank, template_id: str, seed: int) -> TemplatePreview:
    """Draw a template at a seed for the browser; failures become ``error``."""
    from questions.variants import describe, make_variant
    from quiz.core.kinds import key_text

    template = bank.get(template_id)
    try:
        variant = make_variant(template, seed)
    except Exception as exc:  # a broken template must not crash the browser
        return TemplatePreview(template_id, seed, template.title, error=str(exc))
    parts = [
        PartPreview(pv.index, pv.kind, pv.prompt, list(pv.spec.choices), key_text(pv),
                    [(m.name, m.credit, m.feedback) for m in pv.mistakes],
                    derivation_of(pv))
        for pv in variant.parts
    ]
    params = [(k, describe(k, v)) for k, v in variant.params.items()]
    intro = variant.intro if template.intro else ""
    if intro and parts:
        first = parts[0]
        parts[0] = PartPreview(first.index, first.kind, f"{intro}\n\n{first.prompt}",
                               first.choices, first.key, first.mistakes, first.derivation)
    return TemplatePreview(template_id, seed, template.title, params, parts)


# ---------------------------------------------------------------- derivations


@dataclass(frozen=True)
class Block:
    """One piece of a worked derivation, classified for display.

    ``kind`` is one of: ``text`` (prose), ``quantity`` (what is being derived),
    ``step`` (a numbered step's sentence), ``math`` (a formula or a ``= value`` line),
    ``note`` (conventions, other accepted answers), ``answer`` (the final line).
    """

    kind: str
    text: str


def derivation_blocks(d: Derivation) -> list[Block]:
    """The blocks of a structured derivation, in reading order (no text is parsed).

    >>> from questions.derivation import Derivation, Section, Step
    >>> step = Step("x", "a thing", "Add.", "x = a + b", "1 + 2", 3.0, "1", "3")
    >>> [b.kind for b in derivation_blocks(Derivation("Why.", (Section("x", "a thing",
    ...  (step,)),), answer="3"))]
    ['text', 'quantity', 'step', 'math', 'answer']
    """
    from questions.derivation import sentence_case

    blocks: list[Block] = []
    if d.intro:
        blocks += [Block("text", para) for para in d.intro.split("\n\n") if para.strip()]

    def step_blocks(label: str, step: DerivationStep) -> None:
        blocks.append(Block("step", f"{label}{step.why}"))
        if step.formula:
            blocks.append(Block("math", f"{step.formula}\n  = {step.substitution}\n"
                                        f"  = {step.result}"))

    for sec in d.sections:
        blocks.append(Block("quantity", sentence_case(sec.meaning)))
        for i, step in enumerate(sec.steps, 1):
            step_blocks(f"{i}. ", step)
        if sec.conventions:
            blocks.append(Block("note", "Conventions: " + "; ".join(sec.conventions) + "."))
    if d.combination:
        step_blocks("", d.combination)
    if d.answer:
        blocks.append(Block("answer", f"Answer: {d.answer}"))
    blocks += [Block("note", f"Also accepted ({a})") for a in d.also]
    if d.mistake:
        blocks.append(Block("note", f"Your answer matches a known mistake: {d.mistake[0]}"))
    return blocks
