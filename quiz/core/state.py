"""Opening what a running app needs: data folder, settings, history and the bank.

Split so the TUI can be used before the slow part: :func:`open_folder` (the data folder
and the store: milliseconds, and no pydantic), :func:`catalog_for` (the template ids
and summaries, from the compiled-bank cache: milliseconds when warm),
:func:`with_settings` (the settings model: pydantic, a tenth of a second) and
:func:`load_bank_for` (the templates themselves, validated). Today's counts need only
the first two and the drill's daily limits, which :func:`cached_limits` reads without
the settings model when the settings file has not changed since it last ran.
:func:`open_light` is the first and third together, for the commands.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import Struct, field

from quiz import locations
from quiz.core import settings_cache
from quiz.core.store import Store, StoreError

if TYPE_CHECKING:
    from questions.catalog import Catalog
    from questions.loader import Bank
    from quiz.core.settings import Settings
    from quiz.core.settings_cache import DailyLimits


class DataFolder(Struct):
    """The data folder with its history open, before the settings are read.

    Attributes:
        data_dir: the folder.
        store: the open history.
        template_dirs: user template folders (default folder first, then extras).
        warnings: messages for the user (bad settings, a recovered history file).
    """

    data_dir: Path
    store: Store
    template_dirs: list[Path]
    warnings: list[str] = field(default_factory=list)


class AppState(DataFolder, kw_only=True):
    """The open data folder and its settings.

    Attributes:
        settings: loaded settings (defaults where the file was bad).
    """

    settings: Settings


def open_folder(data_dir: str | Path | None = None,
                template_dirs: Sequence[str] = (),
                now: Callable[[], datetime] | None = None,
                *, repair: bool = True) -> DataFolder:
    """Open the history (creating the data folder on first use); the settings are not
    read (see :func:`with_settings`).

    Args:
        data_dir: the `--data-dir` value, if any.
        template_dirs: the `--templates` values.
        now: the store's clock (aware datetimes), injectable for tests.
        repair: move an unusable history aside (see :meth:`Store.open`); False: raise
            :class:`StoreError` instead.
    """
    folder = locations.data_dir(data_dir)
    try:
        locations.claim(folder)  # private to the user, whoever made it
    except OSError as exc:
        raise StoreError(f"{folder}: cannot create the data folder: "
                         f"{exc.strerror or exc}") from exc
    store = Store.open(locations.db_path(folder), now=now, repair=repair)
    warnings = [store.recovery_message] if store.recovery_message else []
    dirs = [locations.user_templates_dir(folder), *locations.extra_template_dirs(
        template_dirs)]
    return DataFolder(folder, store, dirs, warnings)


def cached_limits(folder: DataFolder) -> DailyLimits | None:
    """The drill's daily limits as the settings model read them last time, when the
    settings file is unchanged since (None otherwise: see :func:`with_settings`)."""
    return settings_cache.cached_limits(locations.config_path(folder.data_dir),
                                        locations.settings_cache_path(folder.data_dir))


def with_settings(folder: DataFolder) -> AppState:
    """Read and validate the settings (importing pydantic), and remember the result for
    :func:`cached_limits`. A bad file is warnings and defaults, never an error."""
    from quiz.core.settings import load_settings

    settings, warnings = load_settings(locations.config_path(folder.data_dir),
                                       locations.settings_cache_path(folder.data_dir))
    return AppState(folder.data_dir, folder.store, folder.template_dirs,
                    [*warnings, *folder.warnings], settings=settings)


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
    state = with_settings(open_folder(data_dir, template_dirs, now))
    if backup:
        problem = backup_today(state)
        if problem:
            state.warnings.append(problem)
    return state


def backup_today(state: DataFolder) -> str | None:
    """Write today's backup of the history if there is none yet (checking the file
    first); return why it failed, or None. A backup never stops the app."""
    try:
        state.store.backup_if_due(locations.backups_dir(state.data_dir))
    except (OSError, StoreError) as exc:
        return str(exc)
    return None


def catalog_for(state: DataFolder, files: Sequence[Path] | None = None) -> Catalog:
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


def load_bank_for(state: DataFolder, catalog: Catalog | None = None) -> Bank:
    """The bundled bank plus the user's folders, through the compiled-bank cache.

    Args:
        state: the open data folder.
        catalog: the bank's catalog, when already built (:func:`catalog_for`).
    """
    return (catalog if catalog is not None else catalog_for(state)).bank()
