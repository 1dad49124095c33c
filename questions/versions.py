"""Template versions: a changed bundled template must bump its `version`.

History and scheduling stay with a template's id; its version, stored with every
attempt, says which wording and numbers the attempt answered. To keep that honest for
the bundled bank, ``questions/bank/versions.json`` records each template's version and
a digest of its content; a test fails when the content changes but the version does not.

After editing a bundled template: bump its ``version``, then run
``python -m questions.versions --update`` to record the new digest.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Mapping
from importlib import resources
from pathlib import Path

from questions.schema import Template


def digest(t: Template) -> str:
    """A digest of everything the author wrote except the version (fields left at their
    defaults are left out, so a new optional schema field changes no digest)."""
    data = t.model_dump(mode="json", exclude={"version"}, by_alias=True,
                        exclude_defaults=True)
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def lock_path() -> Path:
    """The lock file of the bundled bank."""
    return Path(str(resources.files("questions") / "bank" / "versions.json"))


def read_lock() -> dict[str, list[int | str]]:
    """id -> [version, digest] as recorded."""
    path = lock_path()
    if not path.exists():
        return {}
    data: dict[str, list[int | str]] = json.loads(path.read_text())
    return data


def problems(templates: Mapping[str, Template]) -> list[str]:
    """Templates changed without a version bump, or missing from the lock."""
    lock = read_lock()
    out = []
    for tid, t in sorted(templates.items()):
        if tid not in lock:
            out.append(f"{tid}: not in versions.json (run python -m questions.versions "
                       "--update)")
            continue
        version, recorded = int(lock[tid][0]), str(lock[tid][1])
        if t.version < version:
            out.append(f"{tid}: version went down from {version} to {t.version}")
        elif digest(t) != recorded and t.version == version:
            out.append(f"{tid}: changed but still version {version}: bump `version`, then "
                       "run python -m questions.versions --update")
        elif digest(t) != recorded:
            out.append(f"{tid}: version bumped to {t.version}; record it with python -m "
                       "questions.versions --update")
    return out


def main() -> int:
    """`python -m questions.versions [--update]`: check or rewrite the lock."""
    from questions.catalog import load_bank

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--update", action="store_true", help="record current versions")
    ns = ap.parse_args()
    bank = load_bank()
    if ns.update:
        lock = {tid: [t.version, digest(t)] for tid, t in sorted(bank.templates.items())}
        lock_path().write_text(json.dumps(lock, indent=1, sort_keys=True) + "\n")
        print(f"recorded {len(lock)} templates in {lock_path()}")
        return 0
    found = problems(bank.templates)
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
