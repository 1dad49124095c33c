"""Flag a question as wrong or unclear, with an optional note for its author."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, RadioButton, RadioSet, Static

REASONS = (("wrong", "The key or the grading looks wrong"),
           ("unclear", "The question is unclear"))


class FlagScreen(ModalScreen[tuple[str, str] | None]):
    """Asks why and for a note; dismisses with ``(reason, note)``, or None on Escape.

    Args:
        label: the question's ``TEMPLATE_ID#SEED`` (shown so the user knows what is
            flagged).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        # Enter saves wherever the focus is: in the reason list it once toggled a
        # reason instead (Space still does), and the note typed was dropped.
        Binding("enter", "save", "Save", priority=True),
    ]

    def __init__(self, label: str) -> None:
        super().__init__()
        self.label = label

    def compose(self) -> ComposeResult:
        with Vertical(id="flag-box", classes="dialog"):
            yield Static(f"Flag {self.label}", classes="dialog-title", markup=False)
            with RadioSet(id="flag-reason"):
                for i, (_, text) in enumerate(REASONS):
                    yield RadioButton(text, value=i == 0)
            yield Input(placeholder="a note for the author (optional)", id="flag-note",
                        max_length=2000)
            yield Static("[b $text-accent]Enter[/] save    [b $text-accent]Esc[/] cancel    "
                         "(authors list flags with quiz flags)", classes="dialog-footer")

    def on_mount(self) -> None:
        self.query_one("#flag-note", Input).focus()

    def reason(self) -> str:
        """The reason chosen."""
        index = self.query_one("#flag-reason", RadioSet).pressed_index
        return REASONS[max(index, 0)][0]

    def action_save(self) -> None:
        """Flag with the reason chosen and the note as typed, wherever the focus is."""
        self.dismiss((self.reason(), self.query_one("#flag-note", Input).value))

    @on(Input.Submitted, "#flag-note")
    def _save(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_save()

    def action_cancel(self) -> None:
        """Close without flagging."""
        self.dismiss(None)
