"""The Textual application: a thin shell that composes the app's jobs and routes messages.

Each job is its own module, composed here:

- start-up loading, so that the home paints first: :mod:`quiz.tui.startup`;
- the history's lifecycle (held, backed up, closed cleanly): :mod:`quiz.tui.history`;
- routing between modes, sessions and walk-throughs: :mod:`quiz.tui.routing` (the modes'
  table is :mod:`quiz.tui.modes`);
- settings changed in the app: :mod:`quiz.tui.settings_sync`;
- garbage collection timed to the person: :mod:`quiz.tui.heap`;
- Textual's private API: :mod:`quiz.tui.textual_private`.

Screens never import this module: they post messages (:mod:`quiz.tui.messages`) that
the handlers below pass on. Importing it loads neither sympy nor the core; screens are
imported when first shown.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen

from quiz.tui import heap, textual_private
from quiz.tui.history import History
from quiz.tui.messages import (
    BankLoaded,
    FlagRequested,
    HomeReady,
    LearnChosen,
    MockChosen,
    ModeChosen,
    PracticeChosen,
    PracticeRequested,
    SessionEnded,
    SettingChanged,
    StartupFinished,
    StateOpened,
    SummaryComputed,
    SummaryRequested,
    TaskFailed,
    WalkRequested,
)
from quiz.tui.routing import Router, Start
from quiz.tui.screens.home import HomeScreen
from quiz.tui.settings_sync import SettingsWriter
from quiz.tui.startup import Loader, Sources

if TYPE_CHECKING:
    from textual.theme import Theme

    from questions.loader import Bank
    from quiz.core.state import AppState, DataFolder


WORKER_LATEST_S = 0.25
"""Seconds after the first frame by which the start-up worker has started, even if the
screen whose refresh was to start it went away first (see :meth:`QuizApp.on_ready`)."""


class QuizApp(App[int]):
    """The quiz terminal app.

    Args:
        data_dir: history and settings folder (None: ``QUIZ_DATA_DIR`` or the
            platform's user data folder).
        template_dirs: extra template folders.
        start: what to open once the bank is loaded (None: the home screen only).
        clock: monotonic seconds for sessions (question times, the mock's clock).
        now: aware UTC datetimes for sessions, scheduling and the store.
        seed: seed of the sessions' random picks (None: unpredictable).
        bank_loader: loads the bank from the open state (default:
            :func:`quiz.core.state.load_bank_for`); tests pass a slow one.
        template_files: the template files (default: the bundled bank and the user's
            folders); tests pass a fixed set.
    """

    TITLE = "quiz"
    SUB_TITLE = "the arithmetic of distributed training"
    CSS_PATH = Path(__file__).with_name("app.tcss")  # absolute: subclasses live elsewhere
    BINDINGS: ClassVar[list[BindingType]] = [
        # F1 opens the help from anywhere; "?" only where it is not a character to
        # type (an input takes it first), so the footers show F1.
        Binding("f1", "open_mode('help')", "Help", key_display="F1", priority=True),
        Binding("question_mark", "open_mode('help')", "Help", show=False),
    ]

    def __init__(self, data_dir: str | Path | None = None,
                 template_dirs: Sequence[str] = (), *, start: Start | None = None,
                 clock: Callable[[], float] | None = None,
                 now: Callable[[], datetime] | None = None,
                 seed: int | None = None,
                 bank_loader: Callable[[AppState], Bank] | None = None,
                 template_files: Callable[[DataFolder], Sequence[Path]] | None = None,
                 ) -> None:
        super().__init__()
        textual_private.apply_patches()  # Textual's memory and repaints: see there
        self.start = start
        self.clock = clock or time.monotonic
        self.now = now
        self.seed = seed
        self.history = History()
        self.loader = Loader(Sources(data_dir, list(template_dirs), now, bank_loader,
                                     template_files), self.history, self.post_message)
        self.router = Router(self)
        self._load: Callable[[], None] | None = None
        """The start-up worker's work (None: nothing to load)."""
        self.settings_writer = SettingsWriter(self)
        self.template_ids: list[str] | None = None
        """Every template's id, once the catalog is read (before the bank loads)."""
        self.home_ready = False
        """Today's figures are shown and the menu can be used (``HomeReady``)."""
        self.state: AppState | None = None
        """Settings and history, once open."""
        self.bank: Bank | None = None
        """The question templates, once loaded."""
        self.failure: str | None = None
        """Why the data could not be opened, if it could not."""
        self._froze = False
        """Start-up's objects are frozen (see :meth:`_freeze_startup_objects`)."""

    # ------------------------------------------------------------ start-up

    def get_default_screen(self) -> Screen[Any]:
        # `quiz drill` paints its question first: the home is composed when first shown
        return HomeScreen(deferred=self.start is not None and self.start.mode == "drill")

    @property
    def home(self) -> HomeScreen:
        """The home screen (always at the bottom of the stack)."""
        screen = self.screen_stack[0]
        assert isinstance(screen, HomeScreen)
        return screen

    def on_mount(self) -> None:
        # Out of collections until start-up's own (quiz.tui.heap), thawed on exit.
        heap.hold_imports()
        self._froze = True
        self.theme = self.loader.early_theme(self.available_themes)
        if self.start is not None and self.start.mode == "drill":
            self._open_drill()

    def _open_drill(self) -> None:
        """`quiz drill`: the first frame is the drill's first question. What it is drawn
        from is read here, before that frame (the history, the catalog, the cached
        limits: what the home's figures need too), and the question drawn from the
        compiled bank (:meth:`Router.first_question`); the worker goes on from there."""
        opened = self.loader.open()
        if opened is None:  # said why (TaskFailed): the home shows it
            self._load = None
            return
        first = self.router.first_question(opened)
        self.router.open_drill(first)
        template = first.question.template.id if first is not None else None
        self._load = lambda: self.loader.run(opened, figures=True, first_template=template)

    def on_ready(self) -> None:
        # Ready comes after the first frame. The home's figures are read here, on the
        # event loop (:mod:`quiz.tui.startup`); the worker starts once they are painted:
        # its imports (pydantic, sympy) hold the GIL for a while, and the home screen
        # must not wait for them.
        if self.start is None or self.start.mode != "drill":
            opened = self.loader.open()
            if opened is None:  # said why (TaskFailed): the home shows it
                return
            self._home_ready(self.loader.today(opened))
            self._load = lambda: self.loader.run(opened)
        # After the screen's next refresh; Textual keeps such a callback on the screen
        # shown now, and drops it if that screen is gone first (Escape pressed on the
        # drill's first question before it refreshed), so the timer starts the worker
        # at the latest WORKER_LATEST_S later: only when it starts depends on time.
        self.call_after_refresh(self._start_worker)
        self.set_timer(WORKER_LATEST_S, self._start_worker)

    def _start_worker(self) -> None:
        """Start the start-up worker, once (whichever of on_ready's two calls is first)."""
        load, self._load = self._load, None
        if load is not None and self.is_running:
            self.run_worker(load, thread=True, exit_on_error=False, group="load")

    def close_store(self) -> None:
        """Close the history, marking it closed cleanly (see :mod:`quiz.tui.history`)."""
        self.history.close()

    @on(StartupFinished)
    def _freeze_startup_objects(self) -> None:
        # Start-up's objects live as long as the app: out of every later collection
        # (quiz.tui.heap); thawed on exit, so a process running several apps (the
        # tests) frees each one's cycles as before.
        if not self.is_running:
            return
        heap.freeze_startup()
        self._froze = True

    def on_unmount(self) -> None:
        if self._froze:
            heap.thaw()
            self._froze = False

    @on(HomeReady)
    def _home_ready(self, event: HomeReady) -> None:
        self.template_ids = event.template_ids
        self.home_ready = True
        if self.screen_stack:
            self.home.ready(event.summary, ids_known=event.template_ids is not None)
        if event.first_run and self.start is None:
            from quiz.tui.screens.welcome import WelcomeScreen

            self.push_screen(WelcomeScreen())

    @on(StateOpened)
    def _state_opened(self, event: StateOpened) -> None:
        self.state = event.state
        theme = event.state.settings.theme
        if theme in self.available_themes:
            self.theme = theme
        else:
            self.notify(f"Unknown theme {theme!r} in the settings; using {self.theme}.",
                        severity="warning")
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        for warning in event.state.warnings:
            self.notify(warning, title="Settings and history", severity="warning",
                        timeout=10)
        if self.screen_stack:  # empty: the app is closing
            self.home.state_opened(event.state.warnings)
        self.history.back_up(self, event.state)
        self.router.run_waiting()

    def _theme_changed(self, theme: Theme) -> None:
        """Keep a theme picked in the command palette for the next start."""
        if self.state is not None and theme.name != self.state.settings.theme:
            self.change_setting("theme", theme.name)

    def change_setting(self, name: str, value: object) -> None:
        """Apply one setting now and write it to the settings file (in a thread)."""
        assert self.state is not None
        self.settings_writer.change(self.state, name, value)

    @on(SettingChanged)
    def _setting_changed(self, event: SettingChanged) -> None:
        self.change_setting(event.name, event.value)

    @on(BankLoaded)
    def _bank_loaded(self, event: BankLoaded) -> None:
        self.bank = event.bank
        if not self.screen_stack:
            return  # it came as the app was closing: no home to update, no mode to open
        problems = [str(p) for p in event.bank.problems]
        if problems:
            self.notify(f"{len(problems)} problem(s) in template files; those files were "
                        "skipped (details on the home screen).", severity="warning",
                        timeout=10)
        self.home.bank_loaded(len(event.bank.templates), problems)
        if sorted(event.bank.templates) != sorted(self.template_ids or ()):
            self.refresh_summary()  # the figures were counted over other ids
        self.router.run_waiting()
        start, self.start = self.start, None
        if start is not None:
            self.router.open_start(start)

    @on(TaskFailed)
    def _task_failed(self, event: TaskFailed) -> None:
        message = f"Something went wrong {event.what}: {event.message}"
        if self.state is None or self.bank is None:
            self.failure = message
            if self.screen_stack:
                self.home.failed(message)
        self.notify(message, severity="error", timeout=15)

    # ------------------------------------------------------------ home figures

    @on(SummaryRequested)
    def _summary_requested(self) -> None:
        self.refresh_summary()

    def refresh_summary(self) -> None:
        """Recompute the home screen's figures in a thread."""
        state = self.state
        if state is None:
            return
        ids = sorted(self.bank.templates) if self.bank is not None else self.template_ids

        def compute() -> None:
            summary = self.loader.summary(state.store, state.settings, ids)
            if summary is not None:
                self.post_message(SummaryComputed(summary))

        self.run_worker(compute, thread=True, exclusive=True, group="summary",
                        exit_on_error=False)

    @on(SummaryComputed)
    def _summary_computed(self, event: SummaryComputed) -> None:
        if self.screen_stack:
            self.home.show_summary(event.summary)

    # ------------------------------------------------------------ routing

    def action_open_mode(self, mode: str) -> None:
        """Open a mode (bound to keys and used by the command palette)."""
        self.open_mode(mode)

    def open_mode(self, mode: str) -> None:
        """Open ``mode`` (see :meth:`quiz.tui.routing.Router.open_mode`)."""
        self.router.open_mode(mode)

    def start_practice_on(self, template_ids: Sequence[str],
                          first: tuple[str, int] | None = None) -> None:
        """Practise exactly these templates (see :class:`quiz.tui.routing.Router`)."""
        self.router.start_practice_on(template_ids, first)

    @on(ModeChosen)
    def _mode_chosen(self, event: ModeChosen) -> None:
        self.open_mode(event.mode)

    @on(PracticeChosen)
    def _practice_chosen(self, event: PracticeChosen) -> None:
        self.router.start_practice(event.topic, event.difficulty, event.schedule)

    @on(PracticeRequested)
    def _practice_requested(self, event: PracticeRequested) -> None:
        self.router.start_practice_on(event.template_ids, event.first)

    @on(LearnChosen)
    def _learn_chosen(self, event: LearnChosen) -> None:
        self.router.start_learn(event.target)

    @on(WalkRequested)
    def _walk_requested(self, event: WalkRequested) -> None:
        self.router.walk_through(event.template_id, event.seed)

    @on(MockChosen)
    def _mock_chosen(self, event: MockChosen) -> None:
        self.router.when_bank_loaded(lambda: self.router.start_mock(
            event.questions, event.minutes, event.closing_minutes))

    @on(SessionEnded)
    def _session_ended(self, event: SessionEnded) -> None:
        self.router.session_ended(event.mode, event.session)

    @on(FlagRequested)
    def _flag_requested(self, event: FlagRequested) -> None:
        self.router.flag_question(event.question, event.attempt_id)

    async def action_quit(self) -> None:
        """Quit; in a running mock interview, ask first (as Escape does)."""
        from quiz.tui.screens.question import QuestionScreen

        running = next((s for s in reversed(self.screen_stack)
                        if isinstance(s, QuestionScreen)), None)
        if running is not None and running.mock is not None and not running.finishing:
            from quiz.tui.screens.confirm import ConfirmScreen

            if isinstance(self.screen, ConfirmScreen):
                self.exit()  # Ctrl+Q twice quits for sure
            else:
                running.confirm_leaving("Quit during the mock interview?", self.exit)
            return
        await super().action_quit()

    # ------------------------------------------------------------ command palette

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        from quiz.tui.modes import palette_modes

        for mode in palette_modes():
            yield SystemCommand(mode.title, mode.palette,
                                lambda name=mode.name: self.open_mode(name))
        yield from super().get_system_commands(screen)
