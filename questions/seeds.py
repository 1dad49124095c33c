"""The one rule for a variant's seed, wherever it is typed (`#SEED`, `--seed`, the TUI).

Kept apart from :mod:`questions.variants` so that the command line can check a seed
without importing the solver.
"""

from __future__ import annotations

MAX_SEED_DIGITS = 12
MAX_SEED = 10**MAX_SEED_DIGITS - 1


def read_seed(text: str) -> int:
    """A seed typed as text: ASCII digits only, at most MAX_SEED_DIGITS of them.

    >>> read_seed("42")
    42

    Raises:
        ValueError: anything else (a sign, spaces, other scripts' digits, too many digits).
    """
    if not (text.isascii() and text.isdigit()) or len(text) > MAX_SEED_DIGITS:
        raise ValueError(f"a seed is a whole number from 0 to {MAX_SEED:,}, not {text!r}")
    return int(text)


def check_seed(seed: int) -> int:
    """A seed given as a number, under the same rule as :func:`read_seed`.

    Raises:
        ValueError: negative or over MAX_SEED.
    """
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"a seed is a whole number from 0 to {MAX_SEED:,}, not {seed}")
    return seed
