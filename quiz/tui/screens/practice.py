"""The practice picker: a topic, rapid-fire item or tag, a difficulty, and whether to
schedule."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.markup import escape
from textual.screen import Screen
from textual.widgets import Checkbox, Footer, OptionList, Select, Static
from textual.widgets.option_list import Option

from questions.tags import AREAS, RAPID_FIRE, tag_label
from quiz.tui.messages import PracticeChosen
from quiz.tui.widgets.title_bar import TitleBar

if TYPE_CHECKING:
    from questions.loader import Bank

DIFFICULTIES: list[tuple[str, int]] = [("Any difficulty", 0), ("1 · easy", 1),
                                       ("2 · medium", 2), ("3 · hard", 3)]


Target = tuple[str, str | None]
"""(label, filter): the filter is what ``PracticeSession`` takes as ``topic``."""


def practice_targets(bank: Bank) -> list[list[Target]]:
    """What can be practised, in groups: everything; each topic; each rapid-fire item;
    each area of the interview's next questions (decode, cost, MoE ...); every other
    tag, the tags of your own templates (and packs') first, such as "mine"."""
    topics = sorted({t.topic for t in bank.summaries.values()})
    tags = {tag for t in bank.summaries.values() for tag in t.tags}
    root = _bank_root()
    outside: dict[str, bool] = {}  # folder -> not in the bundled bank: one resolve each

    def own_file(source: str) -> bool:
        folder = os.path.dirname(source)
        if folder not in outside:
            outside[folder] = not Path(folder).resolve().is_relative_to(root)
        return outside[folder]

    own = {tag for tid, t in bank.summaries.items() if own_file(bank.sources.get(tid, ""))
           for tag in t.tags}
    free = tags - set(RAPID_FIRE) - set(AREAS) - set(topics)
    groups: list[list[Target]] = [
        [("Everything", None)],
        [(topic, topic) for topic in topics],
        [(tag_label(tag), tag) for tag in sorted(RAPID_FIRE) if tag in tags],
        [(tag_label(tag), tag) for tag in AREAS if tag in tags],
        [(tag, tag) for tag in sorted(free, key=lambda tag: (tag not in own, tag))],
    ]
    return [group for group in groups if group]


def _bank_root() -> Path:
    """The folder of the bank that comes with the app."""
    from importlib import resources

    return Path(str(resources.files("questions") / "bank")).resolve()


class PracticeScreen(Screen[None]):
    """Pick what to practise; Enter starts an endless run of variants."""

    DEFAULT_CSS = """
    #practice-title { padding: 1 2 0 2; text-style: bold; }
    #practice-options { height: auto; margin: 1 1 0 1; }
    #practice-difficulty { width: 26; }
    #practice-schedule { width: auto; margin-left: 2; }
    #practice-list { height: 1fr; margin: 1 1 0 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.open_mode('home')", "Back"),
    ]

    def __init__(self, bank: Bank) -> None:
        super().__init__()
        self.bank = bank
        self.groups = practice_targets(bank)
        self.targets = [target for group in self.groups for target in group]

    def compose(self) -> ComposeResult:
        yield TitleBar("Practice")
        yield Static("Practice: pick a topic, a rapid-fire item or a tag, then Enter.",
                     id="practice-title")
        with Horizontal(id="practice-options"):
            yield Select(DIFFICULTIES, value=0, allow_blank=False, id="practice-difficulty")
            yield Checkbox("Schedule these answers", value=False, id="practice-schedule",
                           tooltip="Answers move the templates' review dates, as in "
                                   "the drill.")
        yield OptionList(*self._options(None), id="practice-list")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#practice-list", OptionList).focus()

    def _options(self, difficulty: int | None) -> list[Option | None]:
        from quiz.core.practice import matching

        options: list[Option | None] = []
        index = 0
        for group in self.groups:
            if options:
                options.append(None)  # a divider between the groups
            for label, target in group:
                n = len(matching(self.bank, target, difficulty))
                noun = "template" if n == 1 else "templates"
                options.append(Option(f"{escape(label)}  [$text-muted]{n} {noun}[/]",
                                      id=str(index), disabled=n == 0))
                index += 1
        return options

    @property
    def difficulty(self) -> int | None:
        """The chosen difficulty (None: any)."""
        value = self.query_one("#practice-difficulty", Select).value
        return value if isinstance(value, int) and value > 0 else None

    @on(Select.Changed, "#practice-difficulty")
    def _difficulty_changed(self) -> None:
        menu = self.query_one("#practice-list", OptionList)
        highlighted = menu.highlighted
        menu.set_options(self._options(self.difficulty))
        menu.highlighted = highlighted

    @on(OptionList.OptionSelected, "#practice-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option_id is None:
            return
        _, target = self.targets[int(event.option_id)]
        schedule = self.query_one("#practice-schedule", Checkbox).value
        self.post_message(PracticeChosen(target, self.difficulty, schedule))
