"""One template drawn at a seed: prompt, key, known mistakes and derivation."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.markup import escape
from textual.screen import Screen
from textual.widgets import Footer, Input, Static

from quiz.tui.messages import PracticeRequested, TemplatePreviewed, while_shown
from quiz.tui.widgets.derivation import Derivation
from quiz.tui.widgets.params_table import ParamsTable
from quiz.tui.widgets.title_bar import TitleBar

if TYPE_CHECKING:
    from questions.loader import Bank
    from quiz.tui.data import PartPreview, TemplatePreview

MAX_SEED = 999_999_999_999


class PartView(Vertical):
    """One part of a previewed variant."""

    def __init__(self, part: PartPreview, *, several: bool) -> None:
        super().__init__(classes="preview-part")
        self.part = part
        self.several = several

    def compose(self) -> ComposeResult:
        part = self.part
        if self.several:
            yield Static(f"Part {part.index}", classes="section-title")
        yield Static(part.prompt, classes="preview-prompt", markup=False)
        if part.choices:
            yield Static("\n".join(f"[b $text-accent]{chr(ord('a') + i)})[/] {escape(c)}"
                                   for i, c in enumerate(part.choices)))
        yield Static(f"[b]Key[/] ({escape(part.kind)}): [b $text-success]{escape(part.key)}[/]",
                     classes="preview-key")
        if part.mistakes:
            lines = ["[b]Known mistakes[/]"]
            for name, credit, feedback in part.mistakes:
                lines.append(f"• [b]{escape(name)}[/] ({credit:.0%} credit): "
                             f"{escape(feedback)}")
            yield Static("\n".join(lines), classes="preview-mistakes")
        yield Derivation(part.derivation, title="Worked solution")


class TemplatePreviewScreen(Screen[None]):
    """A template at a seed; change the seed to see other variants.

    Args:
        bank: the loaded templates.
        template_id: the template shown.
        seed: the first seed shown.
    """

    DEFAULT_CSS = """
    #preview-bar { height: 3; padding: 0 1; }
    #preview-id { width: 1fr; padding-top: 1; text-style: bold; color: $text-primary; }
    #preview-seed-name { width: auto; padding: 1 1 0 0; color: $text-muted; }
    #preview-seed { width: 16; }
    #preview-about { padding: 0 2; }
    #preview-scroll { padding: 0 2; }
    #preview-status { margin-top: 1; color: $text-muted; }
    #preview-params { margin-top: 1; }
    #preview-parts { height: auto; }
    .preview-part { height: auto; margin-top: 1; }
    .preview-prompt { margin-bottom: 1; }
    .preview-key { margin-top: 1; }
    .preview-mistakes { margin-top: 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("p", "practise", "Practise it"),
        Binding("left_square_bracket", "seed(-1)", "Seed -1", key_display="[",
                priority=True),
        Binding("right_square_bracket", "seed(1)", "Seed +1", key_display="]",
                priority=True),
    ]

    def __init__(self, bank: Bank, template_id: str, seed: int = 0) -> None:
        super().__init__()
        self.bank = bank
        self.template_id = template_id
        self.seed = seed

    def compose(self) -> ComposeResult:
        template = self.bank.get(self.template_id)
        yield TitleBar("Template preview")
        with Horizontal(id="preview-bar"):
            yield Static(f"{self.template_id}", id="preview-id", markup=False)
            yield Static("seed", id="preview-seed-name")
            yield Input(str(self.seed), type="integer", id="preview-seed",
                        max_length=12)
        yield Static(f"{template.title} · {template.topic} · difficulty "
                     f"{template.difficulty} · tags: {', '.join(template.tags) or 'none'}",
                     id="preview-about", classes="muted", markup=False)
        with VerticalScroll(id="preview-scroll"):
            yield Static("Drawing…", id="preview-status", markup=False)
            yield ParamsTable("", id="preview-params")
            yield Vertical(id="preview-parts")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#preview-scroll").focus()
        self._draw(self.seed)

    def action_back(self) -> None:
        """Back to the list."""
        self.dismiss(None)

    def action_practise(self) -> None:
        """Practise this template: fresh variants (not the one previewed, whose key is
        on screen); Escape comes back here."""
        self.post_message(PracticeRequested([self.template_id]))

    def action_seed(self, step: int) -> None:
        """Show the previous or next seed."""
        self.seed = min(MAX_SEED, max(0, self.seed + step))
        self.query_one("#preview-seed", Input).value = str(self.seed)

    @on(Input.Changed, "#preview-seed")
    def _seed_changed(self, event: Input.Changed) -> None:
        try:
            seed = int(event.value)
        except ValueError:
            return
        if 0 <= seed <= MAX_SEED:
            self.seed = seed
            self._draw(seed)

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _draw(self, seed: int) -> None:
        from quiz.tui.data import preview_template

        self.post_message(TemplatePreviewed(preview_template(self.bank, self.template_id,
                                                             seed)))

    @on(TemplatePreviewed)
    @while_shown
    async def _show(self, event: TemplatePreviewed) -> None:
        preview: TemplatePreview = event.preview
        if preview.seed != self.seed:
            return  # an older draw arrived late
        status = self.query_one("#preview-status", Static)
        status.update(f"{preview.label}" if preview.error is None
                      else f"{preview.label}: no variant: {preview.error}")
        self.query_one("#preview-params", ParamsTable).show(preview.params)
        box = self.query_one("#preview-parts", Vertical)
        await box.remove_children()
        await box.mount_all([PartView(p, several=len(preview.parts) > 1)
                             for p in preview.parts])
