"""Where quiz keeps its files: one place, and only functions.

Every path is computed when asked for, never at import time, so that importing
``quiz`` (or running ``quiz --help``) creates no folder and reads no environment
that a test or the CLI has not set yet.

Layout of the data folder::

    <data dir>/
        history.db      the SQLite history (attempts, FSRS cards, mock sessions)
        config.toml     the settings
        templates/      the user's own question templates
        backups/        one copy of history.db per local day, the newest few kept
        cache/bank.db   the compiled question bank (rebuilt when missing or stale)
        cache/settings.json  the settings as last validated (read before pydantic)

Everything in it is private to the user (folders 0700, files 0600; see
:mod:`questions.private` and :func:`claim`), whichever command creates it.

The data folder is chosen by, in order: the ``--data-dir`` flag, the environment
variable ``QUIZ_DATA_DIR``, the platform's user data folder
(``platformdirs.user_data_dir("quiz")``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = [
    "APP_NAME",
    "DATA_DIR_ENV",
    "TEMPLATES_ENV",
    "backups_dir",
    "bank_cache_path",
    "claim",
    "config_path",
    "data_dir",
    "db_path",
    "extra_template_dirs",
    "settings_cache_path",
    "user_templates_dir",
]

APP_NAME = "quiz"
DATA_DIR_ENV = "QUIZ_DATA_DIR"
TEMPLATES_ENV = "QUIZ_TEMPLATES"


def _expand(path: str | Path) -> Path:
    # "~" is expanded here because a value from a TOML file or an env var set in a
    # launcher never went through a shell that would have expanded it.
    return Path(path).expanduser().absolute()


def data_dir(
    override: str | Path | None = None,
    *,
    ensure: bool = False,
    env: Mapping[str, str] | None = None,
) -> Path:
    """Return the folder that holds the history, settings, user templates and backups.

    Args:
        override: The ``--data-dir`` flag; wins over everything else when given.
        ensure: Create the folder (and its parents) if it does not exist. Off by
            default so that merely asking where data lives changes nothing on disk.
        env: The environment to read ``QUIZ_DATA_DIR`` from; ``os.environ`` if None.

    Returns:
        An absolute path, ``~`` expanded.
    """
    environ = os.environ if env is None else env
    if override is not None and str(override) != "":
        path = _expand(override)
    elif environ.get(DATA_DIR_ENV):
        path = _expand(environ[DATA_DIR_ENV])
    else:
        # Imported here: platformdirs is cheap, but nothing in this module should
        # cost anything until a path is actually needed.
        import platformdirs

        path = _expand(platformdirs.user_data_dir(APP_NAME, appauthor=False))
    if ensure:
        claim(path)  # private to the user
    return path


_OURS = ("history.db", "config.toml", "cache", "backups", "templates")


def claim(data_dir: Path) -> Path:
    """Create the data folder private to the user (0700, each missing parent too), or
    make it private if it is quiz's and others can read it (a folder first created by
    an older quiz's ``templates list``, ``ask`` or ``check`` was 0755).

    An existing folder is tightened only when it holds quiz's files and is nobody else's
    place: never the home folder, the root, or a shared folder (sticky, as ``/tmp``).

    Raises:
        OSError: the folder cannot be created.
    """
    import stat

    from questions.private import FOLDER_MODE, private_folder, tighten

    if data_dir.is_dir():
        mode = data_dir.stat().st_mode
        try:
            home = Path.home()
        except RuntimeError:  # no HOME and no password entry: no home to spare
            home = Path(data_dir.anchor)
        shared = mode & stat.S_ISVTX or data_dir in (home, Path(data_dir.anchor))
        if not shared and any((data_dir / name).exists() for name in _OURS):
            tighten(data_dir, FOLDER_MODE)
        for name in ("cache", "backups"):  # only ever quiz's
            if (data_dir / name).is_dir():
                tighten(data_dir / name, FOLDER_MODE)
        return data_dir
    private_folder(data_dir)
    return data_dir


def db_path(data_dir: Path) -> Path:
    """Return the SQLite history file inside ``data_dir``."""
    return data_dir / "history.db"


def config_path(data_dir: Path) -> Path:
    """Return the settings file (TOML) inside ``data_dir``."""
    return data_dir / "config.toml"


def user_templates_dir(data_dir: Path) -> Path:
    """Return the folder for the user's own question templates inside ``data_dir``."""
    return data_dir / "templates"


def backups_dir(data_dir: Path) -> Path:
    """Return the folder for the daily history backups inside ``data_dir``."""
    return data_dir / "backups"


def bank_cache_path(data_dir: Path) -> Path:
    """Return the compiled-bank cache (:mod:`questions.catalog`) inside ``data_dir``.

    Only a cache: deleting it costs the next start the time to compile the bank.
    """
    return data_dir / "cache" / "bank.db"


def settings_cache_path(data_dir: Path) -> Path:
    """Return the validated-settings cache (:mod:`quiz.core.settings_cache`) inside
    ``data_dir``.

    Only a cache: deleting it costs the next start's home screen the settings model.
    """
    return data_dir / "cache" / "settings.json"


def variant_cache_path(data_dir: Path) -> Path:
    """Return the cache of drawn variants (:mod:`questions.stored`) inside ``data_dir``.

    Only a cache: deleting it costs ``quiz ask``/``quiz check`` one draw per variant.
    """
    return data_dir / "cache" / "variants.db"


def extra_template_dirs(
    cli: Sequence[str | Path] = (),
    *,
    env: Mapping[str, str] | None = None,
) -> list[Path]:
    """Return the extra template folders named by ``--templates`` and ``QUIZ_TEMPLATES``.

    Folders from the command line come first, then those from the environment
    variable (separated by ``os.pathsep``). Empty entries are skipped and duplicates
    are kept only once, in first-seen order. Folders are not checked for existence
    here: ``quiz templates`` warns about a missing one, and elsewhere a missing folder
    simply holds no templates.

    Args:
        cli: The values of the repeatable ``--templates DIR`` flag.
        env: The environment to read ``QUIZ_TEMPLATES`` from; ``os.environ`` if None.

    Returns:
        Absolute paths, ``~`` expanded.
    """
    environ = os.environ if env is None else env
    raw: list[str | Path] = list(cli)
    raw.extend(environ.get(TEMPLATES_ENV, "").split(os.pathsep))
    seen: set[Path] = set()
    result: list[Path] = []
    for entry in raw:
        if str(entry).strip() == "":
            continue
        path = _expand(entry)
        if path not in seen:
            seen.add(path)
            result.append(path)
    return result
