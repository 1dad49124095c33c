"""Settings: every field of :class:`quiz.core.settings.Settings`, edited in place.

Each change is checked by the settings model itself (ranges, types) and, when valid,
applied at once and written to ``config.toml`` by the app (in a thread), which edits
the file rather than rewriting it: the user's comments and layout survive. An invalid
value is shown in place of the field's description and not saved.

Desired retention is the exception: what a value costs is not obvious, so a valid value
first shows its workload (reviews a day, forecast in a worker) and is saved on Enter.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.markup import escape
from textual.screen import Screen
from textual.widgets import Footer, Input, Select, Static, Switch

from quiz.tui.messages import SettingChanged, WorkloadForecast, while_shown
from quiz.tui.widgets.title_bar import TitleBar

if TYPE_CHECKING:
    from quiz.core.settings import Settings

LABELS: dict[str, str] = {
    "theme": "Theme",
    "new_per_day": "New questions a day",
    "reviews_per_day": "Reviews a day, at most",
    "mock_questions": "Mock: questions",
    "mock_minutes": "Mock: minutes",
    "mock_hints": "Mock: hints allowed",
    "tolerance_scale": "Tolerance scale",
    "desired_retention": "Desired retention",
}
"""The screen's name for each setting, in the screen's order (a test checks that every
field of Settings has one)."""


def bounds(name: str) -> tuple[float | None, float | None]:
    """The smallest and largest value the settings model allows for a number field."""
    from quiz.core.settings import Settings

    low = high = None
    for rule in Settings.model_fields[name].metadata:
        low = getattr(rule, "ge", getattr(rule, "gt", low))
        high = getattr(rule, "le", getattr(rule, "lt", high))
    return low, high


def _range_text(name: str) -> str:
    low, high = bounds(name)
    if low is None or high is None:
        return ""
    return f"{low:g} to {high:g}"


def about_text(path: Path) -> str:
    """The screen's first line: where the settings go."""
    return (f"Saved as you change them, to [b]{escape(str(path))}[/] "
            "(your comments there are kept).")


