"""Routing: which screen opens for a mode, a session, a retry or a flag, and when.

The app composes one :class:`Router`. A mode (a row of :data:`quiz.tui.modes.MODES`)
opens through :data:`OPENERS`, here and not in that table, so that the screens which
build menus from the table (home, help, welcome) import no screen and no app. Screens
ask for what they cannot do themselves by posting a message (``ModeChosen``,
``PracticeRequested``, ``WalkRequested``, ``FlagRequested``...); the app hands it to
the router. A mode that needs the history or the bank before they are loaded waits
for them (the last request wins: the person changed their mind).

Screens are imported inside the openers, when first shown: importing this module loads
neither sympy nor the core, nor any screen.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from msgspec import Struct
from textual.screen import Screen

from quiz.tui.messages import TaskFailed
from quiz.tui.modes import by_name

if TYPE_CHECKING:
    from textual.message import Message
    from textual.screen import ScreenResultCallbackType

    from questions.loader import Bank
    from quiz.core.drill import FirstQuestion
    from quiz.core.session import Question, Session
    from quiz.core.state import AppState
    from quiz.tui.screens.question import QuestionScreen
    from quiz.tui.startup import Opened


class Start(Struct, frozen=True):
    """What the app opens once the bank is loaded (``quiz drill``, ``quiz mock``...).

    Attributes:
        mode: ``drill``, ``mock``, ``practice`` or ``learn``.
        mock_minutes: time limit of the mock (None: the settings').
        mock_questions: questions in the mock (None: the settings').
        mock_closing: minutes for the 30-second answer closing the mock (None: none).
        practice_topic: topic, tag or id prefix to practise (None: show the picker).
        practice_difficulty: only this difficulty (1-3) in that practice.
        learn_target: what to walk through (None: show the learn picker).
    """

    mode: str
    mock_minutes: int | None = None
    mock_questions: int | None = None
    mock_closing: int | None = None
    practice_topic: str | None = None
    practice_difficulty: int | None = None
    learn_target: str | None = None

    def __post_init__(self) -> None:
        if self.mode not in ("drill", "mock", "practice", "learn"):
            raise ValueError(f"unknown start mode {self.mode!r}")


class Host(Protocol):
    """What the router needs of the app (the app is one: see ``quiz.tui.app``)."""

    state: AppState | None
    bank: Bank | None
    template_ids: list[str] | None
    home_ready: bool
    failure: str | None
    now: Callable[[], datetime] | None
    clock: Callable[[], float]
    seed: int | None

    @property
    def screen(self) -> Screen[Any]: ...
    @property
    def screen_stack(self) -> list[Screen[Any]]: ...
    @property
    def available_themes(self) -> dict[str, Any]: ...

    def push_screen(self, screen: Screen[Any],
                    callback: ScreenResultCallbackType[Any] | None = None) -> Any: ...
    def pop_screen(self) -> Any: ...
    def notify(self, message: str, *, title: str = "", severity: Any = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...
    def post_message(self, message: Message) -> bool: ...
    def call_from_thread(self, callback: Callable[..., Any], *args: Any,
                         **kwargs: Any) -> Any: ...
    def run_worker(self, work: Any, name: str | None = "", group: str = "default",
                   description: str = "", exit_on_error: bool = True,
                   start: bool = True, exclusive: bool = False,
                   thread: bool = False) -> Any: ...


class Router:
    """Opens modes, sessions and walk-throughs on the app, waiting for what they need."""

    def __init__(self, app: Host) -> None:
        self.app = app
        self._waiting: list[Callable[[], None]] = []
        self._opening: QuestionScreen | None = None
        """`quiz drill`'s question screen, opened before its session (:meth:`open_drill`)."""
        self._first: FirstQuestion | None = None
        """Its first question, drawn before anything else loaded (:meth:`first_question`)."""

    # ------------------------------------------------------------ modes

    def open_mode(self, mode: str) -> None:
        """Open ``mode`` (a name in :data:`quiz.tui.modes.MODES`) from wherever the user
        is. A mode that needs the history or the bank says what it is waiting for (or
        what went wrong) instead of opening."""
        app = self.app
        entry = by_name(mode)
        if entry.needs_state and app.state is None:
            if app.failure:
                app.notify(app.failure, severity="error")
                return
            if not app.home_ready:
                app.notify("Still opening your history… this opens in a moment.")
            # else the settings are being read (a blink): open it then, unannounced
            self._waiting = [lambda: self.open_mode(mode)]
            return
        if entry.needs_bank and app.bank is None:
            self.when_bank_loaded(lambda: self.open_mode(mode))
            return
        OPENERS[mode](self)

    def when_bank_loaded(self, then: Callable[[], None]) -> None:
        """Run ``then`` now if the bank is loaded, else as soon as it is (the last
        request wins: the user changed their mind)."""
        app = self.app
        if app.bank is not None:
            then()
            return
        if app.failure:
            app.notify(app.failure, severity="error")
            return
        app.notify("Loading the questions… this opens in a moment.")
        self._waiting = [then]

    def run_waiting(self) -> None:
        """Run what was waiting for the settings or the bank (it waits again for
        whatever it still needs)."""
        waiting, self._waiting = self._waiting, []
        for then in waiting:
            then()

    def go_home(self) -> None:
        """Close every screen above the home screen."""
        while len(self.app.screen_stack) > 1:
            self.app.pop_screen()

    def open_start(self, start: Start) -> None:
        """Open what the command line asked for (the bank is loaded)."""
        if start.mode == "drill":
            opening, self._opening = self._opening, None
            if opening is not None and opening not in self.app.screen_stack:
                self._first = None  # the person left it before it was ready
                return
            self.start_drill(opening)
        elif start.mode == "mock":
            self.start_mock(start.mock_questions, start.mock_minutes, start.mock_closing)
        elif start.mode == "practice":
            if start.practice_topic or start.practice_difficulty:
                self.start_practice(start.practice_topic, start.practice_difficulty, False)
            else:
                self.open_mode("practice")
        elif start.learn_target:
            self.start_learn(start.learn_target)
        else:
            self.open_mode("learn")

    # ------------------------------------------------------------ sessions

    def _rng(self) -> random.Random:
        seed = self.app.seed
        return random.Random(seed) if seed is not None else random.Random()

    def _session_kw(self) -> dict[str, Any]:
        kw: dict[str, Any] = {"clock": self.app.clock, "rng": self._rng()}
        if self.app.now is not None:
            kw["now"] = self.app.now
        return kw

    def _walk_kw(self) -> dict[str, Any]:
        kw: dict[str, Any] = {"rng": self._rng()}
        if self.app.now is not None:
            kw["now"] = self.app.now
        return kw

    # ------------------------------------------------------------ `quiz drill`

    def first_question(self, opened: Opened) -> FirstQuestion | None:
        """The drill's first question, drawn from the compiled bank's view of its
        template (no pydantic: :func:`quiz.core.drill.first_question`); None: the
        session draws it once the bank is loaded (and says what went wrong, if
        anything does)."""
        from questions.stored import bank_view_of
        from quiz.core.clock import utc_now
        from quiz.core.drill import first_question

        catalog = opened.catalog
        if catalog is None:
            return None

        def template(template_id: str) -> Any:
            # compiled by this run (a first start): validated already; else the view
            return catalog.fresh(template_id) or bank_view_of(catalog, template_id)

        try:
            return first_question(catalog.bank(), opened.folder.store, opened.limits,
                                  template, rng=self._rng(), clock=self.app.clock,
                                  now=self.app.now or utc_now)
        except Exception:  # the session's own draw reports it, in its own words
            return None

    def open_drill(self, first: FirstQuestion | None) -> None:
        """Open the drill's question screen before the bank is loaded (`quiz drill`),
        showing ``first``; its session comes once the bank is loaded (:meth:`open_start`)."""
        from quiz.tui.screens.question import QuestionScreen

        self._first = first
        self._opening = QuestionScreen(None, "drill", first)
        self.app.push_screen(self._opening)

    def start_drill(self, opening: QuestionScreen | None = None) -> None:
        """Start today's drill, or say it is done for today; on ``opening`` (the screen
        `quiz drill` opened before the bank was loaded), going on from the first
        question it shows."""
        from quiz.core.drill import DrillSession
        from quiz.tui.screens.done import DoneScreen

        app = self.app
        assert app.state is not None and app.bank is not None
        first, self._first = self._first, None
        kw = self._session_kw()
        if opening is not None and first is not None:
            kw["rng"] = first.rng  # past the first question's seed (see FirstQuestion)
        session = DrillSession(app.bank, app.state.store, app.state.settings, **kw)
        if opening is not None and first is not None:
            shown = first.question
            session.ask(shown.template.id, shown.variant.seed, shown.started)
            opening.take(session)
            return
        if session.queue() and opening is not None:
            opening.take(session)  # it draws its first question now
            return
        self.go_home()
        if not session.queue():
            app.push_screen(DoneScreen(app.state, app.bank, app.now))
        else:
            self._ask(session, "drill")

    def start_practice(self, topic: str | None, difficulty: int | None,
                       schedule: bool) -> None:
        """Start endless practice on a topic, tag or id prefix (None: everything)."""
        from quiz.core.errors import NoQuestions
        from quiz.core.practice import PracticeSession

        app = self.app
        assert app.state is not None and app.bank is not None
        try:
            session = PracticeSession(app.bank, app.state.store, app.state.settings,
                                      topic=topic, difficulty=difficulty, schedule=schedule,
                                      **self._session_kw())
        except NoQuestions as exc:
            from quiz.tui.screens.practice import PracticeScreen

            app.notify(f"Nothing to practise: {exc}.", severity="warning")
            if not isinstance(app.screen, PracticeScreen):
                self.open_mode("practice")
            return
        self._ask(session, "practice")

    def start_practice_on(self, template_ids: Sequence[str],
                          first: tuple[str, int] | None = None) -> None:
        """Practise exactly these templates (a retry, the leeches, the browser's pick),
        ``first`` (a ``(template id, seed)`` variant) first."""
        from quiz.core.errors import NoQuestions
        from quiz.core.practice import PracticeSession

        app = self.app
        assert app.state is not None and app.bank is not None
        try:
            session = PracticeSession(app.bank, app.state.store, app.state.settings,
                                      ids=template_ids, first=first, **self._session_kw())
        except NoQuestions as exc:
            app.notify(f"Nothing to practise: {exc}.", severity="warning")
            return
        self._ask(session, "practice")

    def start_learn(self, target: str) -> None:
        """Walk through an item's, topic's or tag's templates (easiest first), or one
        variant given as TEMPLATE_ID#SEED."""
        from quiz.core.errors import QuizError
        from quiz.core.learn import target_of
        from quiz.tui.screens.learn import WalkScreen

        app = self.app
        assert app.state is not None and app.bank is not None
        try:
            ids, single = target_of(app.bank, target)
        except QuizError as exc:
            app.notify(f"Nothing to learn: {exc}.", severity="warning")
            return
        app.push_screen(WalkScreen(app.state, app.bank, template_ids=ids,
                                   variant=single, **self._walk_kw()))

    def walk_through(self, template_id: str, seed: int, mode: str = "practice") -> None:
        """Walk through one variant ("walk me through it" after a miss, a drill's leech);
        the whole answer after it is a guided attempt."""
        from quiz.tui.screens.learn import WalkScreen

        app = self.app
        assert app.state is not None and app.bank is not None
        app.push_screen(WalkScreen(app.state, app.bank, variant=(template_id, seed),
                                   mode=mode, **self._walk_kw()))

    def start_mock(self, questions: int | None, minutes: int | None,
                   closing_minutes: int | None = None) -> None:
        """Start a timed mock interview (defaults from the settings), closed by a
        30-second answer when ``closing_minutes`` is given (and not 0)."""
        from quiz.core.mock import MockSession

        app = self.app
        assert app.state is not None and app.bank is not None
        session = MockSession(app.bank, app.state.store, app.state.settings,
                              questions=questions, minutes=minutes,
                              closing=bool(closing_minutes), closing_minutes=closing_minutes,
                              **self._session_kw())
        self.go_home()
        self._ask(session, "mock")

    def _ask(self, session: Session, mode: str) -> None:
        from quiz.tui.screens.question import QuestionScreen

        self.app.push_screen(QuestionScreen(session, mode))

    def session_ended(self, mode: str, session: Session | None) -> None:
        """A drill ran out of questions: its summary; anything else: home."""
        from quiz.tui.screens.done import DoneScreen

        app = self.app
        self.go_home()
        if mode == "drill" and app.state is not None:
            app.push_screen(DoneScreen(app.state, app.bank, app.now, finished=True,
                                       session=session))

    # ------------------------------------------------------------ flags

    def flag_question(self, question: Question, attempt_id: int | None = None) -> None:
        """Ask why a question is flagged, then store the flag (in a thread)."""
        from quiz.tui.screens.flag import FlagScreen

        def chosen(answer: tuple[str, str] | None) -> None:
            if answer is not None:
                self.app.run_worker(lambda: self._store_flag(question, *answer, attempt_id),
                                    thread=True, group="flag", exit_on_error=False)

        self.app.push_screen(FlagScreen(question.label), chosen)

    def _store_flag(self, question: Question, reason: str, note: str,
                    attempt_id: int | None) -> None:
        from quiz.core.clock import utc_now
        from quiz.core.session import flag_question

        app = self.app
        if app.state is None:
            return
        try:
            flag_question(app.state.store, question, reason, note,
                          (app.now or utc_now)(), attempt_id)
        except Exception as exc:  # a full disk must not take the question down
            app.post_message(TaskFailed("saving the flag", str(exc)))
            return
        app.call_from_thread(app.notify, f"Flagged {question.label} as {reason}. Thank "
                             "you: authors see it with quiz flags.", timeout=4)


# ---------------------------------------------------------------- openers


def _open_practice(router: Router) -> None:
    from quiz.tui.screens.practice import PracticeScreen

    assert router.app.bank is not None
    router.go_home()
    router.app.push_screen(PracticeScreen(router.app.bank))


def _open_mock(router: Router) -> None:
    from quiz.tui.screens.mock_setup import MockSetupScreen

    assert router.app.state is not None
    settings = router.app.state.settings
    router.go_home()
    router.app.push_screen(MockSetupScreen(settings.mock_questions, settings.mock_minutes))


def _open_learn(router: Router) -> None:
    from quiz.core.learn import Progress, bank_templates, progress_in
    from quiz.tui.screens.learn import LearnScreen

    app = router.app
    assert app.state is not None and app.bank is not None
    state, bank = app.state, app.bank

    def count() -> list[Progress]:
        return progress_in(state.store, bank_templates(bank))

    router.go_home()
    app.push_screen(LearnScreen(bank, count(), recount=count))


def _open_stats(router: Router) -> None:
    from quiz.tui.screens.stats import StatsScreen

    assert router.app.state is not None
    router.go_home()
    router.app.push_screen(StatsScreen(router.app.state, router.app.bank, router.app.now))


def _open_browser(router: Router) -> None:
    from quiz.tui.screens.browser import BrowserScreen

    assert router.app.bank is not None
    router.go_home()
    router.app.push_screen(BrowserScreen(router.app.bank))


def _open_lab(router: Router) -> None:
    from quiz.tui.screens.layout_lab import LayoutLabScreen

    router.go_home()
    router.app.push_screen(LayoutLabScreen())


def _open_mistakes(router: Router) -> None:
    from quiz.tui.screens.mistakes import MistakesScreen

    assert router.app.state is not None and router.app.bank is not None
    router.go_home()
    router.app.push_screen(MistakesScreen(router.app.state, router.app.bank))


def _open_settings(router: Router) -> None:
    from quiz import locations
    from quiz.tui.data import workload_text
    from quiz.tui.screens.settings import SettingsScreen

    app = router.app
    assert app.state is not None
    router.go_home()
    state = app.state
    templates = len(app.bank.summaries) if app.bank is not None else len(
        app.template_ids or ())
    app.push_screen(SettingsScreen(state.settings, locations.config_path(state.data_dir),
                                   sorted(app.available_themes),
                                   lambda r: workload_text(state, templates, r)))


def _open_help(router: Router) -> None:
    from quiz.tui.screens.help import HelpScreen

    if not isinstance(router.app.screen, HelpScreen):
        router.app.push_screen(HelpScreen())


OPENERS: dict[str, Callable[[Router], None]] = {
    "drill": lambda router: router.start_drill(),
    "practice": _open_practice,
    "mock": _open_mock,
    "learn": _open_learn,
    "stats": _open_stats,
    "mistakes": _open_mistakes,
    "browser": _open_browser,
    "lab": _open_lab,
    "settings": _open_settings,
    "help": _open_help,
    "home": Router.go_home,
}
"""How each mode of :data:`quiz.tui.modes.MODES` opens (a test checks both name the same
modes)."""
