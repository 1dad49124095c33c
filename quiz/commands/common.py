"""Helpers shared by the subcommands: finding the bank and the data folder."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from questions.catalog import Catalog
    from questions.loader import Bank
    from quiz.core.store import Store


def template_dirs(args: argparse.Namespace) -> list[Path]:
    """The user's default template folder plus `--templates` and `QUIZ_TEMPLATES`."""
    from quiz import locations

    folder = locations.data_dir(getattr(args, "data_dir", None))
    return [locations.user_templates_dir(folder),
            *locations.extra_template_dirs(getattr(args, "templates", []) or [])]


def _claimed(args: argparse.Namespace) -> Path:
    """The data folder, made (or kept) private before a cache is written into it: the
    first command run may be `templates list`, `ask` or `check`."""
    from quiz import locations

    folder = locations.data_dir(getattr(args, "data_dir", None))
    with contextlib.suppress(OSError):  # an unusable folder: the caches do without
        locations.claim(folder)
    return folder


def bank_cache(args: argparse.Namespace) -> Path:
    """The compiled-bank cache of the data folder."""
    from quiz import locations

    return locations.bank_cache_path(_claimed(args))


def plan_cache(args: argparse.Namespace) -> Path:
    """The data folder's file of derivation plans (:mod:`questions.plancache`)."""
    import contextlib

    from questions.plancache import FILE
    from quiz import locations

    old = locations.variant_cache_path(_claimed(args))
    with contextlib.suppress(OSError):  # the drawn variants earlier versions kept
        old.unlink()
    return old.with_name(FILE)


def bank(args: argparse.Namespace, *, warn: bool = True,
         only: Sequence[str] | None = None) -> Bank:
    """The bundled bank plus user folders; broken user templates are reported on stderr
    and skipped.

    Args:
        args: the parsed command line (``--data-dir``, ``--templates``).
        warn: report broken files on stderr.
        only: load just these template ids (the others are only listed).
    """
    from questions.catalog import load_bank

    loaded = load_bank(template_dirs(args), cache=bank_cache(args), only=only)
    if warn:
        for problem in loaded.problems:
            print(f"warning: skipped {problem}", file=sys.stderr)
    return loaded


def catalog(args: argparse.Namespace, *, warn: bool = True,
            compile_up_to: int | None = None, only: str | None = None) -> Catalog:
    """Every template's id and summary, from the compiled-bank cache where it is fresh
    (no template is validated again); broken files are reported as by :func:`bank`
    (``compile_up_to``: see :func:`questions.catalog.build`). ``only``: the one template
    the command draws; of the files not compiled yet, only its own is compiled (the
    others are summarized: a first ``quiz check`` in a new data folder compiles one
    template, not the bank; see :func:`questions.catalog.find`)."""
    from questions.catalog import build, find
    from questions.loader import bank_files

    cache = bank_cache(args)
    source = bank_files(template_dirs(args), cache=cache)
    found = find(source, only, cache) if only is not None else \
        build(source, cache, compile_up_to=compile_up_to)
    if warn:
        for problem in found.problems:
            print(f"warning: skipped {problem}", file=sys.stderr)
    return found


def open_store(args: argparse.Namespace) -> Store:
    """The history in the data folder, opened; a repair it needed is a warning on stderr."""
    from quiz import locations
    from quiz.core.store import Store

    store = Store.open(locations.db_path(locations.data_dir(args.data_dir)))
    if store.recovery_message:
        print(f"warning: {store.recovery_message}", file=sys.stderr)
    return store
