"""Helpers shared by the subcommands: finding the bank and the data folder."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from questions.loader import Bank


def template_dirs(args: argparse.Namespace) -> list[Path]:
    """The user's default template folder plus `--templates` and `QUIZ_TEMPLATES`."""
    from quiz import locations

    folder = locations.data_dir(getattr(args, "data_dir", None))
    return [locations.user_templates_dir(folder),
            *locations.extra_template_dirs(getattr(args, "templates", []) or [])]


def bank(args: argparse.Namespace, *, warn: bool = True) -> Bank:
    """The bundled bank plus user folders; broken user templates are reported on stderr
    and skipped."""
    from questions.loader import load_bank

    loaded = load_bank(template_dirs(args))
    if warn:
        for problem in loaded.problems:
            print(f"warning: skipped {problem}", file=sys.stderr)
    return loaded
