"""Learn mode: pick a rapid-fire item or topic, then walk through its questions.

:class:`LearnScreen` lists the items and topics with their progress.
:class:`WalkScreen` walks through one variant at a time (``quiz.core.learn``): the
question on top, the steps answered so far, the step to answer, and under a wrong step
its working; after the steps the question is asked whole (a guided attempt) and, in
learn mode, a fresh variant cold. Building a walk runs the solver and grading may too:
both run in worker threads.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, ClassVar, cast

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.markup import escape
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from questions.derivation import derivation_of
from quiz.core.words import plural
from quiz.tui import heap
from quiz.tui.messages import (
    AnswerSubmitted,
    LearnChosen,
    TaskFailed,
    WalkAnswered,
    WalkReady,
    while_shown,
)
from quiz.tui.screens.answering import AnsweringScreen
from quiz.tui.widgets.answer_box import AnswerBox
from quiz.tui.widgets.keys_line import KeysLine
from quiz.tui.widgets.title_bar import TitleBar

if TYPE_CHECKING:
    from questions.loader import Bank
    from questions.variants import Variant
    from quiz.core.learn import Progress, Walkthrough
    from quiz.core.state import AppState
    from quiz.core.types import Mode

VERDICT_STYLE = {"correct": "$text-success", "partial": "$text-warning",
                 "incorrect": "$text-error"}


class LearnScreen(Screen[None]):
    """Pick a rapid-fire item or topic; Enter walks through its templates easiest first."""

    DEFAULT_CSS = """
    #learn-title { padding: 1 2 0 2; text-style: bold; }
    #learn-list { height: 1fr; margin: 1 1 0 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.open_mode('home')", "Back"),
    ]

    def __init__(self, bank: Bank, progress: Sequence[Progress],
                 recount: Callable[[], Sequence[Progress]] | None = None) -> None:
        """Args:
            bank: the templates.
            progress: each item's and topic's progress, in the order listed.
            recount: counts the progress again (when a walk-through comes back here).
        """
        super().__init__()
        self.bank = bank
        self.progress = list(progress)
        self.recount = recount
        self._counted = True
        """The progress shown is current (a walk-through since makes it stale)."""

    def compose(self) -> ComposeResult:
        yield TitleBar("Learn")
        yield Static("Learn: each question walked through one step at a time, easiest "
                     "first, then asked cold. Pick an item or topic, then Enter.",
                     id="learn-title")
        options: list[Option | None] = []
        rapid = True
        for i, p in enumerate(self.progress):
            if rapid and not p.group.startswith("rapid-fire-"):
                rapid = False
                if options:
                    options.append(None)
            options.append(Option(_prompt(p), id=str(i)))
        yield OptionList(*options, id="learn-list")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#learn-list", OptionList).focus()

    def on_screen_suspend(self) -> None:
        self._counted = False  # a walk-through may follow: count again on the way back

    def on_screen_resume(self) -> None:
        if self._counted or self.recount is None:
            return
        self._counted = True
        progress = list(self.recount())
        if [p.group for p in progress] != [p.group for p in self.progress]:
            return  # the bank changed under the screen: keep the list it shows
        self.progress = progress
        menu = self.query_one("#learn-list", OptionList)
        for i, p in enumerate(progress):
            menu.replace_option_prompt(str(i), _prompt(p))

    @on(OptionList.OptionSelected, "#learn-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option_id is not None:
            self.post_message(LearnChosen(self.progress[int(event.option_id)].group))


def _prompt(p: Progress) -> str:
    """An item's or topic's line in the picker: its name and how far learning got."""
    from questions.tags import tag_label

    label = tag_label(p.group) if p.group.startswith("rapid-fire-") else p.group
    return (f"{escape(label)}  [$text-muted]{p.learned} of {p.templates} learned"
            + (f" · {p.walked} walked through" if p.walked > p.learned else "") + "[/]")


class WalkScreen(AnsweringScreen):
    """Walks through variants: a plan of templates (learn mode) or one variant.

    Args:
        state: the open history and settings.
        bank: the templates.
        template_ids: the plan, walked in order, each followed by a fresh variant cold.
        variant: instead of a plan, walk through this one variant (no cold question):
            "walk me through it" after a miss, or a leech in the drill.
        mode: the session kind recorded with the whole and cold answers.
        rng: where seeds come from.
    """

    DEFAULT_CSS = """
    #walk-bar { height: 1; padding: 0 1; background: $boost; }
    /* A long title ends in an ellipsis, apart from the progress, never cut mid-word. */
    #walk-label { width: 1fr; color: $text-muted; text-wrap: nowrap; text-overflow: ellipsis; }
    #walk-progress { width: auto; color: $text-muted; padding: 0 2; }
    #walk-scroll { height: 1fr; padding: 1 2 0 2; }
    #walk-question { padding: 0 1; border-left: wide $primary; }
    #walk-done { margin-top: 1; }
    #walk-feedback { margin-top: 1; padding: 0 1; border-left: wide $warning; }
    #walk-prompt { margin-top: 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+r", "reveal", "Reveal"),
        Binding("escape", "leave", "Stop"),
    ]

    def __init__(self, state: AppState, bank: Bank, *, template_ids: Sequence[str] = (),
                 variant: tuple[str, int] | None = None, mode: str = "practice",
                 rng: random.Random | None = None,
                 now: Callable[[], datetime] | None = None) -> None:
        super().__init__()
        self.state = state
        self.bank = bank
        self.plan = list(template_ids)
        self.single = variant
        self.mode = mode
        self.rng = rng or random.Random()
        self.now = now
        self.walkthrough: Walkthrough | None = None
        self.busy = True
        self.lines: list[str] = []
        """The walk so far, as markup lines."""
        self.total = len(self.plan)
        """Templates in the plan."""
        self.reading = heap.ReadingTime(self)
        """Runs a due garbage collection while a step's verdict is read."""
        self._keys_shown = self._keys(multiline=False, step=True)

    def compose(self) -> ComposeResult:
        yield TitleBar("Learn" if self.single is None else "Walk-through")
        with Horizontal(id="walk-bar"):
            yield Static("", id="walk-label", markup=False)
            yield Static("", id="walk-progress", markup=False)
        with VerticalScroll(id="walk-scroll"):
            yield Static("Building the walk-through…", id="walk-question", markup=False)
            yield Static("", id="walk-done")
            yield Static("", id="walk-prompt")
            yield Static("", id="walk-feedback")
        yield AnswerBox(id="answer-box")
        yield KeysLine(self._keys_shown)

    @staticmethod
    def _keys(*, multiline: bool, step: bool) -> list[tuple[str, str, str]]:
        """The keys line: a paragraph answer submits with Ctrl+D (Enter is a new line);
        only a step can be revealed."""
        keys = [("^d", "Submit", "screen.submit")] if multiline else [
            ("Enter", "Submit", "screen.submit")]
        if step:
            keys.append(("^r", "Reveal step", "screen.reveal"))
        return keys + [("Esc", "Stop", "screen.leave"), ("F1", "Help", "app.open_mode('help')")]

    def on_mount(self) -> None:
        self.query_one(AnswerBox).input.focus()
        self._next_walk()

    # ------------------------------------------------------------ building

    def _next_walk(self) -> None:
        self.busy = True
        if self.single is not None:
            tid, seed = self.single
            self.single = None
            self.plan = []
            self._build(tid, seed, None)
        elif self.plan:
            tid = self.plan.pop(0)
            self._build(tid, self.rng.randrange(1_000_000), self.rng.randrange(1_000_000))
        else:
            self.dismiss(None)

    @work(thread=True, exclusive=True, group="walk", exit_on_error=False)
    def _build(self, template_id: str, seed: int, cold_seed: int | None) -> None:
        from questions.variants import make_variant
        from quiz.core.clock import utc_now
        from quiz.core.learn import Walkthrough

        try:
            template = self.bank.get(template_id)
            variant: Variant = make_variant(template, seed)
            cold = make_variant(template, cold_seed) if cold_seed is not None else None
            w = Walkthrough(variant, self.state.store, self.state.settings, cold=cold,
                            mode=cast("Mode", self.mode), now=self.now or utc_now)
            for pv in (*variant.parts, *(cold.parts if cold else ())):
                _ = derivation_of(pv)  # the worked solutions, off the event loop
        except Exception as exc:  # a template that cannot draw: report, go on
            self.post_message(TaskFailed(f"walking through {template_id}", str(exc)))
            return
        self.post_message(WalkReady(w))

    @on(WalkReady)
    @while_shown
    def _ready(self, event: WalkReady) -> None:
        w = event.walkthrough
        self.walkthrough = w
        self._show_question(w.variant)
        self.lines = []
        self._feedback("")
        self._show_current()

    def _show_question(self, v: Variant) -> None:
        self.query_one("#walk-label", Static).update(f"{v.id} · {v.template.title}")
        question = v.intro if v.template.intro and len(v.parts) > 1 else v.parts[0].prompt
        if len(v.parts) > 1:
            question += "\n\n" + "\n".join(f"Part {p.index}: {p.prompt}"
                                           for p in v.parts[1 if not v.template.intro
                                                             else 0:])
        self.query_one("#walk-question", Static).update(question)
        done = self.total - len(self.plan)
        self.query_one("#walk-progress", Static).update(
            f"question {done} of {self.total}" if self.total > 1 else "")

    def after_failure(self) -> None:
        """A walk that could not be built gives way to the next one in the plan."""
        if self.walkthrough is None or self.walkthrough.finished:
            self._next_walk()

    # ------------------------------------------------------------ showing

    def _show_current(self) -> None:
        from quiz.tui.kinds import ask_in, asked_as

        w = self.walkthrough
        assert w is not None
        self.query_one("#walk-done", Static).update("\n".join(self.lines))
        self.query_one("#walk-done", Static).display = bool(self.lines)
        part = w.part
        prompt = self.query_one("#walk-prompt", Static)
        box = self.query_one(AnswerBox)
        if part is None:
            more = "the next question" if self.plan else "finish"
            prompt.update(f"[b]Walk-through done.[/] Enter for {more}, Esc to stop.")
            box.reset("Enter to go on", None)
            self._show_keys(multiline=False, step=False)
            self.busy = False
            return
        step = w.step
        lines = []
        if step is not None:
            lines += [f"[$text-muted]Given: {escape(g.why)}[/]" for g in step.given]
            lines.append(f"[b $text-accent]{escape(w.label)}.[/] [b]{escape(w.prompt)}[/]")
            if step.inputs:
                lines.append(f"[$text-muted]Using: {escape(' · '.join(step.inputs))}[/]")
        else:
            one = len(w.asked_variant.parts) == 1
            lead_in = w.lead_in if w.phase == "whole" else None
            if lead_in is not None:
                lines += [f"[$text-muted]Given: {escape(g.why)}[/]" for g in lead_in.given]
            if one and w.phase == "whole" and w.steps:
                lines.append(f"[b $text-accent]{escape(w.label)}[/] (above): put the steps "
                             "together and answer it.")
            elif one:
                lines.append(f"[b $text-accent]{escape(w.label)}[/] (above): answer it in "
                             "one go, no steps.")
            else:
                lines.append(f"[b $text-accent]{escape(w.label)}:[/]")
                lines.append(escape(w.prompt))
            if lead_in is not None and lead_in.inputs:
                lines.append(f"[$text-muted]Using: {escape(' · '.join(lead_in.inputs))}[/]")
            extra = asked_as(part.kind).extra(part)
            if extra:
                lines.append(extra)
        lines.append(asked_as(part.kind).how_to_answer(part))
        prompt.update("\n".join(lines))
        ask_in(box, part)  # a paragraph gets the question screen's text area (Ctrl+D)
        self._show_keys(multiline=box.multiline, step=step is not None)
        self.busy = False
        self.query_one("#walk-scroll", VerticalScroll).scroll_end(animate=False)

    def _show_keys(self, *, multiline: bool, step: bool) -> None:
        keys = self._keys(multiline=multiline, step=step)
        if keys != self._keys_shown:  # most steps keep the keys: no repaint
            self._keys_shown = keys
            self.query_one(KeysLine).set_keys(keys)

    def _feedback(self, markup: str) -> None:
        feedback = self.query_one("#walk-feedback", Static)
        feedback.update(markup)
        feedback.display = bool(markup)

    # ------------------------------------------------------------ answering

    @on(AnswerSubmitted)
    def _submitted(self, event: AnswerSubmitted) -> None:
        event.stop()
        w = self.walkthrough
        if w is None or self.busy:
            return
        if w.finished:
            self._next_walk()
            return
        text = event.text
        self.grade_in_worker(lambda: WalkAnswered(w.submit(text)))

    @on(WalkAnswered)
    def _answered(self, event: WalkAnswered) -> None:
        a = event.answer
        g = a.grade
        if self.refused(g):
            return
        self.reading.started()  # what follows is read: see quiz.tui.heap
        style = VERDICT_STYLE[g.verdict]
        if a.phase == "step" and not a.advanced:
            self._feedback("\n".join([
                f"[b {style}]Not yet[/] ({escape(g.read_as)}): {escape(g.feedback)}",
                *([f"[b $text-warning]Known mistake: {escape(g.mistake)}[/]"]
                  if g.mistake else []),
                "[b]How this step goes:[/]", escape(a.explanation),
                "[$text-muted]Try again, or Ctrl+R to see the answer and go on.[/]"]))
            self.busy = False  # the typed answer stays in the box, to correct
            self.query_one("#walk-scroll", VerticalScroll).scroll_end(animate=False)
            return
        from quiz.core.kinds import kind_of

        mark = {"correct": "✓", "partial": "~", "incorrect": "✗"}[g.verdict]
        entry = kind_of(g.key.kind)
        key = "" if g.verdict == "correct" else (
            f"\n  [$text-muted]{entry.key_label}: {escape(g.shown_key)}[/]" if entry.paragraph
            else f"  [$text-muted]key {escape(g.shown_key)}[/]")  # a paragraph: own lines
        retried = f" [$text-muted](after {plural(a.tries, 'wrong try', 'wrong tries')})[/]" \
            if a.tries else ""
        self.lines.append(f"[{style}]{mark}[/] {escape(a.what)}: {escape(g.read_as)}{key}"
                          f"{retried}")
        w = self.walkthrough
        if w is not None and w.phase == "cold" and a.phase == "whole":
            self._show_question(w.asked_variant)  # the fresh variant replaces the walked one
            self.lines = [f"[$text-muted]Walked through {escape(w.variant.id)}: "
                          f"{plural(len(w.done), 'step')}.[/]", *self.lines[-1:]]
        self._feedback("")
        if a.phase != "step":
            kind = "guided attempt" if a.phase == "whole" else "cold attempt"
            self.lines.append(f"  [$text-muted]{kind}, saved: {escape(g.feedback)}"
                              + (f" Known mistake: {escape(g.mistake)}." if g.mistake
                                 else "") + "[/]")
        self._show_current()

    def action_reveal(self) -> None:
        """Show the step's answer and working, and go on to the next step."""
        from quiz.core.kinds import key_text

        w = self.walkthrough
        if w is None or self.busy or w.step is None:
            return
        step = w.reveal()
        assert step is not None
        self.lines.append(f"[$text-muted]·[/] {escape(step.what)}: "
                          f"[b]{escape(key_text(step.pv))}[/] [$text-muted](shown)[/]")
        self._feedback("\n".join(["[b]How this step goes:[/]", escape(step.explanation)]))
        self._show_current()

    def action_leave(self) -> None:
        """Stop learning (what was answered whole or cold is saved)."""
        self.dismiss(None)
