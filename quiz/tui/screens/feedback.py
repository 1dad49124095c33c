"""Feedback after an answer in the drill or practice: verdict, key, mistake, derivation."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.markup import escape
from textual.widgets import Static

from questions.derivation import derivation_of
from quiz.tui import heap
from quiz.tui.data import percent, seconds_text
from quiz.tui.messages import FlagRequested, WalkRequested
from quiz.tui.textual_private import PaintedOnce
from quiz.tui.widgets.derivation import Derivation
from quiz.tui.widgets.keys_line import KeysLine
from quiz.tui.widgets.sized import SizedScroll, SizedStatic
from quiz.tui.widgets.title_bar import TitleBar
from quiz.tui.widgets.verdict import VerdictBanner

if TYPE_CHECKING:
    from quiz.core.session import Outcome, Question


def summary_markup(out: Outcome) -> str:
    """The graded answer in a few lines of markup: where, yours, the key, why."""
    grade, question = out.grade, out.question
    lines = [f"[b]{escape(question.template.title)}[/]  [$text-muted]{escape(question.label)}"
             f" · {seconds_text(out.seconds)}[/]"]
    if out.more_parts:
        lines.append(f"[b $text-accent]The scenario goes on: Enter for part "
                     f"{question.part.index + 1} of {len(question.variant.parts)}.[/]")
    if grade.checklist is not None:
        return "\n".join(lines + checklist_markup(out))
    yours = grade.read_as or question.answer_text or "(blank)"
    lines += ["", f"[b $text-muted]You[/]  {escape(yours)}",
              f"[b $text-muted]Key[/]  [b $text-success]{escape(grade.shown_key)}[/]"]
    if grade.mistake:
        lines += ["", f"[b $text-warning]Known mistake: {escape(grade.mistake)}[/]"]
    lines += ["", escape(grade.feedback)]
    if question.hints_shown:
        lines.append(f"[$text-muted]Hints used: {question.hints_shown} "
                     f"(cost {percent(question.hint_cost)} of the score)[/]")
    return "\n".join(lines)


_MARKS = {"right": ("✓", "$text-success"), "present": ("✓", "$text-success"),
          "kept": ("✓", "$text-success"), "mistake": ("✗", "$text-warning"),
          "wrong": ("✗", "$text-error"), "contradicted": ("✗", "$text-error"),
          "broken": ("✗", "$text-error"), "missing": ("·", "$text-muted")}


def checklist_markup(out: Outcome) -> list[str]:
    """A spoken answer's feedback: the answer given, the checklist item by item (in
    colour, each wrong figure with its key and derivation), and the model answer."""
    grade, question = out.grade, out.question
    c = grade.checklist
    assert c is not None
    lines = ["", "[b $text-muted]Your answer[/]",
             f"[$text-muted]{escape(question.answer_text.strip() or '(blank)')}[/]", "",
             f"[b]Checklist[/] [$text-muted]{percent(c.score)} of the rubric: a checklist "
             "of the figures and phrases a strong answer states, not a judge of your "
             "prose.[/]"]
    for item in c.items:
        mark, colour = _MARKS.get(item.status, ("·", "$text-muted"))
        text = item.line()[2:]  # the plain line without its mark
        lines.append(f"[{colour}]{mark}[/] {escape(text)}")
        if item.note and item.status in ("wrong", "mistake"):
            lines.append(f"    [$text-muted]{escape(item.note)}[/]")
    if question.hints_shown:
        lines.append(f"[$text-muted]Hints used: {question.hints_shown} "
                     f"(cost {percent(question.hint_cost)} of the score)[/]")
    lines += ["", "[b $text-muted]Model answer for this variant[/]",
              f"[$text-success]{escape(grade.key.display)}[/]"]
    return lines


_PREPARED: set[str] = set()
"""Answer kinds whose grading has run once in this process (see :func:`prepare`)."""


def prepare(question: Question) -> None:
    """Do now, in a worker, what the feedback on ``question`` will need.

    Called once the question is posted to the screen, while the person reads it: the
    worked solution (sympy printing, cached on the part), and once per answer kind per
    process, a grading of the key (never recorded), which imports and warms what that
    kind's grading and this screen use on first use. The Enter that shows the feedback
    then waits for neither (the first answer of a run took 2-4 times the next ones).
    """
    import quiz.core.learn  # noqa: F401  (offers_walk, asked on the Enter)
    from quiz.core.grading import grade

    part = question.part
    _ = derivation_of(part)
    if part.kind in _PREPARED:
        return
    _PREPARED.add(part.kind)
    with contextlib.suppress(Exception):  # a warm-up: the real grading reports it
        grade(part, part.key.display)


def _expect_scroll_bar(scroll: VerticalScroll) -> None:
    """Show or hide ``scroll``'s vertical bar for the content it now holds, before the
    layout that shows it.

    Textual decides whether a scroll view needs its bar *after* a layout, from the
    height the layout found, and a bar that appears or goes asks for a second layout
    and a second full paint (a third frame): every Enter whose feedback overflowed
    the screen when the last one did not, or the other way round, a third of the
    mixed run's Enters and the slowest of them. The children's heights at the width
    the last layout gave them say it beforehand (the bar's column is kept either way:
    ``scrollbar-gutter: stable``); a guess that is off (a resized terminal) costs the
    second layout as before.
    """
    region = scroll.scrollable_content_region
    if not region:  # never laid out yet: the first layout decides
        return
    size = region.size
    needed = 0
    for child in scroll.children:
        if child.display:
            styles = child.styles
            inner = max(0, size.width - styles.gutter.width)
            needed += (child.get_content_height(size, size, inner) + styles.gutter.height
                       + styles.margin.height)
    overflows = needed > size.height
    if overflows != scroll.show_vertical_scrollbar:
        scroll.show_vertical_scrollbar = overflows
        scroll.vertical_scrollbar.display = overflows


_INSTALLED_AS = "feedback"
"""The name the app's feedback screen is installed under."""

