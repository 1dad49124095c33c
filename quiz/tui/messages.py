"""Messages the app's screens and workers send each other, named in the past tense.

Workers run in threads and report back only through these messages (``post_message``
is thread-safe), so no widget is ever touched off the event loop.

Each is written as Textual writes its own: an ``__init__`` that sets the attributes and
calls ``super().__init__()``. A message is itself, never equal to another, and Textual
gives its repr. Not dataclasses: Python 3.11 compiles a dataclass's generated methods
from source when its module is imported, and this module is imported before the
first frame (bench/README.md, "Drill's first question").
"""

from __future__ import annotations

from collections.abc import Callable
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


class HomeReady(Message):
    """Today's figures are computed, from the history, the template ids and the drill's
    daily limits alone (the settings model and the templates may still be loading):
    the home screen is usable. ``template_ids`` is None when the catalog could not be
    read, ``summary`` when the figures could not be computed (a ``TaskFailed`` says
    why)."""

    def __init__(self, first_run: bool, template_ids: list[str] | None,
                 summary: HomeSummary | None) -> None:
        self.first_run: bool = first_run
        self.template_ids: list[str] | None = template_ids
        self.summary: HomeSummary | None = summary
        super().__init__()


class StateOpened(Message):
    """Settings and history are open (the templates may still be loading)."""

    def __init__(self, state: AppState) -> None:
        self.state: AppState = state
        super().__init__()


class BankLoaded(Message):
    """The question templates are loaded (and sympy with them)."""

    def __init__(self, bank: Bank) -> None:
        self.bank: Bank = bank
        super().__init__()


class StartupFinished(Message):
    """Start-up's imports and loading are done: what exists now lives as long as the app
    (see :mod:`quiz.tui.heap`)."""


class TaskFailed(Message):
    """Work in a thread failed (opening the history, loading the bank, drawing...).

    ``what`` says what was being done, in words for the user.
    """

    def __init__(self, what: str, message: str) -> None:
        self.what: str = what
        self.message: str = message
        super().__init__()


class SummaryRequested(Message):
    """The home screen wants fresh figures (it was shown again)."""


class SummaryComputed(Message):
    """What the home screen shows was recomputed."""

    def __init__(self, summary: HomeSummary) -> None:
        self.summary: HomeSummary = summary
        super().__init__()


# ---------------------------------------------------------------- navigation


class ModeChosen(Message):
    """The user picked a mode: drill, practice, mock, stats, browser, help or home."""

    def __init__(self, mode: str) -> None:
        self.mode: str = mode
        super().__init__()


class PracticeChosen(Message):
    """The practice picker was confirmed."""

    def __init__(self, topic: str | None, difficulty: int | None, schedule: bool) -> None:
        self.topic: str | None = topic
        self.difficulty: int | None = difficulty
        self.schedule: bool = schedule
        super().__init__()


class LearnChosen(Message):
    """The learn picker was confirmed: walk through this item, topic or tag."""

    def __init__(self, target: str) -> None:
        self.target: str = target
        super().__init__()


class PracticeRequested(Message):
    """Practise exactly these templates (a retry, the leeches, the browser's pick)."""

    def __init__(self, template_ids: list[str],
                 first: tuple[str, int] | None = None) -> None:
        self.template_ids: list[str] = template_ids
        self.first: tuple[str, int] | None = first
        """A ``(template id, seed)`` variant to ask first (a retry)."""
        super().__init__()


class WalkRequested(Message):
    """Walk through one variant ("walk me through it" after a miss)."""

    def __init__(self, template_id: str, seed: int) -> None:
        self.template_id: str = template_id
        self.seed: int = seed
        super().__init__()


class FlagRequested(Message):
    """The person flags a question as wrong or unclear (the app asks why, then stores
    it)."""

    def __init__(self, question: Question, attempt_id: int | None = None) -> None:
        self.question: Question = question
        self.attempt_id: int | None = attempt_id
        super().__init__()


class SettingChanged(Message):
    """The settings screen changed one setting (already valid): apply it and save it."""

    def __init__(self, name: str, value: object) -> None:
        self.name: str = name
        self.value: object = value
        super().__init__()


class WalkReady(Message):
    """A walk-through is built (its steps derived by the solver, in a worker)."""

    def __init__(self, walkthrough: Walkthrough) -> None:
        self.walkthrough: Walkthrough = walkthrough
        super().__init__()


