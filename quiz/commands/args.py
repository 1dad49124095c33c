"""Argument types shared by the subcommands: a bad value is one line and exit 2.

argparse's own ``type=int`` accepts ``-5``, ``1_000`` and other scripts' digits (``٨``);
these accept ASCII digits only, within a stated range, the same way answers are read.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable


def whole(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number from `low` to `high`, in ASCII digits."""

    def read(text: str) -> int:
        if not (text.isascii() and text.isdigit()) or not low <= int(text) <= high:
            raise argparse.ArgumentTypeError(
                f"expected a whole number from {low:,} to {high:,}, not {text!r}")
        return int(text)

    read.__name__ = "whole number"  # argparse names the type in some messages
    return read


def seed(text: str) -> int:
    """An argparse type: a variant's seed (see :func:`questions.seeds.read_seed`)."""
    from questions.seeds import read_seed

    try:
        return read_seed(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def out_file(text: str) -> str:
    """An argparse type: an ``--out`` value, a file name or ``-`` for standard output
    (see :func:`quiz.core.outputs.output_name`); an empty name is one line, not a crash."""
    from quiz.core.outputs import output_name

    try:
        return output_name(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


out_file.__name__ = "file name"
