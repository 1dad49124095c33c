"""Start-up loading: what the app reads, in which order, so that the home paints first.

The home screen is the default screen; right after its first frame, on the event loop,
:meth:`Loader.open` opens the history, reads the template ids (the catalog is cached:
no TOML, no sympy) and the drill's daily limits (cached from the settings: no
pydantic), and :meth:`Loader.today` computes today's figures (``HomeReady``: the home
is usable). Once that frame is painted, one thread worker runs :meth:`Loader.run`: it
reads the settings model (``StateOpened``) and loads the question bank
(``BankLoaded``, which imports sympy), and imports the sessions' code
(``StartupFinished``). The figures are not computed in the worker: a thread would
share the interpreter with the frames Textual draws meanwhile, and hand its result
back through the event loop, for work that takes tens of milliseconds (bench/README.md,
"s5-startwall"). A mode picked meanwhile waits for what it needs
(:mod:`quiz.tui.routing`).

`quiz drill` paints its first question first: before the first frame, the app opens
the history and reads the catalog and the cached limits (:meth:`Loader.open`, the same
cheap reads) and draws that question from them (one variant of one template, from the
compiled bank's view: no pydantic); the worker then computes the home's figures under
it and goes on as above, and the drill's session, built once the bank is loaded, goes
on from that question.

The worker reports only through messages: no widget is touched off the event loop.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Collection, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import Struct
from textual.message import Message

from quiz.tui.messages import BankLoaded, HomeReady, StartupFinished, StateOpened, TaskFailed

if TYPE_CHECKING:
    from questions.catalog import Catalog
    from questions.loader import Bank
    from quiz.core.settings import Settings
    from quiz.core.settings_cache import DailyLimits
    from quiz.core.state import AppState, DataFolder
    from quiz.core.store import Store
    from quiz.tui.history import History
    from quiz.tui.today import HomeSummary

DEFAULT_THEME = "textual-dark"
_THEME_LINE = re.compile(r'^\s*theme\s*=\s*"([\w.-]+)"\s*(?:#.*)?$', re.MULTILINE)

class Opened(Struct):
    """What start-up reads first (:meth:`Loader.open`), cheaply: no pydantic, no sympy
    once the caches are warm.

    Attributes:
        folder: the data folder, its history open.
        first_run: no answer is stored yet.
        catalog: the template ids and summaries (None: unreadable, see
            ``catalog_problem``).
        catalog_problem: why the catalog could not be read.
        limits: the drill's daily limits (cached, or the settings when they had to be
            validated first: then ``state`` is set too).
        state: the settings read onto the folder, when they were.
    """

    folder: DataFolder
    first_run: bool
    catalog: Catalog | None
    catalog_problem: str
    limits: Settings | DailyLimits
    state: AppState | None


class Sources(Struct, frozen=True):
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
    """Runs start-up's loading (:meth:`open` and :meth:`today` on the event loop,
    :meth:`run` in a worker thread) and reports by ``post`` (the app's thread-safe
    ``post_message``)."""

    def __init__(self, sources: Sources, history: History,
                 post: Callable[[Message], object]) -> None:
        self.sources = sources
        self.history = history
        self.post = post

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

    def open(self) -> Opened | None:
        """Open the history, read the catalog and the daily limits (validating the
        settings first when they are not cached); None after saying why not."""
        from quiz.core.state import cached_limits, catalog_for, open_folder

        sources = self.sources
        try:
            folder = open_folder(sources.data_dir, sources.template_dirs, now=sources.now)
            if not self.history.keep(folder.store):
                return None  # the app has already ended
            first_run = not folder.store.has_attempts()
        except Exception as exc:  # StoreError, permissions: say so, keep the app up
            self.post(TaskFailed("opening your history", str(exc)))
            return None
        catalog, catalog_problem = None, ""
        try:
            files = sources.template_files(folder) if sources.template_files else None
            catalog = catalog_for(folder, files)
        except Exception as exc:  # a broken bundled bank: report, keep stats usable
            catalog_problem = str(exc)
        state: AppState | None = None
        limits: Settings | DailyLimits | None = cached_limits(folder)
        if limits is None:  # a first start, or the settings changed: validate first
            state = self._with_settings(folder)
            if state is None:
                return None
            limits = state.settings
        return Opened(folder, first_run, catalog, catalog_problem, limits, state)

    def today(self, opened: Opened) -> HomeReady:
        """Today's figures from what :meth:`open` read (the home is usable with them)."""
        ids = opened.catalog.ids if opened.catalog is not None else None
        return HomeReady(opened.first_run, ids,
                         self.summary(opened.folder.store, opened.limits, ids))

    def run(self, opened: Opened, *, figures: bool = False,
            first_template: str | None = None) -> None:
        """Read the settings and load the bank (in a worker), from what :meth:`open`
        read.

        Args:
            opened: what :meth:`open` read already.
            figures: compute today's figures first (`quiz drill`: its first frame is
                its question, and the home's figures wait for the worker).
            first_template: the template of a question shown already (the drill's
                first): validated here, with the bank, rather than on the event loop
                when its session asks it.
        """
        from quiz.core.state import load_bank_for

        sources = self.sources
        if first_template is not None:
            # The first keystroke reads with these: import them now (the reader builds
            # the unit spellings, solver.units.spellings, ~2 ms, on its import).
            import quiz.core.grading
            import quiz.core.reading
        if figures:
            self.post(self.today(opened))
        folder, catalog, state = opened.folder, opened.catalog, opened.state
        if state is None:
            state = self._with_settings(folder)
            if state is None:
                return
        self.post(StateOpened(state))
        if catalog is None:
            self.post(TaskFailed("loading the questions", opened.catalog_problem))
            return
        try:
            bank = (sources.bank_loader(state) if sources.bank_loader
                    else load_bank_for(state, catalog))
        except Exception as exc:
            self.post(TaskFailed("loading the questions", str(exc)))
            return
        if first_template is not None:
            with contextlib.suppress(Exception):  # the session's ask says what is wrong
                bank.get(first_template)  # (the models' import: a third of a second)
        self.post(BankLoaded(bank))
        # sympy, the solver, the sessions and their graders, before the first draw
        import quiz.core.drill
        import quiz.core.grading
        import quiz.core.mock
        import quiz.core.practice
        import quiz.core.reading  # noqa: F401  (the answers' reader: see above)

        self.post(StartupFinished())

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
