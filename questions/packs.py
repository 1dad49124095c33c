"""Template packs: installed Python packages that ship a folder of TOML templates.

A pack declares an entry point in the group ``quiz.templates``; its value names the
folder as ``package`` (the package's own folder) or ``package:subfolder``::

    [project.entry-points."quiz.templates"]
    acme = "acme_quiz_pack:templates"

The folder is found from the installed distribution's files, without importing the
package: like a template file, a pack is data, and loading it never runs its author's
code. Its templates load beside the bundled bank and the user folders (see
:func:`questions.catalog.load_bank`); an entry point that names no folder, or a broken
template in it, becomes a located problem and is skipped.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Final

from msgspec import Struct

from questions.private import FILE_MODE, private_folder

if TYPE_CHECKING:
    from importlib import metadata

__all__ = ["GROUP", "Pack", "discover", "installed"]

GROUP: Final = "quiz.templates"
"""The entry point group packs register in."""


class Pack(Struct, frozen=True):
    """One installed pack."""

    name: str
    """The entry point's name: what ``templates list`` and the browser show."""
    dist: str
    """The distribution (``pip`` name and version) that installed it."""
    folder: Path | None
    """The folder of templates, or None when the entry point names none."""
    problem: str | None = None
    """Why the pack cannot be loaded, if it cannot."""

    @property
    def label(self) -> str:
        """``pack NAME (DIST)``, as messages name it."""
        return f"pack {self.name!r} ({self.dist})"


def _folder(ep: metadata.EntryPoint) -> tuple[Path | None, str | None]:
    module, _, sub = ep.value.partition(":")
    module, sub = module.strip(), sub.strip()
    if not module or not all(part.isidentifier() for part in module.split(".")) or (
            sub and any(part in ("", "..") for part in sub.split("/"))):
        return None, f"entry point value {ep.value!r} is not PACKAGE or PACKAGE:FOLDER"
    if ep.dist is None:
        return None, "the entry point belongs to no installed distribution"
    relative = Path(*module.split("."), *(sub.split("/") if sub else []))
    folder = Path(str(ep.dist.locate_file(relative)))
    if not folder.is_dir():
        return None, f"entry point {ep.value!r} names no folder (looked for {folder})"
    return folder, None


def discover(cache: Path | None = None) -> list[Pack]:
    """Every installed pack, sorted by name (broken ones carry their problem).

    Args:
        cache: a file that keeps the answer while the same distributions are installed
            (:func:`installed`), so that most starts skip ``importlib.metadata``: its
            import and its scan of every distribution's entry points were a tenth of
            ``quiz templates list``. None: always look.
    """
    if cache is None:
        return _look()
    key = installed()
    found = _cached(cache, key)
    if found is None:
        found = _look() if _may_declare_packs() else []
        _keep(cache, key, found)
    return found


def _may_declare_packs() -> bool:
    """Whether an installed distribution may declare a pack: False only when every
    ``entry_points.txt`` on ``sys.path`` was read and none names the group (then
    ``importlib.metadata``, a tenth of a first ``quiz templates list``, is not
    imported); an archive on the path, or another finder of distributions, may."""
    import importlib.machinery

    if any(hasattr(f, "find_distributions") and f is not importlib.machinery.PathFinder
           for f in sys.meta_path):
        return True
    for entry in sys.path:
        try:
            with os.scandir(entry or ".") as found:
                names = [e.name for e in found
                         if e.name.endswith((".dist-info", ".egg-info"))]
        except NotADirectoryError:
            return True
        except OSError:
            continue
        for name in names:
            try:
                with open(os.path.join(entry or ".", name, "entry_points.txt"), "rb") as f:
                    if GROUP.encode() in f.read():
                        return True
            except OSError:
                continue
    return False


def _look() -> list[Pack]:
    from importlib import metadata

    packs = []
    for ep in metadata.entry_points(group=GROUP):
        dist = f"{ep.dist.name} {ep.dist.version}" if ep.dist is not None else "unknown"
        folder, problem = _folder(ep)
        packs.append(Pack(ep.name, dist, folder, problem))
    return sorted(packs, key=lambda p: (p.name, p.dist))


def installed() -> str:
    """A digest of what decides the installed entry points, read without importing
    ``importlib.metadata``: every entry of ``sys.path``, the metadata folders
    (``*.dist-info``, ``*.egg-info``) in each, and the size and modification time of
    each one's ``entry_points.txt``. Installing, removing or upgrading a distribution,
    or changing the path, gives another digest.
    """
    parts: list[str] = []
    for entry in sys.path:
        parts.append(f"path {entry}")
        try:
            with os.scandir(entry or ".") as found:
                names = sorted(e.name for e in found
                               if e.name.endswith((".dist-info", ".egg-info")))
        except NotADirectoryError:  # an archive on the path: its own stamp
            names = []
            parts.append(_stamp(entry))
        except OSError:  # a folder that does not exist: nothing is installed there
            continue
        parts += [f"{name} {_stamp(os.path.join(entry or '.', name, 'entry_points.txt'))}"
                  for name in names]
    return hashlib.blake2b("\n".join(parts).encode("utf-8", "surrogatepass"),
                           digest_size=16).hexdigest()


def _stamp(path: str) -> str:
    try:
        st = os.stat(path)
    except OSError:
        return "-"
    return f"{st.st_size}:{st.st_mtime_ns}"


def _cached(cache: Path, key: str) -> list[Pack] | None:
    """The packs kept under ``key``, or None (no file, another key, unreadable, or a
    pack folder that has gone since: looking again names the problem)."""
    try:
        data = json.loads(cache.read_text(encoding="utf-8"))
        if data["key"] != key:
            return None
        packs = [Pack(p["name"], p["dist"], None if p["folder"] is None
                      else Path(p["folder"]), p["problem"]) for p in data["packs"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if any(p.folder is not None and not p.folder.is_dir() for p in packs):
        return None
    return packs


def _keep(cache: Path, key: str, packs: list[Pack]) -> None:
    """Write the packs under ``key`` (atomically; a cache that cannot be written is
    done without)."""
    data = {"key": key, "packs": [{"name": p.name, "dist": p.dist, "problem": p.problem,
                                   "folder": None if p.folder is None else str(p.folder)}
                                  for p in packs]}
    temporary = cache.with_name(f".{cache.name}.{os.getpid()}")
    try:
        private_folder(cache.parent)
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(data))
        os.replace(temporary, cache)
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)
