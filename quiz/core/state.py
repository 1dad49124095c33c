"""Opening what a running app needs: data folder, settings, history and the bank.

Split so the TUI can paint before the slow part: :func:`open_light` (settings and the
store: milliseconds), :func:`catalog_for` (the template ids and summaries, from the
compiled-bank cache: milliseconds when warm) and :func:`load_bank_for` (the templates
themselves, validated; the TUI runs it in a worker).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from quiz import locations
from quiz.core.settings import Settings, load_settings
from quiz.core.store import Store, StoreError

if TYPE_CHECKING:
    from questions.catalog import Catalog
    from questions.loader import Bank


@dataclass
class AppState:
    """The open data folder.

    Attributes:
        data_dir: the folder.
        settings: loaded settings (defaults where the file was bad).
        store: the open history.
        template_dirs: user template folders (default folder first, then extras).
        warnings: messages for the user (bad settings, a recovered history file).
    """

    data_dir: Path
    settings: Settings
    store: Store
    template_dirs: list[Path]
    warnings: list[str] = field(default_factory=list)


def open_light(data_dir: str | Path | None = None,
               template_dirs: Sequence[str] = (),
               now: Callable[[], datetime] | None = None,
               *, backup: bool = True) -> AppState:
    """Open settings and the history (creating the data folder on first use).

    Args:
        data_dir: the `--data-dir` value, if any.
        template_dirs: the `--templates` values.
        now: the store's clock (aware datetimes), injectable for tests.
        backup: write today's backup now if due; the app passes False and calls
            :func:`backup_today` behind its first screen (a big history takes seconds).
    """
    folder = locations.data_dir(data_dir)
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)  # private to the user
    except OSError as exc:
        raise StoreError(f"{folder}: cannot create the data folder: "
                         f"{exc.strerror or exc}") from exc
    settings, warnings = load_settings(locations.config_path(folder))
    store = Store.open(locations.db_path(folder), now=now)
    if store.recovery_message:
        warnings.append(store.recovery_message)
    dirs = [locations.user_templates_dir(folder), *locations.extra_template_dirs(
        template_dirs)]
    state = AppState(folder, settings, store, dirs, warnings)
    if backup:
        problem = backup_today(state)
        if problem:
            warnings.append(problem)
    return state


def backup_today(state: AppState) -> str | None:
    """Write today's backup of the history if there is none yet (checking the file
    first); return why it failed, or None. A backup never stops the app."""
    try:
        state.store.backup_if_due(locations.backups_dir(state.data_dir))
    except (OSError, StoreError) as exc:
        return str(exc)
    return None


def catalog_for(state: AppState, files: Sequence[Path] | None = None) -> Catalog:
    """Every template's id and summary, from the compiled-bank cache where it is fresh.

    Fast when the cache is warm (no TOML, no pydantic, no sympy): enough for the home
    screen's counts. Folders that cannot be read are among its problems.

    Args:
        state: the open data folder.
        files: the template files (default: the bundled bank and the user's folders).
    """
    from questions.catalog import build
    from questions.loader import bank_files

    cache = locations.bank_cache_path(state.data_dir)
    source = bank_files(state.template_dirs, cache=cache) if files is None else files
    return build(source, cache)


def load_bank_for(state: AppState, catalog: Catalog | None = None) -> Bank:
    """The bundled bank plus the user's folders, through the compiled-bank cache.

    Args:
        state: the open data folder.
        catalog: the bank's catalog, when already built (:func:`catalog_for`).
    """
    return (catalog if catalog is not None else catalog_for(state)).bank()
