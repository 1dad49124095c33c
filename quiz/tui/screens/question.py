"""The question screen: one run of a session (drill, practice or mock interview).

The screen stays up for the whole run and swaps the question in place. Drawing a
variant, grading and finishing a mock run in worker threads (they may call sympy);
their results come back as messages. In drill and practice every graded answer opens
the feedback screen; in a mock interview the next question follows at once, a
countdown runs, and the report comes at the end.

`quiz drill` opens this screen before its session exists (``session=None``), showing
the drill's first question drawn at start-up from the compiled bank (``first``), typed
into at once; the session, built once the templates and the settings are
loaded, asks the same variant and is handed over (:meth:`take`). What the person did
meanwhile besides typing (Enter, a hint, a skip, a flag) runs then, in order, so an
answer submitted early is graded by the session exactly as any other.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar, cast

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Static

from quiz.tui import heap
from quiz.tui.kinds import ask_in, asked_as
from quiz.tui.messages import (
    AnswerGraded,
    AnswerSubmitted,
    FlagRequested,
    MockFinished,
    QuestionReady,
    SessionEnded,
    TaskFailed,
)
from quiz.tui.screens.answering import AnsweringScreen
from quiz.tui.widgets.answer_box import AnswerBox
from quiz.tui.widgets.keys_line import KeysLine
from quiz.tui.widgets.question_card import QuestionCard
from quiz.tui.widgets.title_bar import TitleBar

if TYPE_CHECKING:
    from quiz.core.drill import FirstQuestion
    from quiz.core.mock import MockSession
    from quiz.core.session import Outcome, Question, Session

MODE_TITLES = {"drill": "Daily drill", "practice": "Practice", "mock": "Mock interview"}


class QuestionScreen(AnsweringScreen):
    """Asks the questions of one session.

    Args:
        session: the session (its ``mode`` decides the flow); None: `quiz drill`'s, to
            come (:meth:`take`).
        mode: ``drill``, ``practice`` or ``mock``.
        first: without a session, the question to show until it comes (None: none).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        # ctrl+g works everywhere (most terminals send ctrl+h as backspace); a plain h
        # works when the focus is not in the answer box, which keeps its letters.
        Binding("ctrl+g,ctrl+h,h", "hint", "Hint", key_display="^g"),
        Binding("ctrl+s", "skip", "Skip"),
        Binding("ctrl+f", "flag", "Flag"),
        Binding("escape", "leave", "Stop"),
        # The answer box keeps the focus; these scroll the question (long prompts,
        # choices and hints at 80x24) while the answer is typed.
        Binding("pageup", "scroll_question(-1)", "Scroll up", show=False),
        Binding("pagedown", "scroll_question(1)", "Scroll down", show=False),
    ]

    def __init__(self, session: Session | None, mode: str,
                 first: FirstQuestion | None = None) -> None:
        super().__init__()
        self._session = session
        self._first = first
        self.mode = mode
        self._waiting: list[Callable[[], object]] = []
        """What the person did before the session came (see :meth:`take`)."""
        self.question: Question | None = None
        """The question showing (None while one is being drawn)."""
        self.busy = False
        """A worker is drawing or grading: Enter and the clock wait."""
        self.finishing = False
        self.asked = 0
        self._warned = 0
        """Session warnings already shown."""
        self.reading = heap.ReadingTime(self)
        """Runs a due garbage collection while a mock's question is read."""

    @property
    def session(self) -> Session:
        """The session (`quiz drill`'s comes a moment after the screen: :meth:`take`;
        nothing reads it before)."""
        assert self._session is not None
        return self._session

    @property
    def mock(self) -> MockSession | None:
        """The session, when it is a mock interview."""
        return cast("MockSession", self.session) if self.mode == "mock" else None

    def compose(self) -> ComposeResult:
        yield TitleBar(MODE_TITLES.get(self.mode, self.mode))
        with Horizontal(id="question-bar"):
            yield Static("", id="question-label", markup=False)
            yield Static("", id="question-progress", markup=False)
            if self.mock is not None:
                from quiz.tui.widgets.countdown import Countdown  # a mock's only

                yield Countdown(self.mock.remaining(), id="countdown")
        with VerticalScroll(id="question-scroll"):
            yield QuestionCard(id="question-card")
        yield AnswerBox(id="answer-box")
        yield KeysLine(self._keys(multiline=False))

    def _keys(self, *, multiline: bool) -> list[tuple[str, str, str]]:
        """The keys line: a paragraph answer submits with Ctrl+D (Enter is a new line)."""
        keys = [("^d", "Submit", "screen.submit")] if multiline else [
            ("Enter", "Submit", "screen.submit")]
        if self._hints_allowed():
            keys.append(("^g", "Hint", "screen.hint"))
        if self.mock is None:  # a mock interview has a fixed plan: no skipping
            keys.append(("^s", "Skip", "screen.skip"))
        keys.append(("^f", "Flag", "screen.flag"))
        keys += [("Esc", "Stop", "screen.leave"), ("F1", "Help", "app.open_mode('help')")]
        return keys

    def _hints_allowed(self) -> bool:
        # (no session yet: the drill's, which shows hints)
        return self._session is None or self.session.hints_allowed()

    def on_mount(self) -> None:
        self.query_one(AnswerBox).field.focus()
        if self._session is not None:
            self._draw()
        elif self._first is not None:
            self.show_first(self._first.question, str(self._first.left))
        if self.mock is not None:
            self.set_interval(1.0, self.tick)

    # ------------------------------------------------------------ before the session

    def show_first(self, question: Question, left: str) -> None:
        """Show the drill's first question, drawn before its session exists."""
        if self._session is None:
            self._show(question, left)

    def take(self, session: Session) -> None:
        """The session this screen was opened without. Its current question is the
        variant :meth:`show_first` showed (it was asked with ``Session.ask``), or None
        (none was shown: it draws its first now); then what was done meanwhile runs."""
        self._session = session
        question = session.current
        if question is None:
            self._draw()
        else:
            shown, self.question = self.question, question
            if shown is None or _looks(shown) != _looks(question):
                # drawn otherwise from the model than from the bank's view (a bug the
                # tests look for): show what is graded (the answer typed stays)
                self.query_one("#question-label", Static).update(question.label)
                self.query_one(QuestionCard).show(question)
            self._prepare(question)
        waiting, self._waiting = self._waiting, []
        for then in waiting:
            then()

    def _later(self, then: Callable[[], object]) -> bool:
        """Keep ``then`` for when the session comes; False: it is here, go on."""
        if self._session is not None:
            return False
        self._waiting.append(then)
        return True

    @work(thread=True, exclusive=True, group="question", exit_on_error=False)
    def _prepare(self, question: Question) -> None:
        from quiz.tui.screens.feedback import prepare

        prepare(question)  # as after every draw: see _draw_next

    # ------------------------------------------------------------ drawing

    def _draw(self, *, skip: bool = False, followup: bool = False) -> None:
        self.busy = True
        self.question = None
        self._draw_next(skip, followup)

    @work(thread=True, exclusive=True, group="question", exit_on_error=False)
    def _draw_next(self, skip: bool, followup: bool = False) -> None:
        try:
            # A follow-up runs the layout engine on the changed variant (0.1-1 s).
            question = (self.session.follow_up() if followup else None) or (
                self.session.skip() if skip else self.session.next())
            counts = getattr(self.session, "left", None)
            left = str(counts()) if callable(counts) and question is not None else None
        except Exception as exc:  # a template that cannot draw: report, don't crash
            self.post_message(TaskFailed("drawing a question", str(exc)))
            return
        self.post_message(QuestionReady(question, left))
        if question is not None and self.mock is None:
            from quiz.tui.screens.feedback import prepare

            prepare(question)  # while the question is read: the Enter then waits less

    @on(QuestionReady)
    def _question_ready(self, event: QuestionReady) -> None:
        for warning in self.session.warnings[self._warned:]:
            self.notify(warning, title="A template was skipped", severity="warning",
                        timeout=10)
        self._warned = len(self.session.warnings)
        question = event.question
        if question is None:
            if self.mock is not None:
                self.finish()
            else:
                self.post_message(SessionEnded(self.mode, self.session))
            return
        self._show(question, event.left)

    def _show(self, question: Question, left: str | None) -> None:
        self.question = question
        if question.part.index == 1 and question.followup is None:
            self.asked += 1
        if self.mock is not None and self.mock.closing and question.part.index == 1 and \
                question.template.id == self.mock.closing_id:
            minutes = self.mock.closing_minutes
            self.notify(f"To close: a 30-second answer, {minutes:g} minutes on its own "
                        "clock.", title="Mock interview")
        self.busy = False
        self.query_one("#question-label", Static).update(question.label)
        self.query_one("#question-progress", Static).update(self._progress(left))
        self.query_one(QuestionCard).show(question)
        self.query_one("#question-scroll", VerticalScroll).scroll_home(animate=False)
        part = question.part
        box = self.query_one(AnswerBox)
        multiline = asked_as(part.kind).multiline
        if multiline != box.multiline:
            self.query_one(KeysLine).set_keys(self._keys(multiline=multiline))
        ask_in(box, part)
        if self.mock is not None:  # no feedback screen to collect behind: the question
            self.reading.started()  # is read before it is typed (quiz.tui.heap)

    def _progress(self, left: str | None) -> str:
        if self.mock is not None:
            if self.mock.closing:
                return f"closing answer ({self.mock.n} of {self.mock.n})"
            return f"question {min(self.asked, self.mock.n)} of {self.mock.n}"
        if self.mode == "drill" and left is not None:
            return left
        answered = self._session.answered if self._session is not None else []
        if not answered:
            return ""
        from quiz.tui.today import percent

        mean = sum(o.grade.score for o in answered) / len(answered)
        return f"{len(answered)} answered · mean {percent(mean)}"

    def after_failure(self) -> None:
        """A question that could not be drawn ends the run (a failed grading keeps it)."""
        if self.question is None and not self.finishing:
            self.dismiss(None)

    # ------------------------------------------------------------ answering

    def action_hint(self) -> None:
        """Reveal the next hint; the session records its cost."""
        if self._later(self.action_hint):
            return
        question = self.question
        if question is None or self.busy:
            return
        text = self.session.hint()
        if text is None:
            self.notify("No more hints for this question.", timeout=2)
            return
        card = self.query_one(QuestionCard)
        card.add_hint(question.hints_shown, text)
        # The hint is the card's last line: bring it into view (the box keeps focus).
        self.query_one("#question-scroll", VerticalScroll).scroll_end(animate=False)

    def action_scroll_question(self, pages: int) -> None:
        """Scroll the question by a page (PageUp/PageDown, while typing)."""
        scroll = self.query_one("#question-scroll", VerticalScroll)
        if pages < 0:
            scroll.scroll_page_up(animate=False)
        else:
            scroll.scroll_page_down(animate=False)

    def action_skip(self) -> None:
        """Put the question aside unscored; the drill asks it again after the rest."""
        if self._later(self.action_skip):
            return
        if self.question is None or self.busy or self.finishing:
            return
        self.notify("Skipped: it comes back later." if self.mode == "drill"
                    else "Skipped.", timeout=2)
        self._draw(skip=True)

    def action_flag(self) -> None:
        """Flag the question as wrong or unclear (the answer box keeps what is typed)."""
        if self._later(self.action_flag):
            return
        if self.question is not None:
            self.post_message(FlagRequested(self.question))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # A mock interview has a fixed plan and no skipping: move on by answering; and
        # no hints unless the settings turn them on.
        if self.mock is not None and action == "skip":
            return False
        return not (action == "hint" and not self._hints_allowed())

    @on(AnswerSubmitted)
    def _submitted(self, event: AnswerSubmitted) -> None:
        event.stop()
        self._submit_text(event.text)

    def _submit_text(self, text: str) -> None:
        if self._later(lambda: self._submit_text(text)):
            return
        if self.question is None or self.busy or self.finishing:
            return
        self.grade_in_worker(lambda: AnswerGraded(self._submit(text)))

    def _submit(self, text: str) -> Outcome:
        """Grade and record an answer (in the grading worker)."""
        from questions.derivation import derivation_of

        outcome = self.session.submit(text)
        if outcome.grade.verdict != "invalid" and self.mock is None:
            _ = derivation_of(outcome.question.part)  # warm the cache off the loop
        return outcome

    @on(AnswerGraded)
    def _graded(self, event: AnswerGraded) -> None:
        outcome = event.outcome
        if self.refused(outcome.grade):
            return
        if self.mock is not None:
            self._draw()
            return
        from quiz.core.learn import offers_walk
        from quiz.tui.screens.feedback import FeedbackScreen

        leech = outcome.grade.verdict != "correct" and offers_walk(
            self.session.store, outcome.question.template.id)
        self.app.push_screen(FeedbackScreen.showing(
            self.app, outcome, leech=leech, followup=self.session.offers_followup()),
            self._after_feedback)

    def _after_feedback(self, go_on: bool | str | None) -> None:
        from quiz.tui.screens.feedback import FOLLOW_UP

        if go_on == FOLLOW_UP:
            self._draw(followup=True)
        elif go_on:
            self._draw()
        else:
            self.dismiss(None)

    # ------------------------------------------------------------ the mock's clock

    def tick(self) -> None:
        """Once a second in a mock: update the countdown, warn, and stop at zero."""
        mock = self.mock
        if mock is None or self.finishing:
            return
        left = mock.remaining()
        from quiz.tui.widgets.countdown import Countdown

        self.query_one(Countdown).seconds_left = left
        warning = mock.due_warning()
        if warning:
            self.notify(warning, title="Mock interview", severity="warning")
        if mock.time_up() and not self.busy:
            if mock.closing_due():
                self._close_with_spoken(self.query_one(AnswerBox).value)
            else:
                self.finish(expire_with=self.query_one(AnswerBox).value)

    def _close_with_spoken(self, typed: str) -> None:
        """The questions' time is up: submit what is typed, then the closing answer."""
        self.busy = True
        self.question = None
        self.notify("Time is up for the questions: your answers are in.",
                    title="Mock interview")
        self._expire_and_draw(typed)

    @work(thread=True, exclusive=True, group="question", exit_on_error=False)
    def _expire_and_draw(self, typed: str) -> None:
        mock = self.mock
        assert mock is not None
        try:
            if mock.current is not None:
                mock.expire(typed)
            question = mock.next()
        except Exception as exc:
            self.post_message(TaskFailed("drawing the closing answer", str(exc)))
            return
        self.post_message(QuestionReady(question, None))

    def finish(self, expire_with: str | None = None) -> None:
        """End the mock (submitting what is typed if time ran out) and show the report."""
        if self.finishing:
            return
        self.finishing = True
        self.busy = True
        if expire_with is not None:
            self.notify("Time is up: your answers are in.", title="Mock interview")
        self._finish(expire_with)

    @work(thread=True, exclusive=True, group="finish", exit_on_error=False)
    def _finish(self, expire_with: str | None) -> None:
        mock = self.mock
        assert mock is not None
        try:
            if expire_with is not None and mock.current is not None:
                mock.expire(expire_with)
            from questions.derivation import derivation_of

            for o in mock.answered:  # derive off the event loop (sympy printing)
                _ = derivation_of(o.question.part)
            report = mock.finish()
        except Exception as exc:
            self.post_message(TaskFailed("scoring the mock interview", str(exc)))
            return
        self.post_message(MockFinished(report))

    @on(MockFinished)
    def _mock_finished(self, event: MockFinished) -> None:
        from quiz.tui.screens.report import ReportScreen

        while self.app.screen is not self:  # a dialog or the help may be open on top
            self.app.pop_screen()
        self.app.switch_screen(ReportScreen(event.report))

    # ------------------------------------------------------------ leaving

    def action_leave(self) -> None:
        """Stop the session (a mock asks first: leaving leaves it unscored)."""
        if self.mock is None:
            self.dismiss(None)
            return
        self.confirm_leaving("Leave the mock interview?", lambda: self.dismiss(None))

    def confirm_leaving(self, question: str, then: Callable[[], object]) -> None:
        """Ask before abandoning a mock (Escape, and Ctrl+Q through the app)."""
        from quiz.tui.screens.confirm import ConfirmScreen

        def answered(yes: bool | None) -> None:
            if yes:
                then()

        self.app.push_screen(ConfirmScreen(
            f"{question} The answers you gave are saved, but the interview will not "
            "be scored."), answered)


def _looks(question: Question) -> tuple[object, ...]:
    """What the screen shows of a question (its label and card)."""
    from quiz.tui.widgets.question_card import how_to_answer

    part = question.part
    return (question.label, question.template.title, question.prompt,
            question.params_table, asked_as(part.kind).extra(part), how_to_answer(part))
