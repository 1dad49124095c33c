"""Mistakes: past incorrect and partial answers, with keys, feedback and solutions.

The list comes from :func:`quiz.core.mistakes.mistakes` in a worker (deriving the
solutions imports sympy). Entries are grouped by topic, newest first; the named
mistakes and the leeches are summed up above. ``r`` retries the same variant,
``n`` a fresh one of the same template, ``l`` practises the leeches.

Below the list, the templates the daily drill suspended (forgotten 8 times, see
:mod:`quiz.core.optimizer`), when there are any: ``b`` (or Enter) on one brings it back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Select, Static
from textual.widgets.option_list import Option

from quiz.tui.messages import MistakesFound, PracticeRequested, TaskFailed, while_shown
from quiz.tui.widgets.derivation import Derivation
from quiz.tui.widgets.title_bar import TitleBar

if TYPE_CHECKING:
    from questions.loader import Bank
    from quiz.core.mistakes import Mistake
    from quiz.core.state import AppState


def entry_line(m: Mistake) -> str:
    """One line of the list: day, variant, verdict and named mistake, marks."""
    a = m.attempt
    part = f" part {m.part}" if m.part > 1 else ""
    named = f" — {a.mistake}" if a.mistake else ""
    leech = "  ⚑ leech" if m.leech else ""
    return f"{a.answered_at:%m-%d}  {m.variant}{part}  {a.verdict}{named}{leech}"


def detail_text(m: Mistake) -> str:
    """What was answered, the key and the feedback, for the detail pane."""
    a = m.attempt
    lines = [f"{m.title}  ({a.mode}, {a.answered_at:%Y-%m-%d %H:%M} UTC)",
             f"You: {m.yours}", f"Key: {m.shown_key}", m.feedback]
    if m.stale:
        lines.append("The template changed since: this variant may differ now.")
    return "\n".join(lines)


class MistakesScreen(Screen[None]):
    """Review what you got wrong; retry it.

    Args:
        state: the open data.
        bank: the loaded templates.
    """

    DEFAULT_CSS = """
    #mistakes-filter { width: 1fr; margin: 0 1; }
    #mistakes-summary { height: auto; padding: 0 2; color: $text-muted; }
    #mistakes-list { height: auto; max-height: 8; margin: 0 1; }
    #suspended-title { height: auto; padding: 0 2; color: $warning; }
    #suspended-list { height: auto; max-height: 5; margin: 0 1; }
    #mistakes-detail { height: 1fr; padding: 0 2; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.open_mode('home')", "Back"),
        Binding("r", "retry(True)", "Retry"),
        Binding("n", "retry(False)", "New variant"),
        Binding("l", "leeches", "Leeches"),
        Binding("b", "bring_back", "Bring back"),
    ]

    def __init__(self, state: AppState, bank: Bank) -> None:
        super().__init__()
        self.state, self.bank = state, bank
        self.entries: list[Mistake] = []
        self.leeches: list[str] = []
        self.suspended: dict[str, tuple[str, int]] = {}

    def compose(self) -> ComposeResult:
        yield TitleBar("Mistakes")
        topics = sorted({t.topic for t in self.bank.summaries.values()})
        items = [(f"topic: {t}", t) for t in topics] + \
            [(f"rapid-fire item {i}", f"rapid-fire-{i}") for i in range(1, 8)]
        yield Select(items, prompt="All topics", id="mistakes-filter")
        yield Static("Reading your history…", id="mistakes-summary", markup=False)
        yield OptionList(id="mistakes-list")
        yield Static("", id="suspended-title", markup=False)
        yield OptionList(id="suspended-list")
        with VerticalScroll(id="mistakes-detail"):
            yield Static("", id="mistakes-answer", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#mistakes-list", OptionList).focus()
        self.query_one("#suspended-title").display = False
        self.query_one("#suspended-list").display = False
        self._load(None)

    @on(Select.Changed, "#mistakes-filter")
    def _filtered(self, event: Select.Changed) -> None:
        self._load(None if event.value is Select.BLANK else str(event.value))

    @work(thread=True, exclusive=True, group="mistakes", exit_on_error=False)
    def _load(self, topic: str | None) -> None:
        from quiz.core.mistakes import leeches, mistakes

        try:
            found = mistakes(self.state.store, self.bank, topic=topic)
            leech_ids = leeches(self.state.store)
            suspended = self.state.store.suspended()
        except Exception as exc:  # a history we cannot read: say so, stay up
            self.post_message(TaskFailed("reading your mistakes", str(exc)))
            return
        self.post_message(MistakesFound(found, leech_ids, suspended))

    @on(MistakesFound)
    @while_shown
    def _found(self, event: MistakesFound) -> None:
        from quiz.core.mistakes import by_mistake, by_topic
        from quiz.core.words import plural

        self.entries, self.leeches = event.mistakes, event.leeches
        options: list[Option | None] = []
        for topic, group in by_topic(self.entries).items():
            options.append(Option(f"{topic} ({len(group)})", disabled=True))
            options.extend(Option(entry_line(m), id=str(i)) for i, m in
                           enumerate(self.entries) if m in group)
        menu = self.query_one("#mistakes-list", OptionList)
        menu.clear_options()
        menu.add_options([o for o in options if o is not None])
        named = by_mistake(self.entries)
        lines = [f"{plural(len(self.entries), 'answer')} not fully right, newest first."
                 if self.entries else "No mistakes here yet: keep drilling."]
        if named:
            lines.append("Named: " + ", ".join(f"{name} ×{n}" for name, n in named[:4]))
        if self.leeches:
            lines.append(f"{plural(len(self.leeches), 'leech', 'leeches')} (missed again "
                         "and again): l practises them.")
        self.query_one("#mistakes-summary", Static).update("\n".join(lines))
        self._show_suspended(event.suspended)
        first = next((i for i, o in enumerate(menu.options) if not o.disabled), None)
        menu.highlighted = first
        if first is None:
            self._show(None)

    def _show_suspended(self, suspended: dict[str, tuple[str, int]]) -> None:
        from quiz.core.words import plural

        self.suspended = suspended
        title = self.query_one("#suspended-title", Static)
        menu = self.query_one("#suspended-list", OptionList)
        title.display = menu.display = bool(suspended)
        title.update(f"Suspended from the daily drill, forgotten again and again "
                     f"({plural(len(suspended), 'template')}): b brings one back.")
        menu.clear_options()
        menu.add_options([Option(f"{tid}  ({n} lapses, since {at[:10]})", id=tid)
                          for tid, (at, n) in suspended.items()])
        if suspended:
            menu.highlighted = 0

    @on(OptionList.OptionSelected, "#suspended-list")
    def _suspended_chosen(self) -> None:
        self.action_bring_back()

    def action_bring_back(self) -> None:
        """Put the highlighted suspended template back into the daily drill."""
        menu = self.query_one("#suspended-list", OptionList)
        if not self.suspended or menu.highlighted is None:
            self.notify("No template is suspended.", timeout=3)
            return
        template_id = menu.get_option_at_index(menu.highlighted).id
        if template_id is None:
            return
        self.state.store.unsuspend(template_id)
        self.notify(f"{template_id} is back in the daily drill.", timeout=4)
        self._show_suspended({t: v for t, v in self.suspended.items() if t != template_id})

    @on(OptionList.OptionHighlighted, "#mistakes-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show(self.selected)

    @property
    def selected(self) -> Mistake | None:
        """The highlighted entry."""
        menu = self.query_one("#mistakes-list", OptionList)
        if menu.highlighted is None:
            return None
        option = menu.get_option_at_index(menu.highlighted)
        return self.entries[int(option.id)] if option.id is not None else None

    def _show(self, m: Mistake | None) -> None:
        self.query_one("#mistakes-answer", Static).update(detail_text(m) if m else "")
        detail = self.query_one("#mistakes-detail", VerticalScroll)
        detail.query(Derivation).remove()
        if m is not None and m.derivation is not None:
            detail.mount(Derivation(m.derivation, title="Worked solution"))
        detail.scroll_home(animate=False)

    @on(OptionList.OptionSelected, "#mistakes-list")
    def _chosen(self) -> None:
        self.action_retry(True)

    def action_retry(self, same: bool) -> None:
        """Practise the highlighted template: the same variant first, or a fresh one."""
        m = self.selected
        if m is None or m.attempt.template_id not in self.bank.templates:
            self.notify("Choose an answer from the list first.", timeout=3)
            return
        a = m.attempt
        self.post_message(PracticeRequested([a.template_id],
                                            (a.template_id, a.seed) if same else None))

    def action_leeches(self) -> None:
        """A focused practice set of the leeches."""
        if not self.leeches:
            self.notify("No leeches: no template was missed again and again.", timeout=3)
            return
        self.post_message(PracticeRequested(list(self.leeches)))