class WalkAnswered(Message):
    """An answer in a walk-through was graded (and, whole or cold, recorded)."""

    def __init__(self, answer: WalkAnswer) -> None:
        self.answer: WalkAnswer = answer
        super().__init__()


class SessionEnded(Message):
    """A drill ran out of questions (practice never does; a mock ends in a report)."""

    def __init__(self, mode: str, session: Session | None = None) -> None:
        self.mode: str = mode
        self.session: Session | None = session
        """The session that ended (the drill's summary comes from it)."""
        super().__init__()


class MockChosen(Message):
    """The mock interview setup was confirmed."""

    def __init__(self, questions: int, minutes: int, closing_minutes: int = 0) -> None:
        self.questions: int = questions
        self.minutes: int = minutes
        self.closing_minutes: int = closing_minutes
        """Minutes for a closing 30-second answer (0: none)."""
        super().__init__()


# ---------------------------------------------------------------- questions


class AnswerSubmitted(Message):
    """Enter was pressed in the answer box."""

    def __init__(self, text: str) -> None:
        self.text: str = text
        super().__init__()


class PreviewRead(Message):
    """The live "read as" preview of some typed text is ready."""

    def __init__(self, text: str, preview: str) -> None:
        self.text: str = text
        self.preview: str = preview
        super().__init__()


class QuestionReady(Message):
    """The session drew its next question (None: the session is over)."""

    def __init__(self, question: Question | None, left: str | None) -> None:
        self.question: Question | None = question
        self.left: str | None = left
        """What is left of today's drill, e.g. ``5 left today (+1 again)``."""
        super().__init__()


class AnswerGraded(Message):
    """The session graded (and, unless invalid, recorded) an answer."""

    def __init__(self, outcome: Outcome) -> None:
        self.outcome: Outcome = outcome
        super().__init__()


class MockFinished(Message):
    """A mock interview ended and its report is ready."""

    def __init__(self, report: MockReport) -> None:
        self.report: MockReport = report
        super().__init__()


# ---------------------------------------------------------------- other screens


class StatsComputed(Message):
    """The stats screen's figures are ready."""

    def __init__(self, data: StatsData) -> None:
        self.data: StatsData = data
        super().__init__()


class SchedulerComputed(Message):
    """The stats screen's calibration of the scheduler is ready."""

    def __init__(self, data: SchedulerData) -> None:
        self.data: SchedulerData = data
        super().__init__()


class WorkloadForecast(Message):
    """The settings screen's workload line for a desired retention is ready."""

    def __init__(self, retention: float, text: str) -> None:
        self.retention: float = retention
        self.text: str = text
        super().__init__()


class SchedulerFitted(Message):
    """``o`` on the stats screen fitted the scheduler (or said why it could not)."""

    def __init__(self, text: str, ok: bool) -> None:
        self.text: str = text
        """What happened, for a notification."""
        self.ok: bool = ok
        """Whether a fit ran (False: too few reviews, or the optimizer refused)."""
        super().__init__()


class TemplatePreviewed(Message):
    """A template was drawn at a seed for the browser."""

    def __init__(self, preview: TemplatePreview) -> None:
        self.preview: TemplatePreview = preview
        super().__init__()


class ForecastComputed(Message):
    """The due forecast (cards due per day) is ready."""

    def __init__(self, days: list[tuple[date, int]]) -> None:
        self.days: list[tuple[date, int]] = days
        super().__init__()


class DrillSummarized(Message):
    """The summary of the drill just finished is ready."""

    def __init__(self, summary: DrillSummary) -> None:
        self.summary: DrillSummary = summary
        super().__init__()


class LabLoaded(Message):
    """The layout lab's workload was built and searched (in a worker), or failed."""

    def __init__(self, setup: Setup, workload: Workload | None, ranking: Ranking | None,
                 error: str) -> None:
        self.setup: Setup = setup
        self.workload: Workload | None = workload
        self.ranking: Ranking | None = ranking
        self.error: str = error
        super().__init__()


class MistakesFound(Message):
    """The mistakes screen's entries are ready."""

    def __init__(self, mistakes: list[Mistake], leeches: list[str],
                 suspended: dict[str, tuple[str, int]] | None = None) -> None:
        self.mistakes: list[Mistake] = mistakes
        self.leeches: list[str] = leeches
        self.suspended: dict[str, tuple[str, int]] = {} if suspended is None else suspended
        """Templates suspended from the drill as leeches: id -> (since, UTC text; lapses)."""
        super().__init__()


