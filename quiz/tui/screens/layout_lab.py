"""The layout lab: change each axis with a key and watch memory and step time move.

A thin view over :class:`quiz.core.layout_lab.Lab`. Loading a model (parameter counts
from the solver, then the search for the best layout) runs in a worker thread; each
key press after that re-evaluates the layout with plain arithmetic and redraws.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.markup import escape
from textual.screen import Screen
from textual.widgets import Static

from quiz.core.layout_lab import Lab, Setup, segments
from quiz.tui.messages import LabLoaded, while_shown
from quiz.tui.widgets.title_bar import TitleBar

if TYPE_CHECKING:
    from solver.layouts import Ranking
    from solver.perf import Evaluation, Layout, Workload

_MEMORY_COLORS = {"weights": "$primary", "gradients": "$secondary",
                  "optimizer": "$accent", "activations": "$warning", "logits": "$error",
                  "buffers": "$success"}
_TIME_COLORS = {"compute": "$primary", "recompute": "$secondary", "tp": "$accent",
                "cp": "$warning", "ep": "$error", "pp_send": "$success",
                "fsdp": "$warning-darken-2", "bubble": "$foreground-darken-3",
                "dp": "$accent-darken-2", "optimizer": "$secondary-darken-2"}
_KEYS = ("[b $text-accent]t/T[/] tp [b $text-accent]p/P[/] pp [b $text-accent]c/C[/] cp "
         "[b $text-accent]e/E[/] ep [b $text-accent]i/I[/] interleave "
         "[b $text-accent]u/U[/] micro-batch [b $text-accent]z[/] ZeRO "
         "[b $text-accent]r[/] recompute\n"
         "[b $text-accent]m[/] model [b $text-accent]g[/] GPU [b $text-accent]n/N[/] GPUs "
         "[b $text-accent]s/S[/] seq [b $text-accent]b/B[/] batch "
         "[b $text-accent]o[/] best [b $text-accent]Esc[/] back "
         "[b $text-accent]?[/] help")


def _bar(parts: dict[str, float], total: float, width: int,
         colors: dict[str, str]) -> str:
    cells = segments(parts, total, width)
    used = sum(n for _, n in cells)
    body = "".join(f"[{colors.get(name, '$primary')}]{'█' * n}[/]" for name, n in cells)
    return body + "[$text-muted]" + "░" * max(0, width - used) + "[/]"


def _legend(parts: dict[str, float], colors: dict[str, str], unit: str,
            names: dict[str, str]) -> str:
    from solver.units import format_value

    return "  ".join(f"[{colors.get(k, '$primary')}]■[/] {escape(names[k])} "
                     f"{format_value(v, unit)}" for k, v in parts.items() if v > 0)


class LayoutLabScreen(Screen[None]):
    """Pick a model, GPU, cluster and batch; lay it out one key at a time."""

    DEFAULT_CSS = """
    #lab-body { padding: 0 1; }
    #lab-setup { margin-top: 1; }
    #lab-layout { margin-top: 1; }
    #lab-memory { margin-top: 1; }
    #lab-time { margin-top: 1; }
    #lab-figures { margin-top: 1; }
    #lab-why { margin-top: 1; color: $text-warning; }
    #lab-best { margin-top: 1; color: $text-muted; }
    #lab-keys { dock: bottom; height: 2; padding: 0 1; background: $panel; color: $text-muted; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(k, f"axis('{axis}', {d})", show=False)
          for axis, (lo, hi) in {"tp": ("t", "T"), "pp": ("p", "P"), "cp": ("c", "C"),
                                 "ep": ("e", "E"), "interleave": ("i", "I"),
                                 "micro_batch": ("u", "U")}.items()
          for k, d in ((lo, -1), (hi, 1))),
        Binding("z", "axis('zero', 1)", "ZeRO", show=False),
        Binding("r", "axis('recompute', 1)", "recompute", show=False),
        *(Binding(k, f"setup('{field}', {d})", show=False)
          for field, (lo, hi) in {"gpus": ("n", "N"), "seq": ("s", "S"),
                                  "global_batch": ("b", "B")}.items()
          for k, d in ((lo, -1), (hi, 1))),
        Binding("m", "setup('model', 1)", "model", show=False),
        Binding("g", "setup('gpu', 1)", "GPU", show=False),
        Binding("o", "best", "best layout"),
        Binding("escape", "app.pop_screen", "back"),
    ]

    def __init__(self, setup: Setup | None = None, layout: Layout | None = None) -> None:
        super().__init__()
        self.lab = Lab(setup, layout)

    def compose(self) -> ComposeResult:
        yield TitleBar("Layout lab")
        with VerticalScroll(id="lab-body"):
            yield Static("", id="lab-setup")
            yield Static("", id="lab-layout")
            yield Static("", id="lab-memory")
            yield Static("", id="lab-time")
            yield Static("", id="lab-figures")
            yield Static("", id="lab-why")
            yield Static("", id="lab-best", classes="muted")
        yield Static(_KEYS, id="lab-keys")

    def on_mount(self) -> None:
        self.redraw()
        self.load(self.lab.setup)

    @work(thread=True, exclusive=True, group="lab-load")
    def load(self, setup: Setup) -> None:
        """Build the workload and search it (sympy the first time: off the event loop)."""
        from quiz.tui.messages import LabLoaded

        try:
            workload, ranking = _build(setup)
        except ValueError as exc:
            self.post_message(LabLoaded(setup, None, None, str(exc)))
            return
        self.post_message(LabLoaded(setup, workload, ranking, ""))

    @on(LabLoaded)
    @while_shown
    def _loaded(self, event: LabLoaded) -> None:
        if event.setup != self.lab.setup:
            return   # an older load finished after the user moved on
        if event.workload is None:
            self.lab.workload, self.lab.ranking, self.lab.error = None, None, event.error
        else:
            self.lab.error = ""
            self.lab.loaded(event.workload, event.ranking)
        self.redraw()

    def action_axis(self, axis: str, direction: int) -> None:
        """Step one layout axis and redraw (no symbolic work)."""
        self.lab.change(axis, direction)
        self.redraw()

    def action_setup(self, field: str, direction: int) -> None:
        """Change the model, GPU, cluster or batch; reload in a worker."""
        self.lab.setup = self.lab.change_setup(field, direction)
        self.lab.workload, self.lab.ranking = None, None
        self.redraw()
        self.load(self.lab.setup)

    def action_best(self) -> None:
        """Show the engine's best layout."""
        self.lab.best()
        self.redraw()

    def redraw(self) -> None:
        """Re-evaluate the layout and update every panel."""
        from solver.layouts import MEMORY_NAMES, TIME_NAMES, why
        from solver.units import format_value

        lab = self.lab
        self.query_one("#lab-setup", Static).update(
            f"[b]{escape(lab.setup.title)}[/]")
        self.query_one("#lab-layout", Static).update(
            f"Layout  [b $text-accent]{escape(lab.layout.key)}[/]")
        e = lab.evaluate()
        if isinstance(e, str):
            for name in ("memory", "time", "figures", "why", "best"):
                self.query_one(f"#lab-{name}", Static).update("")
            self.query_one("#lab-memory", Static).update(f"[$text-warning]{escape(e)}[/]")
            return
        width = max(20, min(70, self.size.width - 6))
        full = max(e.usable, e.memory_per_gpu)
        fit = ("[$text-success]fits[/]" if e.fits else
               f"[$text-error]over by {format_value(e.memory_per_gpu - e.usable, 'B')}[/]")
        self.query_one("#lab-memory", Static).update(
            f"Memory per GPU [b]{format_value(e.memory_per_gpu, 'B')}[/] of "
            f"{format_value(e.usable, 'B')} usable: {fit}\n"
            f"  {_bar(e.memory, full, width, _MEMORY_COLORS)}\n  "
            + _legend(e.memory, _MEMORY_COLORS, "B", MEMORY_NAMES))
        best = lab.ranking.best if lab.ranking else None
        top = max(e.step_time, best.step_time if best else 0.0)
        self.query_one("#lab-time", Static).update(
            f"Step time [b]{format_value(e.step_time, 's')}[/]\n"
            f"  {_bar(e.time, top, width, _TIME_COLORS)}\n  "
            + _legend(e.time, _TIME_COLORS, "s", TIME_NAMES))
        self.query_one("#lab-figures", Static).update(
            f"MFU [b]{e.mfu:.1%}[/]   HFU {e.hfu:.1%}   "
            f"[b]{e.tokens_per_s_per_gpu:,.0f}[/] tokens/s per GPU   "
            f"{e.microbatches} micro-batches per step")
        if lab.workload is not None:
            lines = why(lab.workload, e, best if e.fits else None)
            self.query_one("#lab-why", Static).update(escape("\n".join(lines)))
        if best is not None:
            ratio = best.step_time / e.step_time
            self.query_one("#lab-best", Static).update(
                f"Best found: {escape(best.layout.key)}, "
                f"{format_value(best.step_time, 's')} per step"
                + (f" (this layout runs at {ratio:.0%} of its speed)" if e.fits else ""))

    def current(self) -> Evaluation | str:
        """What the lab shows now (for tests)."""
        return self.lab.evaluate()


def _build(setup: Setup) -> tuple[Workload, Ranking]:
    from quiz.core.layout_lab import build

    return build(setup)
