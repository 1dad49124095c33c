"""The home screen: what is due today, how it has been going, and the modes.

It paints before anything slow has happened: the figures arrive later, from the app's
workers, through :meth:`HomeScreen.ready`, :meth:`HomeScreen.state_opened`,
:meth:`HomeScreen.bank_loaded` and :meth:`HomeScreen.show_summary`.

Under `quiz drill` the home is the bottom screen but the first frame is the question:
there it is built empty (``deferred``) and composed the first time it is shown, from
what it was fed meanwhile, so that its widgets are neither styled nor laid out before
the question paints (bench/README.md, "Drill's first question").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.markup import escape
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from quiz.tui.messages import ModeChosen, SummaryRequested
from quiz.tui.modes import MODES, Mode, menu_modes
from quiz.tui.widgets.title_bar import TitleBar

if TYPE_CHECKING:
    from quiz.tui.today import HomeSummary

TITLE_TEXT = "Drill the arithmetic of distributed LLM training"
"""The home screen's headline (the start-up benchmark waits for it)."""

KEYS_LINE = ("[b $text-accent]↑ ↓[/] [b $text-accent]Enter[/] choose   "
             "[b $text-accent]ctrl+p[/] command palette   [b $text-accent]q[/] quit")



def _ready(mode: Mode, *, state: bool, bank: bool) -> bool:
    return (state or not mode.needs_state) and (bank or not mode.needs_bank)


def _prompt(key: str, name: str, blurb: str, note: str = "") -> str:
    tail = f"[$text-muted]{escape(note or blurb)}[/]"
    return f"[b $text-accent]{escape(key)}[/]  [b]{escape(name)}[/]\n   {tail}"


