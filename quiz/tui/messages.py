"""Messages the app's screens and workers send each other, named in the past tense.

Workers run in threads and report back only through these messages (``post_message``
is thread-safe), so no widget is ever touched off the event loop.

Each is a dataclass for its ``__init__`` only (``eq=False, repr=False``): a message is
itself, never equal to another, and Textual gives its repr. The generated comparison
and repr of 32 classes cost every start (this module is imported before the first
frame) about 6 ms of CPU, half of the module's import (bench/README.md, "Drill's
first question").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from datetime import date
from functools import wraps
from typing import TYPE_CHECKING, Any, TypeVar

from textual.message import Message

if TYPE_CHECKING:
    from textual.message_pump import MessagePump

    from questions.loader import Bank
    from quiz.core.drill import DrillSummary
    from quiz.core.layout_lab import Setup
    from quiz.core.learn import WalkAnswer, Walkthrough
    from quiz.core.mistakes import Mistake
    from quiz.core.mock import MockReport
    from quiz.core.session import Outcome, Question, Session
    from quiz.core.state import AppState
    from quiz.tui.data import SchedulerData, StatsData, TemplatePreview
    from quiz.tui.today import HomeSummary
    from solver.layouts import Ranking
    from solver.perf import Workload


_Node = TypeVar("_Node", bound="MessagePump")
_Event = TypeVar("_Event", bound=Message)


def while_shown(handler: Callable[[_Node, _Event], Any]) -> Callable[[_Node, _Event], Any]:
    """For the handler of a worker's result that only shows it: do nothing once the
    node is off the app.

    A worker may post its result just before the person quits or leaves the screen.
    Textual then removes the screen's widgets before the screen's queue is drained, so
    the handler would look for widgets that are gone (``NoMatches`` while the app
    closes). Nobody is left to see the result, so it is dropped. Only for handlers that
    display: one that records something must run whatever happens."""

    @wraps(handler)
    def shown_only(node: _Node, event: _Event) -> Any:
        if not node.is_attached:  # False once the app is exiting, or the node removed
            return None
        return handler(node, event)  # an async handler's coroutine is awaited by Textual

    return shown_only


# ---------------------------------------------------------------- start-up


@dataclass(eq=False, repr=False)
class HomeReady(Message):
    """Today's figures are computed, from the history, the template ids and the drill's
    daily limits alone (the settings model and the templates may still be loading):
    the home screen is usable. ``template_ids`` is None when the catalog could not be
    read, ``summary`` when the figures could not be computed (a ``TaskFailed`` says
    why)."""

    first_run: bool
    template_ids: list[str] | None
    summary: HomeSummary | None


@dataclass(eq=False, repr=False)
class StateOpened(Message):
    """Settings and history are open (the templates may still be loading)."""

    state: AppState


@dataclass(eq=False, repr=False)
class BankLoaded(Message):
    """The question templates are loaded (and sympy with them)."""

    bank: Bank


@dataclass(eq=False, repr=False)
class StartupFinished(Message):
    """Start-up's imports and loading are done: what exists now lives as long as the app
    (see :mod:`quiz.tui.heap`)."""


@dataclass(eq=False, repr=False)
class TaskFailed(Message):
    """Work in a thread failed (opening the history, loading the bank, drawing...).

    ``what`` says what was being done, in words for the user.
    """

    what: str
    message: str


@dataclass(eq=False, repr=False)
class SummaryRequested(Message):
    """The home screen wants fresh figures (it was shown again)."""


@dataclass(eq=False, repr=False)
class SummaryComputed(Message):
    """What the home screen shows was recomputed."""

    summary: HomeSummary


# ---------------------------------------------------------------- navigation


@dataclass(eq=False, repr=False)
class ModeChosen(Message):
    """The user picked a mode: drill, practice, mock, stats, browser, help or home."""

    mode: str


@dataclass(eq=False, repr=False)
class PracticeChosen(Message):
    """The practice picker was confirmed."""

    topic: str | None
    difficulty: int | None
    schedule: bool


@dataclass(eq=False, repr=False)
class LearnChosen(Message):
    """The learn picker was confirmed: walk through this item, topic or tag."""

    target: str


@dataclass(eq=False, repr=False)
class PracticeRequested(Message):
    """Practise exactly these templates (a retry, the leeches, the browser's pick)."""

    template_ids: list[str]
    first: tuple[str, int] | None = None
    """A ``(template id, seed)`` variant to ask first (a retry)."""


@dataclass(eq=False, repr=False)
class WalkRequested(Message):
    """Walk through one variant ("walk me through it" after a miss)."""

    template_id: str
    seed: int


@dataclass(eq=False, repr=False)
class FlagRequested(Message):
    """The person flags a question as wrong or unclear (the app asks why, then stores
    it)."""

    question: Question
    attempt_id: int | None = None


@dataclass(eq=False, repr=False)
class SettingChanged(Message):
    """The settings screen changed one setting (already valid): apply it and save it."""

    name: str
    value: object


@dataclass(eq=False, repr=False)
class WalkReady(Message):
    """A walk-through is built (its steps derived by the solver, in a worker)."""

    walkthrough: Walkthrough


@dataclass(eq=False, repr=False)
class WalkAnswered(Message):
    """An answer in a walk-through was graded (and, whole or cold, recorded)."""

    answer: WalkAnswer


@dataclass(eq=False, repr=False)
class SessionEnded(Message):
    """A drill ran out of questions (practice never does; a mock ends in a report)."""

    mode: str
    session: Session | None = None
    """The session that ended (the drill's summary comes from it)."""


@dataclass(eq=False, repr=False)
class MockChosen(Message):
    """The mock interview setup was confirmed."""

    questions: int
    minutes: int
    closing_minutes: int = 0
    """Minutes for a closing 30-second answer (0: none)."""


# ---------------------------------------------------------------- questions


@dataclass(eq=False, repr=False)
class AnswerSubmitted(Message):
    """Enter was pressed in the answer box."""

    text: str


@dataclass(eq=False, repr=False)
class PreviewRead(Message):
    """The live "read as" preview of some typed text is ready."""

    text: str
    preview: str


@dataclass(eq=False, repr=False)
class QuestionReady(Message):
    """The session drew its next question (None: the session is over)."""

    question: Question | None
    left: str | None
    """What is left of today's drill, e.g. ``5 left today (+1 again)``."""


@dataclass(eq=False, repr=False)
class AnswerGraded(Message):
    """The session graded (and, unless invalid, recorded) an answer."""

    outcome: Outcome


@dataclass(eq=False, repr=False)
class MockFinished(Message):
    """A mock interview ended and its report is ready."""

    report: MockReport


# ---------------------------------------------------------------- other screens


@dataclass(eq=False, repr=False)
class StatsComputed(Message):
    """The stats screen's figures are ready."""

    data: StatsData


@dataclass(eq=False, repr=False)
class SchedulerComputed(Message):
    """The stats screen's calibration of the scheduler is ready."""

    data: SchedulerData


@dataclass(eq=False, repr=False)
class WorkloadForecast(Message):
    """The settings screen's workload line for a desired retention is ready."""

    retention: float
    text: str


@dataclass(eq=False, repr=False)
class SchedulerFitted(Message):
    """``o`` on the stats screen fitted the scheduler (or said why it could not)."""

    text: str
    """What happened, for a notification."""
    ok: bool
    """Whether a fit ran (False: too few reviews, or the optimizer refused)."""


@dataclass(eq=False, repr=False)
class TemplatePreviewed(Message):
    """A template was drawn at a seed for the browser."""

    preview: TemplatePreview


@dataclass(eq=False, repr=False)
class ForecastComputed(Message):
    """The due forecast (cards due per day) is ready."""

    days: list[tuple[date, int]]


@dataclass(eq=False, repr=False)
class DrillSummarized(Message):
    """The summary of the drill just finished is ready."""

    summary: DrillSummary


@dataclass(eq=False, repr=False)
class LabLoaded(Message):
    """The layout lab's workload was built and searched (in a worker), or failed."""

    setup: Setup
    workload: Workload | None
    ranking: Ranking | None
    error: str


@dataclass(eq=False, repr=False)
class MistakesFound(Message):
    """The mistakes screen's entries are ready."""

    mistakes: list[Mistake]
    leeches: list[str]
    suspended: dict[str, tuple[str, int]] = dataclass_field(default_factory=dict)
    """Templates suspended from the drill as leeches: id -> (since, UTC text; lapses)."""