class SettingsScreen(Screen[None]):
    """Theme, the daily drill's limits, the mock's defaults, hints in mocks, tolerance.

    Args:
        settings: the settings in force (the app's; changes go through the app).
        path: the settings file, shown so the user knows where it lives.
        themes: the names of the themes the app can show.
        workload: the workload line of a desired retention ("about 15 reviews a
            day …"), run in a worker; None shows none.
    """

    DEFAULT_CSS = """
    #settings-scroll { padding: 0 2; }
    #settings-about { margin: 1 0; color: $text-muted; }
    .setting-row { height: 1; margin-top: 1; }
    .setting-name { width: 24; text-style: bold; }
    .setting-row Input, .setting-row Select { width: 24; }
    .setting-row Switch { height: 1; border: none; padding: 0; width: auto; }
    .setting-about { color: $text-muted; padding-left: 24; }
    .setting-about.error { color: $text-error; }
    .setting-state { width: auto; margin-left: 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.open_mode('home')", "Back"),
    ]

    def __init__(self, settings: Settings, path: Path, themes: list[str],
                 workload: Callable[[float], str] | None = None) -> None:
        super().__init__()
        self.settings = settings
        self.path = path
        self.themes = themes
        self.workload = workload

    def compose(self) -> ComposeResult:
        yield TitleBar("Settings")
        with VerticalScroll(id="settings-scroll"):
            yield Static(about_text(self.path), id="settings-about")
            for name, label in LABELS.items():
                with Horizontal(classes="setting-row"):
                    yield Static(label, classes="setting-name")
                    yield self._control(name)
                    if isinstance(getattr(self.settings, name), bool):
                        yield Static(self._on_off(getattr(self.settings, name)),
                                     id=f"state-{name}", classes="setting-state")
                yield Static(self._about(name), id=f"about-{name}", classes="setting-about")
        yield Footer()

    def _control(self, name: str) -> Input | Select[str] | Switch:
        value: Any = getattr(self.settings, name)
        control_id = f"set-{name}"
        if name == "theme":
            themes = sorted({*self.themes, value})
            return Select([(theme, theme) for theme in themes], value=value,
                          allow_blank=False, compact=True, id=control_id)
        if isinstance(value, bool):
            return Switch(value, animate=False, id=control_id)
        if isinstance(value, int):
            return Input(str(value), type="integer", compact=True, select_on_focus=False,
                         id=control_id)
        return Input(f"{value:g}", type="number", compact=True, select_on_focus=False,
                     id=control_id)

    @staticmethod
    def _on_off(value: bool) -> str:
        return "on" if value else "off"

    def _about(self, name: str) -> str:
        from questions.fielddocs import field_doc
        from quiz.core.settings import Settings

        description = field_doc(Settings, name) or ""
        span = _range_text(name) if name != "theme" else ""
        return escape(description + (f" From {span}." if span else ""))

    def on_mount(self) -> None:
        self.query_one("#set-theme", Select).focus()

    # ------------------------------------------------------------ changes

    def _apply(self, name: str, value: object, *, save: bool = True) -> None:
        """Check ``value`` with the settings model; apply and save it (or, without
        ``save``, show its workload), or say why not."""
        from pydantic import ValidationError

        from quiz.core.settings import Settings

        about = self.query_one(f"#about-{name}", Static)
        if getattr(self.settings, name) == value and type(value) is type(
                getattr(self.settings, name)):
            about.update(self._about(name))
            about.remove_class("error")
            return
        try:
            Settings.model_validate({**self.settings.model_dump(), name: value})
        except ValidationError as exc:
            low, high = bounds(name)
            if low is not None and high is not None:
                what = "a whole number" if isinstance(self.settings.model_dump()[name],
                                                      int) else "a number"
                reason = f"give {what} from {low:g} to {high:g}"
            else:
                reason = exc.errors()[0]["msg"]
            about.update(escape(f"Not saved: {reason}."))
            about.add_class("error")
            return
        about.update(self._about(name))
        about.remove_class("error")
        if not save:
            assert isinstance(value, float)
            about.update(escape(f"{value:g}: forecasting the workload… Enter saves it."))
            self._forecast(value)
            return
        self.post_message(SettingChanged(name, value))

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        name = (event.input.id or "").removeprefix("set-")
        if name not in LABELS:
            return
        text = event.value.strip()
        number: object
        try:
            number = int(text) if event.input.type == "integer" else float(text)
        except ValueError:
            number = text  # the model rejects it with its own words
        self._apply(name, number, save=name != "desired_retention")

    @on(Input.Submitted, "#set-desired_retention")
    def _retention_submitted(self, event: Input.Submitted) -> None:
        try:
            value: object = float(event.value.strip())
        except ValueError:
            value = event.value.strip()
        before = self.settings.desired_retention
        self._apply("desired_retention", value)
        if self.settings.desired_retention != before:
            self.notify(f"Desired retention {self.settings.desired_retention:g} saved: "
                        "the next reviews use it.", timeout=4)

    @work(thread=True, exclusive=True, group="workload", exit_on_error=False)
    def _forecast(self, retention: float) -> None:
        if self.workload is None:
            text = f"{retention:g}: Enter saves it."
        else:
            try:
                text = f"{self.workload(retention)} Enter saves it."
            except Exception as exc:  # a forecast that fails still lets the value be saved
                text = f"{retention:g}: no forecast ({exc}). Enter saves it."
        self.post_message(WorkloadForecast(retention, text))

    @on(WorkloadForecast)
    @while_shown
    def _forecast_shown(self, event: WorkloadForecast) -> None:
        control = self.query_one("#set-desired_retention", Input)
        try:
            current = float(control.value.strip())
        except ValueError:
            return
        if current == event.retention:  # not a forecast of a value typed over since
            self.query_one("#about-desired_retention", Static).update(escape(event.text))

    @on(Switch.Changed)
    def _switched(self, event: Switch.Changed) -> None:
        name = (event.switch.id or "").removeprefix("set-")
        self.query_one(f"#state-{name}", Static).update(self._on_off(event.value))
        self._apply(name, event.value)

    @on(Select.Changed, "#set-theme")
    def _theme_picked(self, event: Select.Changed) -> None:
        if isinstance(event.value, str):
            self._apply("theme", event.value)
