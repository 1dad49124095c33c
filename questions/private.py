"""Files and folders only their owner can read: everything quiz keeps in its data folder.

The data folder holds the history (every answer typed), the settings and caches that
say which questions were asked (``cache/drawing.db``). Whichever command creates a
piece of it first (``quiz templates list`` builds ``cache/bank.db``, ``quiz ask`` writes
``cache/drawing.db``, the app opens ``history.db``), it is created private: folders
0700, files 0600. ``Path.mkdir(mode=..., parents=True)`` gives the mode to the last
folder only (the parents get the umask's), so each missing level is made here. An
SQLite file is created empty at 0600 before SQLite opens it: SQLite gives its ``-wal``,
``-shm`` and ``-journal`` files the main file's mode. A folder or file of ours found
readable by others (made by an older quiz) is tightened when it is next written.

This sits in :mod:`questions` (the lowest layer that touches files) so that the
caches there and :mod:`quiz` share it.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

__all__ = ["FILE_MODE", "FOLDER_MODE", "private_file", "private_folder", "tighten"]

FOLDER_MODE = 0o700
FILE_MODE = 0o600


def tighten(path: Path, mode: int) -> None:
    """Take group and other permissions off ``path`` (to at most ``mode``) if this user
    owns it; anything else is left as it is (a file of another user, a link)."""
    with contextlib.suppress(OSError):
        st = os.lstat(path)
        if st.st_uid == os.geteuid() and not stat.S_ISLNK(st.st_mode) \
                and stat.S_IMODE(st.st_mode) & ~mode & 0o777:
            os.chmod(path, stat.S_IMODE(st.st_mode) & mode)


def private_folder(folder: Path) -> None:
    """Create ``folder`` and each missing parent with mode 0700, and tighten ``folder``
    itself if it exists readable by others.

    Raises:
        OSError: a level cannot be created (a file in the way, no permission).
    """
    missing: list[Path] = []
    level = folder
    while not level.exists() and level != level.parent:
        missing.append(level)
        level = level.parent
    for path in reversed(missing):
        try:
            os.mkdir(path, FOLDER_MODE)
        except FileExistsError:  # made meanwhile by another process
            if not path.is_dir():
                raise
    tighten(folder, FOLDER_MODE)


def private_file(path: Path) -> None:
    """Make sure ``path`` (a file quiz keeps, such as an SQLite database) exists with
    mode 0600 before it is opened: created empty if missing, tightened if readable by
    others. Its folder is made private too. Nothing is raised: a file that cannot be
    made is left to the code that opens it, which reports it."""
    with contextlib.suppress(OSError):
        private_folder(path.parent)
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
        except FileExistsError:
            for suffix in ("", "-wal", "-shm", "-journal"):
                tighten(path.with_name(path.name + suffix), FILE_MODE)
