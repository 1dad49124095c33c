"""Start-up loading: what the app reads, in which order, so that the home paints first.

The home screen is the default screen; after the first frame one thread worker runs
:meth:`Loader.run`: it opens the history, reads the template ids (the catalog is
cached: no TOML, no sympy) and the drill's daily limits (cached from the settings: no
pydantic), and computes today's figures (``HomeReady``: the home is usable); then it
reads the settings model (``StateOpened``) and loads the question bank
(``BankLoaded``, which imports sympy), and imports the sessions' code
(``StartupFinished``). Nothing competes with the figures for the interpreter, and a
mode picked meanwhile waits for what it needs (:mod:`quiz.tui.routing`).

`quiz drill` (a ``first`` drawer given) shows its question screen first, and the worker
draws the drill's first question from the same cheap reads, before today's figures
(``FirstQuestionDrawn``: one variant of one template, drawn from the compiled bank's
view, no pydantic); the rest follows as above, and the drill's session, built once the
bank is loaded, goes on from that question.

The worker reports only through messages: no widget is touched off the event loop.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message

from quiz.tui.messages import (
    BankLoaded,
    FirstQuestionDrawn,
    HomeReady,
    StartupFinished,
    StateOpened,
    TaskFailed,
)

if TYPE_CHECKING:
    from questions.catalog import Catalog
    from questions.loader import Bank
    from quiz.core.drill import FirstQuestion
    from quiz.core.settings import Settings
    from quiz.core.settings_cache import DailyLimits
    from quiz.core.state import AppState, DataFolder
    from quiz.core.store import Store
    from quiz.tui.history import History
    from quiz.tui.today import HomeSummary

DEFAULT_THEME = "textual-dark"
_THEME_LINE = re.compile(r'^\s*theme\s*=\s*"([\w.-]+)"\s*(?:#.*)?$', re.MULTILINE)

PAINT_WAIT = 0.5
"""Most seconds the start-up worker waits for the home's figures (or the drill's first
question) to be painted before going on (it never waits longer: a frame that is not
drawn by then is not worth holding the rest of start-up for)."""

FirstDrawer = Callable[["DataFolder", "Catalog", "Settings | DailyLimits"],
                       "FirstQuestion | None"]
"""Draws the drill's first question from the open folder, the catalog and the daily
limits (:meth:`quiz.tui.routing.Router.first_question`), in the worker."""


@dataclass(frozen=True)
class Sources:
    """Where the app's data comes from.

    Attributes:
        data_dir: history and settings folder (None: ``QUIZ_DATA_DIR`` or the
            platform's user data folder).
        template_dirs: extra template folders.
        now: aware UTC datetimes for today's figures (None: the clock).
        bank_loader: loads the bank from the open state (None:
            :func:`quiz.core.state.load_bank_for`); tests pass a slow one.
        template_files: the template files (None: the bundled bank and the user's
            folders); tests pass a fixed set.
    """

    data_dir: str | Path | None = None
    template_dirs: Sequence[str] = ()
    now: Callable[[], datetime] | None = None
    bank_loader: Callable[[AppState], Bank] | None = None
    template_files: Callable[[DataFolder], Sequence[Path]] | None = None


class Loader:
    """Runs start-up's loading (:meth:`run`, in a worker thread) and reports by
    ``post`` (the app's thread-safe ``post_message``)."""

    def __init__(self, sources: Sources, history: History,
                 post: Callable[[Message], object], first: FirstDrawer | None = None) -> None:
        self.sources = sources
        self.history = history
        self.post = post
        self.first = first
        """Draws the drill's first question before anything else is read (`quiz drill`);
        None: the home comes first."""
        self.painted = threading.Event()
        """Set once what the worker last posted is painted (today's figures, the first
        question): the worker waits for it before its next step, which would hold the
        interpreter while that frame is drawn."""

    def early_theme(self, available: Collection[str]) -> str:
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

            folder = locations.data_dir(self.sources.data_dir)
            # 64 KB: quiz.core.settings_cache.MAX_SETTINGS_BYTES (not imported: json and
            # hashlib would cost the first paint)
            text = read_text_file(locations.config_path(folder), 64 * 1024)
        except (OSError, ValueError):
            return DEFAULT_THEME
        found = _THEME_LINE.search(text)
        theme = found.group(1) if found else DEFAULT_THEME
        return theme if theme in available else DEFAULT_THEME

    def run(self) -> None:
        """Open the history, show today's figures, read the settings, load the bank."""
        from quiz.core.state import cached_limits, catalog_for, load_bank_for, open_folder

        sources = self.sources
        try:
            folder = open_folder(sources.data_dir, sources.template_dirs, now=sources.now)
            if not self.history.keep(folder.store):
                return  # the app has already ended
            first_run = not folder.store.has_attempts()
        except Exception as exc:  # StoreError, permissions: say so, keep the app up
            self.post(TaskFailed("opening your history", str(exc)))
            return
        catalog, catalog_problem = None, ""
        try:
            files = sources.template_files(folder) if sources.template_files else None
            catalog = catalog_for(folder, files)
        except Exception as exc:  # a broken bundled bank: report, keep stats usable
            catalog_problem = str(exc)
        ids = catalog.ids if catalog is not None else None
        state: AppState | None = None
        limits: Settings | DailyLimits | None = cached_limits(folder)
        if limits is None:  # a first start, or the settings changed: validate first
            state = self._with_settings(folder)
            if state is None:
                return
            limits = state.settings
        if self.first is not None and catalog is not None:
            self._post_and_wait(FirstQuestionDrawn(self._first(folder, catalog, limits)))
        self._post_and_wait(HomeReady(first_run, ids,
                                      self.summary(folder.store, limits, ids)))
        if state is None:
            state = self._with_settings(folder)
            if state is None:
                return
        self.post(StateOpened(state))
        if catalog is None:
            self.post(TaskFailed("loading the questions", catalog_problem))
            return
        try:
            bank = (sources.bank_loader(state) if sources.bank_loader
                    else load_bank_for(state, catalog))
        except Exception as exc:
            self.post(TaskFailed("loading the questions", str(exc)))
            return
        self.post(BankLoaded(bank))
        # sympy, the solver and the sessions, before the first draw
        import quiz.core.drill
        import quiz.core.mock
        import quiz.core.practice  # noqa: F401

        self.post(StartupFinished())

    def _post_and_wait(self, message: Message) -> None:
        """Post ``message`` and wait (a moment at most) until what it shows is painted."""
        self.painted.clear()
        self.post(message)
        self.painted.wait(PAINT_WAIT)

    def _first(self, folder: DataFolder, catalog: Catalog,
               limits: Settings | DailyLimits) -> FirstQuestion | None:
        """The drill's first question, or None (the session draws it once the bank is
        loaded, and says what went wrong if anything does)."""
        assert self.first is not None
        try:
            return self.first(folder, catalog, limits)
        except Exception:  # the session's own draw reports it, in its own words
            return None

    def _with_settings(self, folder: DataFolder) -> AppState | None:
        """The settings read onto the open folder, or None after saying why they could
        not be (a bad file is warnings, not this: see ``load_settings``)."""
        from quiz.core.state import with_settings

        try:
            return with_settings(folder)
        except Exception as exc:
            self.post(TaskFailed("reading the settings", str(exc)))
            return None

    def summary(self, store: Store, limits: Settings | DailyLimits,
                ids: Sequence[str] | None) -> HomeSummary | None:
        """Today's figures (in a worker), or None after saying why they could not be."""
        from quiz.tui.today import home_summary

        try:
            return home_summary(store, limits, ids, self.sources.now)
        except Exception as exc:  # the home screen keeps its last figures
            self.post(TaskFailed("reading today's figures", str(exc)))
            return None
