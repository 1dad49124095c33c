"""The Textual application: a thin shell that opens the data, loads the bank, and routes.

Start-up is split so that the home screen paints first: importing this module loads
neither sympy nor the core. The home screen is the default screen; one thread worker
then opens the history, reads the template ids and computes today's figures
(``HomeReady``: the home is usable), then reads the settings model (``StateOpened``)
and loads the question bank (``BankLoaded``, which imports sympy). A mode picked before
what it needs is loaded opens as soon as it is. Started by ``quiz``, the figures come
from a helper process that computed them while Textual was imported
(:mod:`quiz.tui.early`), and the worker opens the history once they are shown.

Screens are imported when first shown, for the same reason.
"""

from __future__ import annotations

import random
import re
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen

from quiz.tui import heap
from quiz.tui.messages import (
    BankLoaded,
    HomeReady,
    LearnChosen,
    MockChosen,
    ModeChosen,
    PracticeChosen,
    SessionEnded,
    StartupFinished,
    StateOpened,
    SummaryComputed,
    SummaryRequested,
    TaskFailed,
)
from quiz.tui.screens.home import HomeScreen
from quiz.tui.textual_fixes import fix_hidden_repaints, fix_paint_cycles, fix_styles_cache

if TYPE_CHECKING:
    from textual.theme import Theme

    from questions.loader import Bank
    from quiz.core.session import Question, Session
    from quiz.core.settings import Settings
    from quiz.core.settings_cache import DailyLimits
    from quiz.core.state import AppState, DataFolder
    from quiz.core.store import Store
    from quiz.tui.early import EarlyFigures
    from quiz.tui.today import HomeSummary

_DEFAULT_THEME = "textual-dark"
_THEME_LINE = re.compile(r'^\s*theme\s*=\s*"([\w.-]+)"\s*(?:#.*)?$', re.MULTILINE)


PAINT_WAIT = 0.5
"""Most seconds the start-up worker waits for the home's figures to be painted before
reading the settings model and the templates (it never waits longer: a frame that is
not drawn by then is not worth holding the rest of start-up for)."""


