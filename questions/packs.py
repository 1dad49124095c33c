"""Template packs: installed Python packages that ship a folder of TOML templates.

A pack declares an entry point in the group ``quiz.templates``; its value names the
folder as ``package`` (the package's own folder) or ``package:subfolder``::

    [project.entry-points."quiz.templates"]
    acme = "acme_quiz_pack:templates"

The folder is found from the installed distribution's files, without importing the
package: like a template file, a pack is data, and loading it never runs its author's
code. Its templates load beside the bundled bank and the user folders (see
:func:`questions.loader.load_bank`); an entry point that names no folder, or a broken
template in it, becomes a located problem and is skipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Final

__all__ = ["GROUP", "Pack", "discover"]

GROUP: Final = "quiz.templates"
"""The entry point group packs register in."""


@dataclass(frozen=True, slots=True)
class Pack:
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


def discover() -> list[Pack]:
    """Every installed pack, sorted by name (broken ones carry their problem)."""
    packs = []
    for ep in metadata.entry_points(group=GROUP):
        dist = f"{ep.dist.name} {ep.dist.version}" if ep.dist is not None else "unknown"
        folder, problem = _folder(ep)
        packs.append(Pack(ep.name, dist, folder, problem))
    return sorted(packs, key=lambda p: (p.name, p.dist))