_WALK_OFFER = ("[b $text-warning]Missed again:[/] press [b]w[/] to walk through it one "
               "step at a time.")


FOLLOW_UP = "followup"
"""What the feedback screen dismisses with when the learner asks for the follow-up."""


class FeedbackScreen(PaintedOnce["bool | str"]):
    """How an answer was graded, and the worked solution.

    Dismisses with True to go on (Enter), False to stop (Escape) or :data:`FOLLOW_UP`
    for the interviewer's follow-up (``u``, after a layout question or a scenario). Each
    answer is painted in one frame (:mod:`quiz.tui.textual_private`).
    """

    DEFAULT_CSS = """
    /* the gutter kept: no re-wrap when the scroll bar shows */
    #feedback-scroll { padding: 0 2; scrollbar-gutter: stable; }
    #feedback-summary { margin-top: 1; }
    #feedback-walk-offer { margin-top: 1; }
    #feedback-question { display: none; margin-top: 1; padding: 0 1; border-left: wide $primary; }
    #feedback-derivation { margin-bottom: 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "go_on", "Next"),
        Binding("escape", "stop", "Stop"),
        Binding("l", "open_lab", "Open in the lab"),
        Binding("f", "flag", "Flag"),
        Binding("v", "show_question", "Question"),
        Binding("w", "walk", "Walk me through it"),
        Binding("u", "follow_up", "Follow-up"),
    ]

    def __init__(self, outcome: Outcome, *, leech: bool = False,
                 followup: bool = False) -> None:
        """Args:
            outcome: the graded answer.
            leech: the template has been missed again and again: offer a walk-through.
            followup: the interviewer has a follow-up: offer it (``u``).
        """
        super().__init__()
        self.outcome = outcome
        self.leech = leech
        self.followup = followup
        self.reading = heap.ReadingTime(self)
        """Runs a due garbage collection while the feedback is read."""
        self._styled_for: tuple[object, ...] | None = None
        """The theme, stylesheet and size the screen was last restyled for."""

    @classmethod
    def showing(cls, app: App[Any], outcome: Outcome, *, leech: bool = False,
                followup: bool = False) -> FeedbackScreen:
        """The app's feedback screen, showing ``outcome`` (to push).

        Built once per app and installed, so that Textual keeps it when it is popped:
        each answer updates its few widgets (:meth:`show`), which costs a fraction of
        composing and styling a new screen on the Enter that shows it.
        """
        if not app.is_screen_installed(_INSTALLED_AS):
            screen = cls(outcome, leech=leech, followup=followup)
            app.install_screen(screen, _INSTALLED_AS)
            return screen
        screen = app.get_screen(_INSTALLED_AS, cls)
        if screen in app.screen_stack:  # showing already (never in the app's flows)
            return cls(outcome, leech=leech, followup=followup)
        screen.show(outcome, leech=leech, followup=followup)
        return screen

    def compose(self) -> ComposeResult:
        # Few widgets on purpose, built once per app (see showing()): Textual's styling
        # and layout cost grows with the number of widgets it builds.
        out = self.outcome
        yield TitleBar("Feedback")
        yield VerdictBanner(out.grade.verdict, out.grade.score, id="feedback-verdict")
        with SizedScroll(id="feedback-scroll"):
            yield SizedStatic(out.question.prompt, id="feedback-question", markup=False)
            yield SizedStatic(summary_markup(out), id="feedback-summary")
            walk = SizedStatic(_WALK_OFFER, id="feedback-walk-offer")
            walk.display = self.missed and self.leech
            yield walk
            yield Derivation(derivation_of(out.question.part), title="Worked solution",
                             id="feedback-derivation")
        yield KeysLine(self._keys())

    def on_mount(self) -> None:
        self.query_one("#feedback-scroll").focus()

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        # (Runs before Screen's own handler, which restyles on request.) Textual
        # restyles every widget of a screen each time it is pushed, in case the theme
        # changed while it was off the stack: 3-8 ms of each Enter on this screen,
        # shown again and again. Its widgets restyle themselves when their classes or
        # state change, so the whole screen is restyled only when the theme, the
        # stylesheet or the terminal's size changed since it was last restyled.
        styled_for = (getattr(self.app, "_css_update_count", None), id(self.app.stylesheet),
                      self.app.size)
        if styled_for == self._styled_for:
            event.refresh_styles = False
        self._styled_for = styled_for
        # Shown (again): while it is read, run the full collection that is due, if
        # one is, rather than in the next Enter (quiz.tui.heap).
        self.reading.started()

    def show(self, outcome: Outcome, *, leech: bool = False, followup: bool = False
             ) -> None:
        """Show another answer's feedback on this screen (before it is pushed again).

        Updating the few widgets in place costs a fraction of building a screen.
        """
        self.outcome = outcome
        self.leech = leech
        self.followup = followup
        if not self.is_mounted:
            return  # compose shows it
        grade = outcome.grade
        self.query_one(VerdictBanner).show(grade.verdict, grade.score)
        question = self.query_one("#feedback-question", Static)
        question.update(outcome.question.prompt)
        question.display = False
        self.query_one("#feedback-summary", Static).update(summary_markup(outcome))
        self.query_one("#feedback-walk-offer").display = self.missed and self.leech
        self.query_one(Derivation).show(derivation_of(outcome.question.part))
        self.query_one(KeysLine).set_keys(self._keys())
        scroll = self.query_one("#feedback-scroll", VerticalScroll)
        scroll.scroll_home(animate=False)
        _expect_scroll_bar(scroll)
        self.refresh_bindings()

    def _keys(self) -> list[tuple[str, str, str]]:
        keys = [("Enter", "Next", "screen.go_on"), ("Esc", "Stop", "screen.stop")]
        if self.followup:
            keys.append(("u", "Follow-up", "screen.follow_up"))
        if self.missed and self.outcome.question.followup is None:
            keys.append(("w", "Walk through", "screen.walk"))
        if self._lab:  # see check_action
            keys.append(("l", "Lab", "screen.open_lab"))
        return keys + [("f", "Flag", "screen.flag"),
                       ("v", "Question", "screen.show_question"),
                       ("?", "Help", "app.open_mode('help')")]

    @property
    def _lab(self) -> bool:
        """A layout question: the layout lab is offered."""
        from questions.kinds import kind_of

        return kind_of(self.outcome.question.part.kind).searches_layout

    @property
    def missed(self) -> bool:
        """The answer was not right: a walk-through is offered."""
        return self.outcome.grade.verdict != "correct"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer the layout lab only after a layout question."""
        if action == "open_lab":
            return self._lab
        if action == "walk":  # (a follow-up has no derivation steps of its own)
            return self.missed and self.outcome.question.followup is None
        if action == "follow_up":
            return self.followup
        return True

    def action_walk(self) -> None:
        """Walk through this variant one derivation step at a time."""
        q = self.outcome.question
        self.post_message(WalkRequested(q.template.id, q.variant.seed))

    def action_open_lab(self) -> None:
        """Open this question's cluster in the layout lab, with the typed layout."""
        from quiz.core.layout_lab import lab_for
        from quiz.tui.screens.layout_lab import LayoutLabScreen

        part = self.outcome.question.part
        setup, layout = lab_for(part.model, part.gpu, part.overrides,
                                self.outcome.grade.read_as)
        self.app.push_screen(LayoutLabScreen(setup, layout))
    def action_show_question(self) -> None:
        """Show or hide the question's text above the verdict's details."""
        shown = self.query_one("#feedback-question")
        shown.display = not shown.display
        if shown.display:
            self.query_one("#feedback-scroll", VerticalScroll).scroll_home(animate=False)

    def action_flag(self) -> None:
        """Flag the question just answered as wrong or unclear."""
        self.post_message(FlagRequested(self.outcome.question, self.outcome.attempt_id))

    def action_follow_up(self) -> None:
        """The interviewer's follow-up: one input of this variant changed."""
        self.dismiss(FOLLOW_UP)

    def action_go_on(self) -> None:
        """Next question, or the next part of the scenario."""
        self.dismiss(True)

    def action_stop(self) -> None:
        """Leave the session."""
        self.dismiss(False)