class QuizApp(App[int]):
    """The quiz terminal app.

    Args:
        data_dir: history and settings folder (None: ``QUIZ_DATA_DIR`` or the
            platform's user data folder).
        template_dirs: extra template folders.
        mode: start in ``drill``, ``mock`` or ``practice`` instead of the home screen.
        mock_minutes: time limit of a mock started with ``mode="mock"``.
        mock_questions: questions in a mock started with ``mode="mock"``.
        mock_closing: minutes for the 30-second answer closing that mock (None: none).
        practice_topic: topic, tag or id prefix of a practice started with
            ``mode="practice"`` (None: show the picker).
        practice_difficulty: only this difficulty (1-3) in that practice.
        clock: monotonic seconds for sessions (question times, the mock's clock).
        now: aware UTC datetimes for sessions, scheduling and the store.
        seed: seed of the sessions' random picks (None: unpredictable).
        bank_loader: loads the bank from the open state (default:
            :func:`quiz.core.state.load_bank_for`); tests pass a slow one.
        template_files: the template files (default: the bundled bank and the user's
            folders); tests pass a fixed set.
        early: today's figures being computed by a helper process
            (:func:`quiz.tui.early.start`, which ``quiz`` calls before importing
            Textual); None: the start-up worker computes them.
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
                 template_dirs: Sequence[str] = (), *, mode: str | None = None,
                 mock_minutes: int | None = None, mock_questions: int | None = None,
                 mock_closing: int | None = None,
                 practice_topic: str | None = None,
                 practice_difficulty: int | None = None,
                 learn_target: str | None = None,
                 clock: Callable[[], float] | None = None,
                 now: Callable[[], datetime] | None = None,
                 seed: int | None = None,
                 bank_loader: Callable[[AppState], Bank] | None = None,
                 template_files: Callable[[DataFolder], Sequence[Path]] | None = None,
                 early: EarlyFigures | None = None,
                 ) -> None:
        super().__init__()
        fix_styles_cache()  # see quiz.tui.textual_fixes: widgets painted once stay alive
        fix_paint_cycles()  # and: every painted line was a reference cycle
        fix_hidden_repaints()  # and: a covered screen repainted the top one
        if mode not in (None, "drill", "mock", "practice", "learn"):
            raise ValueError(f"unknown start mode {mode!r}")
        self.data_dir = data_dir
        self.template_dirs = list(template_dirs)
        self.start_mode = mode
        self.mock_minutes = mock_minutes
        self.mock_questions = mock_questions
        self.mock_closing = mock_closing
        self.practice_topic = practice_topic
        self.practice_difficulty = practice_difficulty
        self.learn_target = learn_target
        self.clock = clock or time.monotonic
        self.now = now
        self.seed = seed
        self.bank_loader = bank_loader
        self.template_files = template_files
        self._early = early
        self._early_shown = False
        """The home screen was built with the helper's figures (see get_default_screen)."""
        self.template_ids: list[str] | None = None
        """Every template's id, once the catalog is read (before the bank loads)."""
        self.home_ready = False
        """Today's figures are shown and the menu can be used (``HomeReady``)."""
        self._home_painted = threading.Event()
        """Set once the screen with today's figures is painted: the start-up worker
        waits for it before its slow imports, which would hold the interpreter while
        that frame is drawn."""
        self._waiting: list[Callable[[], None]] = []
        self._settings_lock = threading.Lock()
        self.state: AppState | None = None
        """Settings and history, once open."""
        self._store: Store | None = None
        """The history, from the moment the start-up worker opens it (before the settings
        model, so before :attr:`state`): :meth:`close_store` closes it."""
        self._store_closed = False
        self._store_lock = threading.Lock()
        self.bank: Bank | None = None
        """The question templates, once loaded."""
        self.failure: str | None = None
        """Why the data could not be opened, if it could not."""
        self._froze = False
        """Start-up's objects are frozen (see :meth:`freeze_startup_objects`)."""

    # ------------------------------------------------------------ start-up

    def get_default_screen(self) -> Screen[Any]:
        # Today's figures, when the helper process has them already (it usually has on a
        # machine with a core to spare): then the first frame shows them.
        if self._early is None or not self._early.done():
            return HomeScreen()
        figures, self._early = self._early.result(), None
        if figures is None:
            return HomeScreen()  # it had none: the start-up worker computes them
        self._early_shown = True
        self.post_message(HomeReady(figures.first_run, figures.template_ids,
                                    figures.summary, shown=True))
        return HomeScreen(figures.summary, ids_known=True)

    @property
    def home(self) -> HomeScreen:
        """The home screen (always at the bottom of the stack)."""
        screen = self.screen_stack[0]
        assert isinstance(screen, HomeScreen)
        return screen

    def on_mount(self) -> None:
        self.theme = self._early_theme()

    def on_ready(self) -> None:
        # Ready comes after the first frame: the worker's imports (pydantic, sympy) hold
        # the GIL for a while, and the home screen must not wait for them.
        # Textual and the home: out of the imports' full collections (and collections
        # back on, if `quiz` held them off for the first paint)
        heap.freeze_alive()
        self._froze = True
        self._open()

    def _early_theme(self) -> str:
        """The theme named in the settings file, read cheaply before the first paint.

        The full settings (pydantic) load in the worker; reading this one line here
        spares light-theme users a flash of the dark theme. The settings file is flat
        ``key = value`` TOML, so a regular expression finds the line without paying for
        tomllib's import; anything unusual falls back to the default, and the worker's
        real reading wins a moment later.
        """
        try:
            from questions.textfile import read_text_file
            from quiz import locations

            folder = locations.data_dir(self.data_dir)
            # 64 KB: quiz.core.settings_cache.MAX_SETTINGS_BYTES (not imported: json and
            # hashlib would cost the first paint)
            text = read_text_file(locations.config_path(folder), 64 * 1024)
        except (OSError, ValueError):
            return _DEFAULT_THEME
        found = _THEME_LINE.search(text)
        theme = found.group(1) if found else _DEFAULT_THEME
        return theme if theme in self.available_themes else _DEFAULT_THEME

    @work(thread=True, exit_on_error=False, group="load")
    def _open(self) -> None:
        # The home is usable from the history, the template ids (the catalog is cached:
        # no TOML, no sympy) and the drill's daily limits (cached from the settings: no
        # pydantic). They come first, in this one thread, so that nothing competes with
        # them for the interpreter; the settings model, the templates and the solver
        # follow, and a mode picked meanwhile waits for what it needs.
        # With figures from the helper process (quiz.tui.early) the home is usable at
        # once, and the history is opened here only after that frame is painted.
        early = self._early.result() if self._early is not None else None
        if early is not None:
            self.post_message(HomeReady(early.first_run, early.template_ids, early.summary))
            self._home_painted.wait(PAINT_WAIT)
        shown = early is not None or self._early_shown
        from quiz.core.state import cached_limits, catalog_for, load_bank_for, open_folder

        try:
            folder = open_folder(self.data_dir, self.template_dirs, now=self.now)
            if not self._keep_store(folder.store):
                return  # the app has already ended
            first_run = not folder.store.has_attempts()
        except Exception as exc:  # StoreError, permissions: say so, keep the app up
            self.post_message(TaskFailed("opening your history", str(exc)))
            return
        catalog, catalog_problem = None, ""
        try:
            files = self.template_files(folder) if self.template_files else None
            catalog = catalog_for(folder, files)
        except Exception as exc:  # a broken bundled bank: report, keep stats usable
            catalog_problem = str(exc)
        ids = catalog.ids if catalog is not None else None
        state: AppState | None = None
        if not shown:
            limits: Settings | DailyLimits | None = cached_limits(folder)
            if limits is None:  # a first start, or the settings changed: validate first
                state = self._with_settings(folder)
                if state is None:
                    return
                limits = state.settings
            self.post_message(HomeReady(first_run, ids,
                                        self._summary(folder.store, limits, ids)))
            self._home_painted.wait(PAINT_WAIT)
        if state is None:
            state = self._with_settings(folder)
            if state is None:
                return
        self.post_message(StateOpened(state))
        if catalog is None:
            self.post_message(TaskFailed("loading the questions", catalog_problem))
            return
        try:
            bank = (self.bank_loader(state) if self.bank_loader
                    else load_bank_for(state, catalog))
        except Exception as exc:
            self.post_message(TaskFailed("loading the questions", str(exc)))
            return
        self.post_message(BankLoaded(bank))
        import quiz.core.session  # noqa: F401  (sympy and the solver, before the first draw)

        self.post_message(StartupFinished())

    def _keep_store(self, store: Store) -> bool:
        """Hold the history the start-up worker opened, so that it is closed at exit even
        when the person quits before the settings are read; False (the history closed
        at once) when the app has already ended."""
        with self._store_lock:
            if self._store_closed:
                store.close()
                return False
            self._store = store
            return True

    def close_store(self) -> None:
        """Close the history, marking it closed cleanly (the next start then skips reading
        every page); safe to call twice, and before the history was ever opened."""
        with self._store_lock:
            self._store_closed = True
            if self._store is not None:
                self._store.close()

    def _with_settings(self, folder: DataFolder) -> AppState | None:
        """The settings read onto the open folder (in a worker), or None after saying why
        they could not be (a bad file is warnings, not this: see ``load_settings``)."""
        from quiz.core.state import with_settings

        try:
            return with_settings(folder)
        except Exception as exc:
            self.post_message(TaskFailed("reading the settings", str(exc)))
            return None

    def _summary(self, store: Store, limits: Settings | DailyLimits,
                 ids: Sequence[str] | None) -> HomeSummary | None:
        """Today's figures (in a worker), or None after saying why they could not be."""
        from quiz.tui.today import home_summary

        try:
            return home_summary(store, limits, ids, self.now)
        except Exception as exc:  # the home screen keeps its last figures
            self.post_message(TaskFailed("reading today's figures", str(exc)))
            return None

    @on(StartupFinished)
    def freeze_startup_objects(self) -> None:
        """Leave the objects start-up made out of every later garbage collection.

        Imports (sympy, pydantic, Textual), the bank and the store are some 170,000
        objects that live as long as the app, and a full (generation-2) collection
        scanned them all each time, in the middle of whatever Enter it fell on (see
        :mod:`quiz.tui.heap`). On exit the app thaws them (:meth:`on_unmount`), so a
        process that runs several apps (the tests) frees each one's cycles as before.
        """
        if not self.is_running:
            return
        heap.freeze_startup()
        self._froze = True

    def on_unmount(self) -> None:
        if self._froze:
            heap.thaw()
            self._froze = False

    @work(thread=True, exit_on_error=False, group="backup")
    def _backup(self, state: AppState) -> None:
        """Today's backup, behind the home screen (seconds for a big history; it reads
        through its own connection, so answering is never held up)."""
        from quiz.core.state import backup_today

        problem = backup_today(state)
        if problem:
            self.call_from_thread(self.notify, problem, title="Backup",
                                  severity="warning", timeout=10)

    @on(HomeReady)
    def _home_ready(self, event: HomeReady) -> None:
        self.template_ids = event.template_ids
        self.home_ready = True
        if not event.shown and self.screen_stack:
            self.home.ready(event.summary, ids_known=event.template_ids is not None)
        if event.first_run and self.start_mode is None:
            from quiz.tui.screens.welcome import WelcomeScreen

            self.push_screen(WelcomeScreen())
        self.call_after_refresh(self._home_painted.set)

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
        self._backup(event.state)
        self._run_waiting()

    def _theme_changed(self, theme: Theme) -> None:
        """Keep a theme picked in the command palette for the next start."""
        if self.state is not None and theme.name != self.state.settings.theme:
            self.change_setting("theme", theme.name)

    def change_setting(self, name: str, value: object) -> None:
        """Apply one setting now and write it to the settings file (in a thread).

        Args:
            name: a field of :class:`quiz.core.settings.Settings`.
            value: its new value, already valid (the settings model checks it again
                and raises ``pydantic.ValidationError`` if not).
        """
        assert self.state is not None
        if getattr(self.state.settings, name) == value:
            return
        setattr(self.state.settings, name, value)
        if name == "theme" and self.theme != value:
            self.theme = str(value)
        self._save_settings(name)

    @work(thread=True, group="settings", exit_on_error=False)
    def _save_settings(self, name: str) -> None:
        from quiz import locations
        from quiz.core.settings import save_settings

        assert self.state is not None
        # One writer at a time, each writing its setting as it is when it runs (the
        # latest value) into the file as it is then: only that key changes, so a hand
        # edit of another made meanwhile stays.
        with self._settings_lock:
            try:
                save_settings(self.state.settings,
                              locations.config_path(self.state.data_dir),
                              locations.settings_cache_path(self.state.data_dir),
                              only=(name,))
            except (OSError, ValueError) as exc:
                self.post_message(TaskFailed("saving the settings", str(exc)))

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
        self._run_waiting()
        mode, self.start_mode = self.start_mode, None
        if mode == "drill":
            self.start_drill()
        elif mode == "mock":
            self.start_mock(self.mock_questions, self.mock_minutes, self.mock_closing)
        elif mode == "practice":
            if self.practice_topic or self.practice_difficulty:
                self.start_practice(self.practice_topic, self.practice_difficulty, False)
            else:
                self.open_mode("practice")
        elif mode == "learn":
            if self.learn_target:
                self.start_learn(self.learn_target)
            else:
                self.open_mode("learn")

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

    @work(thread=True, exclusive=True, group="summary", exit_on_error=False)
    def refresh_summary(self) -> None:
        """Recompute the home screen's figures in a thread."""
        if self.state is None:
            return
        ids = sorted(self.bank.templates) if self.bank is not None else self.template_ids
        summary = self._summary(self.state.store, self.state.settings, ids)
        if summary is not None:
            self.post_message(SummaryComputed(summary))

    @on(SummaryComputed)
    def _summary_computed(self, event: SummaryComputed) -> None:
        if self.screen_stack:
            self.home.show_summary(event.summary)

    # ------------------------------------------------------------ routing

    @on(ModeChosen)
    def _mode_chosen(self, event: ModeChosen) -> None:
        self.open_mode(event.mode)

    def action_open_mode(self, mode: str) -> None:
        """Open a mode (bound to keys and used by the command palette)."""
        self.open_mode(mode)

    def open_mode(self, mode: str) -> None:
        """Open ``mode`` (a name in :data:`quiz.tui.modes.MODES`) from wherever the user is.

        A mode that needs the history or the bank says what it is waiting for (or what
        went wrong) instead of opening.
        """
        from quiz.tui.modes import by_name

        entry = by_name(mode)
        if entry.needs_state and self.state is None:
            if self.failure:
                self.notify(self.failure, severity="error")
                return
            if not self.home_ready:
                self.notify("Still opening your history… this opens in a moment.")
            # else the settings are being read (a blink): open it then, unannounced
            self._waiting = [lambda: self.open_mode(mode)]
            return
        if entry.needs_bank and self.bank is None:
            self.when_bank_loaded(lambda: self.open_mode(mode))
            return
        entry.opener(self)

    def when_bank_loaded(self, then: Callable[[], None]) -> None:
        """Run ``then`` now if the bank is loaded, else as soon as it is (the last
        request wins: the user changed their mind)."""
        if self.bank is not None:
            then()
            return
        if self.failure:
            self.notify(self.failure, severity="error")
            return
        self.notify("Loading the questions… this opens in a moment.")
        self._waiting = [then]

    def _run_waiting(self) -> None:
        """Run what was waiting for the settings or the bank (it waits again for
        whatever it still needs)."""
        waiting, self._waiting = self._waiting, []
        for then in waiting:
            then()

    def go_home(self) -> None:
        """Close every screen above the home screen."""
        while len(self.screen_stack) > 1:
            self.pop_screen()

    # ------------------------------------------------------------ sessions

    def _session_kw(self) -> dict[str, Any]:
        kw: dict[str, Any] = {"clock": self.clock,
                              "rng": random.Random(self.seed) if self.seed is not None
                              else random.Random()}
        if self.now is not None:
            kw["now"] = self.now
        return kw

    def start_drill(self) -> None:
        """Start today's drill, or say it is done for today."""
        from quiz.core.session import DrillSession
        from quiz.tui.screens.done import DoneScreen

        assert self.state is not None and self.bank is not None
        state = self.state
        session = DrillSession(self.bank, state.store, state.settings, **self._session_kw())
        self.go_home()
        if not session.queue():
            self.push_screen(DoneScreen(state, self.bank, self.now))
        else:
            self._ask(session, "drill")

    def start_practice(self, topic: str | None, difficulty: int | None,
                       schedule: bool) -> None:
        """Start endless practice on a topic, tag or id prefix (None: everything)."""
        from quiz.core.errors import NoQuestions
        from quiz.core.session import PracticeSession

        assert self.state is not None and self.bank is not None
        try:
            session = PracticeSession(self.bank, self.state.store, self.state.settings,
                                      topic=topic, difficulty=difficulty, schedule=schedule,
                                      **self._session_kw())
        except NoQuestions as exc:
            from quiz.tui.screens.practice import PracticeScreen

            self.notify(f"Nothing to practise: {exc}.", severity="warning")
            if not isinstance(self.screen, PracticeScreen):
                self.open_mode("practice")
            return
        self._ask(session, "practice")

    def start_practice_on(self, template_ids: Sequence[str],
                          first: tuple[str, int] | None = None) -> None:
        """Practise exactly these templates (a retry, the leeches, the browser's pick).

        Args:
            template_ids: the templates to draw from.
            first: a ``(template id, seed)`` variant to ask first (a retry).
        """
        from quiz.core.errors import NoQuestions
        from quiz.core.session import PracticeSession

        assert self.state is not None and self.bank is not None
        try:
            session = PracticeSession(self.bank, self.state.store, self.state.settings,
                                      ids=template_ids, first=first, **self._session_kw())
        except NoQuestions as exc:
            self.notify(f"Nothing to practise: {exc}.", severity="warning")
            return
        self._ask(session, "practice")

    def start_learn(self, target: str) -> None:
        """Walk through an item's, topic's or tag's templates (easiest first), or one
        variant given as TEMPLATE_ID#SEED."""
        from quiz.core.errors import QuizError
        from quiz.core.learn import target_of
        from quiz.tui.screens.learn import WalkScreen

        assert self.state is not None and self.bank is not None
        try:
            ids, single = target_of(self.bank, target)
        except QuizError as exc:
            self.notify(f"Nothing to learn: {exc}.", severity="warning")
            return
        self.push_screen(WalkScreen(self.state, self.bank, template_ids=ids,
                                    variant=single, **self._walk_kw()))

    def walk_through(self, template_id: str, seed: int, mode: str = "practice") -> None:
        """Walk through one variant ("walk me through it" after a miss, a drill's leech);
        the whole answer after it is a guided attempt."""
        from quiz.tui.screens.learn import WalkScreen

        assert self.state is not None and self.bank is not None
        self.push_screen(WalkScreen(self.state, self.bank, variant=(template_id, seed),
                                    mode=mode, **self._walk_kw()))

    def _walk_kw(self) -> dict[str, Any]:
        kw: dict[str, Any] = {"rng": random.Random(self.seed) if self.seed is not None
                              else random.Random()}
        if self.now is not None:
            kw["now"] = self.now
        return kw

    @on(LearnChosen)
    def _learn_chosen(self, event: LearnChosen) -> None:
        self.start_learn(event.target)

    def start_mock(self, questions: int | None, minutes: int | None,
                   closing_minutes: int | None = None) -> None:
        """Start a timed mock interview (defaults from the settings), closed by a
        30-second answer when ``closing_minutes`` is given (and not 0)."""
        from quiz.core.session import MockSession

        assert self.state is not None and self.bank is not None
        session = MockSession(self.bank, self.state.store, self.state.settings,
                              questions=questions, minutes=minutes,
                              closing=bool(closing_minutes), closing_minutes=closing_minutes,
                              **self._session_kw())
        self.go_home()
        self._ask(session, "mock")

    def _ask(self, session: Session, mode: str) -> None:
        from quiz.tui.screens.question import QuestionScreen

        self.push_screen(QuestionScreen(session, mode))

    @on(PracticeChosen)
    def _practice_chosen(self, event: PracticeChosen) -> None:
        self.start_practice(event.topic, event.difficulty, event.schedule)

    @on(MockChosen)
    def _mock_chosen(self, event: MockChosen) -> None:
        self.when_bank_loaded(lambda: self.start_mock(event.questions, event.minutes,
                                                      event.closing_minutes))

    @on(SessionEnded)
    def _session_ended(self, event: SessionEnded) -> None:
        from quiz.tui.screens.done import DoneScreen

        if event.mode == "drill" and self.state is not None:
            self.go_home()
            self.push_screen(DoneScreen(self.state, self.bank, self.now, finished=True,
                                        session=event.session))
        else:
            self.go_home()

    # ------------------------------------------------------------ flags

    def flag_question(self, question: Question, attempt_id: int | None = None) -> None:
        """Ask why a question is flagged, then store the flag (in a thread)."""
        from quiz.tui.screens.flag import FlagScreen

        def chosen(answer: tuple[str, str] | None) -> None:
            if answer is not None:
                self._store_flag(question, answer[0], answer[1], attempt_id)

        self.push_screen(FlagScreen(question.label), chosen)

    @work(thread=True, group="flag", exit_on_error=False)
    def _store_flag(self, question: Question, reason: str, note: str,
                    attempt_id: int | None) -> None:
        from quiz.core.clock import utc_now
        from quiz.core.session import flag_question

        if self.state is None:
            return
        try:
            flag_question(self.state.store, question, reason, note,
                          (self.now or utc_now)(), attempt_id)
        except Exception as exc:  # a full disk must not take the question down
            self.post_message(TaskFailed("saving the flag", str(exc)))
            return
        self.call_from_thread(self.notify, f"Flagged {question.label} as {reason}. Thank "
                              "you: authors see it with quiz flags.", timeout=4)

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
