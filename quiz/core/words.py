"""Small helpers for the English the app prints (shared by the CLI and the TUI)."""

from __future__ import annotations

__all__ = ["plural"]


def plural(count: int, noun: str, many: str | None = None) -> str:
    """A count with its noun in the right number.

    Args:
        count: how many.
        noun: the singular.
        many: the plural when it is not ``noun + "s"``.

    >>> plural(1, "attempt"), plural(3, "day"), plural(2, "query", "queries")
    ('1 attempt', '3 days', '2 queries')
    """
    return f"{count} {noun if count == 1 else many or noun + 's'}"
