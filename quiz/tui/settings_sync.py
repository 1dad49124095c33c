"""Settings changed in the app: applied at once, written to the settings file in a
thread, one writer at a time, each writing only the key it changed (so a hand edit of
another key made meanwhile stays)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from quiz.tui.messages import TaskFailed

if TYPE_CHECKING:
    from textual.app import App

    from quiz.core.state import AppState


class SettingsWriter:
    """Applies and saves settings for ``app`` (one per app)."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self._lock = threading.Lock()

    def change(self, state: AppState, name: str, value: object) -> None:
        """Apply one setting now and write it to the settings file (in a thread).

        Args:
            state: the open settings and history.
            name: a field of :class:`quiz.core.settings.Settings`.
            value: its new value, already valid (the settings model checks it again
                and raises ``pydantic.ValidationError`` if not).
        """
        if getattr(state.settings, name) == value:
            return
        setattr(state.settings, name, value)
        if name == "theme" and self.app.theme != value:
            self.app.theme = str(value)
        self.app.run_worker(lambda: self._save(state, name), thread=True,
                            group="settings", exit_on_error=False)

    def _save(self, state: AppState, name: str) -> None:
        from quiz import locations
        from quiz.core.settings import save_settings

        # Each writer writes its setting as it is when it runs (the latest value).
        with self._lock:
            try:
                save_settings(state.settings, locations.config_path(state.data_dir),
                              locations.settings_cache_path(state.data_dir), only=(name,))
            except (OSError, ValueError) as exc:
                self.app.post_message(TaskFailed("saving the settings", str(exc)))
