"""The history's lifecycle in the app: held from the moment start-up opens it, backed up
once a day behind the home screen, closed cleanly at exit.

Start-up opens the history before the settings are read, so the person may
quit before the app's state exists: :class:`History` holds the store from then on, so
that it is always closed (marked closed cleanly: the next start skips reading every
page), and closes at once a store opened after the app ended.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App

    from quiz.core.state import AppState
    from quiz.core.store import Store


class History:
    """The app's hold on its history (one per app)."""

    def __init__(self) -> None:
        self._store: Store | None = None
        self._closed = False
        self._lock = threading.Lock()

    def keep(self, store: Store) -> bool:
        """Hold the history start-up opened; False (the history closed at once) when
        the app has already ended."""
        with self._lock:
            if self._closed:
                store.close()
                return False
            self._store = store
            return True

    def close(self) -> None:
        """Close the history, marking it closed cleanly; safe to call twice, and before
        the history was ever opened."""
        with self._lock:
            self._closed = True
            if self._store is not None:
                self._store.close()

    @staticmethod
    def back_up(app: App[Any], state: AppState) -> None:
        """Today's backup, in a thread behind the home screen (seconds for a big
        history; it reads through its own connection, so answering is never held up)."""

        def backup() -> None:
            from quiz.core.state import backup_today

            problem = backup_today(state)
            if problem:
                app.call_from_thread(app.notify, problem, title="Backup",
                                     severity="warning", timeout=10)

        app.run_worker(backup, thread=True, group="backup", exit_on_error=False)