class HomeScreen(Screen[None]):
    """Today's drill, streak and accuracy, the modes, and any warnings.

    Args:
        summary: today's figures, when they are known before the screen is built (as
            :meth:`ready` shows them); None: "Opening your history…" until they are.
        ids_known: with ``summary``, the template ids are known too.
        deferred: compose nothing until the screen is first shown (it is under another
            screen until then); what it is fed meanwhile is shown then.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(mode.key, f"app.open_mode('{mode.name}')", mode.binding)
          for mode in MODES if mode.key and mode.binding),
        # q quits from here only: elsewhere it is a letter to type or means "close".
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, summary: HomeSummary | None = None, *, ids_known: bool = False,
                 deferred: bool = False) -> None:
        super().__init__()
        self._warnings: list[str] = []
        self._summary = summary
        self._state = summary is not None
        self._bank = self._state and ids_known
        self._failed = False
        self._deferred = deferred
        """Not composed yet: the methods below only keep what they are given."""
        self._due_text: str | None = None
        """What the "due" line shows when it is not the summary's (a failure)."""
        self._bank_text = ""

    def compose(self) -> ComposeResult:
        if self._deferred:
            return
        yield TitleBar()
        yield Static(TITLE_TEXT, id="home-title")
        with Horizontal(id="home-main"):
            yield OptionList(*self._options(state=self._state, bank=self._bank),
                             id="home-menu")
            with Vertical(id="home-today"):
                yield Static("Today", classes="panel-title")
                yield Static("Opening your history…", id="home-due")
                yield Static("", id="home-progress")
                yield Static("", id="home-streak")
                yield Static("", id="home-accuracy")
                yield Static("", id="home-bank", classes="muted")
        with VerticalScroll(id="home-warnings"):
            yield Static("", id="home-warnings-text", markup=False)
        # No Footer here: the menu shows every key of this screen, and a Footer costs
        # the first paint a noticeable share of its time.
        yield Static(KEYS_LINE, id="home-keys")

    def on_mount(self) -> None:
        if not self._deferred:
            self._composed()

    def _composed(self) -> None:
        """Show what is known so far on the widgets just composed."""
        self.query_one("#home-menu", OptionList).focus()
        if self._failed:  # composed saying "loading…" where it says "unavailable"
            self._enable(state=self._state, bank=self._bank)
        failure = self._due_text  # came after the summary, if there is one
        if self._summary is not None:
            self.show_summary(self._summary)
        if failure is not None:
            self._due_text = failure
            self.query_one("#home-due", Static).update(failure)
        self.query_one("#home-bank", Static).update(self._bank_text)
        self._show_warnings()

    def _options(self, *, state: bool, bank: bool) -> list[Option]:
        options = []
        for mode in menu_modes():
            ready = _ready(mode, state=state, bank=bank)
            note = "" if ready else "loading…"
            options.append(Option(_prompt(mode.key, mode.title, mode.blurb, note), id=mode.name,
                                  disabled=not ready))
        return options

    def _enable(self, *, state: bool, bank: bool) -> None:
        self._state, self._bank = state, bank
        if self._deferred:
            return  # composed with these (see _options)
        menu = self.query_one("#home-menu", OptionList)
        waiting = "unavailable: see Today" if self._failed else "loading…"
        for mode in menu_modes():
            ready = _ready(mode, state=state, bank=bank)
            menu.replace_option_prompt(mode.name, _prompt(mode.key, mode.title, mode.blurb,
                                                          "" if ready else waiting))
            if ready:
                menu.enable_option(mode.name)
            else:
                menu.disable_option(mode.name)

    # ------------------------------------------------------------ fed by the app

    def ready(self, summary: HomeSummary | None, *, ids_known: bool) -> None:
        """Today's figures are known (None: they could not be computed, and the app says
        why): the modes can be picked, those that need the templates once their ids are
        known (``ids_known``); one picked before what it needs is loaded opens as soon
        as it is."""
        self._enable(state=True, bank=ids_known)
        if summary is not None:
            self.show_summary(summary)

    def state_opened(self, warnings: list[str]) -> None:
        """Settings and history are open: show what the user should know about them."""
        self._warnings = [*warnings, *self._warnings]
        self._show_warnings()

    def bank_loaded(self, templates: int, problems: list[str]) -> None:
        """The bank is loaded: every mode is available."""
        self._enable(state=True, bank=True)
        self._bank_text = f"{templates} question templates"
        if not self._deferred:
            self.query_one("#home-bank", Static).update(self._bank_text)
        if problems:
            self._warnings += ["These template files were skipped:", *problems]
        self._show_warnings()

    def failed(self, message: str) -> None:
        """Opening the data or loading the bank failed: say why, in place of "loading…"."""
        self._failed = True
        self._enable(state=self._state, bank=self._bank)
        self._due_text = f"[$text-error]{escape(message)}[/]"
        if not self._deferred:
            self.query_one("#home-due", Static).update(self._due_text)

    def show_summary(self, summary: HomeSummary) -> None:
        """Show today's figures."""
        self._summary, self._due_text = summary, None
        if self._deferred:
            return
        from quiz.core.words import plural
        from quiz.tui.today import percent

        due = self.query_one("#home-due", Static)
        progress = self.query_one("#home-progress", Static)
        if summary.due is None:
            due.update("Loading questions…")
            progress.update("")
        elif summary.due == 0:
            due.update("[b $text-success]Done for today.[/] Nothing is due.")
            progress.update("Practice or a mock interview still count towards your stats.")
        else:
            noun = "question" if summary.due == 1 else "questions"
            new = min(summary.new_available or 0, summary.due)
            due.update(f"[b]{summary.due}[/] {noun} in today's drill: "
                       f"{new} new, {summary.due - new} to review")
            done = summary.new_done + summary.reviews_done
            progress.update(f"{done} done today" if done else "Press d to start.")
        days = "day" if summary.streak == 1 else "days"
        self.query_one("#home-streak", Static).update(f"Streak: [b]{summary.streak}[/] {days}")
        accuracy = (f"Recent accuracy: [b]{percent(summary.recent_accuracy)}[/] "
                    f"({plural(summary.attempts, 'answer')} in all)" if summary.attempts
                    else "No answers yet.")
        self.query_one("#home-accuracy", Static).update(accuracy)

    def _show_warnings(self) -> None:
        if self._deferred:
            return
        self.query_one("#home-warnings").display = bool(self._warnings)
        self.query_one("#home-warnings-text", Static).update("\n".join(self._warnings))

    # ------------------------------------------------------------ events

    async def on_screen_resume(self) -> None:
        if self._deferred and self.app.screen is self:  # first shown: compose it now
            self._deferred = False
            await self.recompose()
            self._composed()
        self.post_message(SummaryRequested())

    @on(OptionList.OptionSelected, "#home-menu")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option_id:
            self.post_message(ModeChosen(event.option_id))
