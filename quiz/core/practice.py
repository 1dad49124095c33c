"""Practice: endless variants of a topic, a tag, an id prefix or a chosen set of
templates (a retry, the leeches)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from questions.loader import Bank
from quiz.core.errors import NoQuestions
from quiz.core.session import Question, Session
from quiz.core.settings import Settings
from quiz.core.store import Store
from quiz.core.types import Mode

if TYPE_CHECKING:
    pass


class PracticeSession(Session):
    """Endless practice on a topic, a rapid-fire item, a tag or a difficulty.

    Args:
        topic: a topic name, a tag (e.g. `rapid-fire-3`), or None for everything.
        difficulty: only this difficulty, or None.
        schedule: whether answers move FSRS cards (off unless asked).
        ids: exactly these templates (e.g. the leeches) instead of a topic.
        first: ask this ``(template id, seed)`` first (a retry of a past variant).

    Raises:
        NoQuestions: nothing matches.
    """

    mode: Mode = "practice"

    def __init__(self, bank: Bank, store: Store, settings: Settings, *,
                 topic: str | None = None, difficulty: int | None = None,
                 schedule: bool = False, ids: Sequence[str] | None = None,
                 first: tuple[str, int] | None = None, **kw: Any) -> None:
        super().__init__(bank, store, settings, **kw)
        self.ids = ([i for i in dict.fromkeys(ids) if i in bank.templates] if ids is not None
                    else matching(bank, topic, difficulty))
        self._first = first
        if not self.ids:
            raise NoQuestions(f"no template matches {topic or 'any topic'}"
                              + (f" at difficulty {difficulty}" if difficulty else ""))
        self.schedule = schedule
        self._last: str | None = None

    def review(self) -> bool:
        return self.schedule

    def next(self) -> Question | None:
        if self._first is not None:
            (template_id, seed), self._first = self._first, None
            self._last = template_id
            return self.ask(template_id, seed)
        return super().next()

    def pick(self) -> str | None:
        ids = [i for i in self.ids if i not in self.skipped]
        if not ids:
            return None
        pool = [i for i in ids if i != self._last] or ids
        self._last = self.rng.choice(pool)
        return self._last


def matching(bank: Bank, topic: str | None, difficulty: int | None = None) -> list[str]:
    """Template ids whose topic, tag, id or id prefix is `topic`, at `difficulty`.

    A folder (``layout`` or ``layout/``) matches the ids under it; when no topic, tag,
    id or folder matches, the start of an id does (``layout/thirty`` matches
    ``layout/thirty-second-answer``).
    """
    if not topic:
        return [tid for tid, t in sorted(bank.summaries.items())
                if not difficulty or t.difficulty == difficulty]
    folder = f"{topic.rstrip('/')}/"
    named = [tid for tid, t in sorted(bank.summaries.items())
             if topic in (t.topic, *t.tags, tid) or tid.startswith(folder)]
    if not named:
        named = [tid for tid in sorted(bank.summaries) if tid.startswith(topic)]
    return [tid for tid in named
            if not difficulty or bank.summaries[tid].difficulty == difficulty]
