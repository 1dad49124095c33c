"""The colored verdict line of a graded answer."""

from __future__ import annotations

from textual.widgets import Static

from quiz.tui.data import percent

_WORDS = {"correct": "Correct", "partial": "Partly right", "incorrect": "Not right",
          "invalid": "Could not read that"}


class VerdictBanner(Static):
    """``Correct · score 100%`` on a background colored by the verdict."""

    DEFAULT_CSS = """
    VerdictBanner { width: 1fr; height: auto; padding: 0 1; text-style: bold; }
    VerdictBanner.-correct { background: $success; color: $text; }
    VerdictBanner.-partial { background: $warning; color: $text; }
    VerdictBanner.-incorrect { background: $error; color: $text; }
    VerdictBanner.-invalid { background: $panel; color: $text; }
    """

    def __init__(self, verdict: str, score: float, *, id: str | None = None) -> None:
        super().__init__(_text(verdict, score), id=id, markup=False, classes=f"-{verdict}")

    def show(self, verdict: str, score: float) -> None:
        """Show another verdict (a feedback screen reused for the next answer)."""
        self.update(_text(verdict, score), layout=False)
        self.set_classes(f"-{verdict}")


def _text(verdict: str, score: float) -> str:
    return f"{_WORDS.get(verdict, verdict)} · score {percent(score)}"
