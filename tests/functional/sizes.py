"""Both snapshot sizes from one app run.

A snapshot test used to start the app once per terminal size (80x24 and 120x40): two
Textual starts, two bank loads, the same key presses twice. :func:`snap_both_sizes`
starts it once at 80x24, takes the screenshot, resizes the terminal to 120x40 (what a
person does when they widen the window) and takes it again, then compares each with the
snapshot file a test parametrized by size used (``test_x[80x24].svg``,
``test_x[120x40].svg``: the same files, byte for byte). Every snapshot test's screen
widened from 80x24 draws what a fresh start at 120x40 draws (checked against the stored
files when this came in; the other way round, four did not: a scroll position and a
layout kept from the larger size). A future screen that keeps something from the first
size can take ``snap_compare`` with a ``size`` parameter instead.

The screenshots are taken as ``pytest-textual-snapshot``'s ``snap_compare`` takes them
(``textual._doc.take_svg_screenshot``: the same pauses and waits before
``export_screenshot``) and compared through its SVG extension, so ``--snapshot-update``
writes the files as before, and each size's result goes to the plugin's HTML report
(``snapshot_report.html``) as ``snap_compare`` puts it there, the size added to the name.
"""

from __future__ import annotations

import inspect
import pickle
from collections.abc import Awaitable, Callable
from typing import Any

from pytest_textual_snapshot import (  # type: ignore[import-untyped]
    PseudoApp,
    PseudoConsole,
    SVGImageExtension,
    node_to_report_path,
)
from rich.console import Console
from syrupy.assertion import SnapshotAssertion
from textual.app import App
from textual.pilot import Pilot

FIRST = (80, 24)
THEN = (120, 40)


def _name(size: tuple[int, int]) -> str:
    return f"{size[0]}x{size[1]}"


async def _screenshot(pilot: Pilot[Any]) -> str:
    """``take_svg_screenshot``'s waits (no presses, no hover), then the SVG."""
    app = pilot.app
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()
    return app.export_screenshot(title=app.title, simplify=True)


def snap_both_sizes(snapshot: SnapshotAssertion, app: App[Any],
                    before: Callable[[Pilot[Any]], Awaitable[None]]) -> None:
    """Run ``before`` in ``app`` at 80x24, screenshot, resize to 120x40, screenshot; each
    must equal its stored snapshot (named as a ``size``-parametrized test's)."""
    shots: dict[tuple[int, int], str] = {}

    async def auto_pilot(pilot: Pilot[Any]) -> None:
        await before(pilot)
        shots[FIRST] = await _screenshot(pilot)
        await pilot.resize_terminal(*THEN)
        shots[THEN] = await _screenshot(pilot)
        pilot.app.exit()

    app.run(headless=True, auto_pilot=auto_pilot, size=FIRST)
    assert set(shots) == {FIRST, THEN}, "the app ended before both screenshots"
    svg = snapshot.use_extension(SVGImageExtension)
    # Both compared before either assertion fails, so --snapshot-update writes both.
    same = {size: _compare(svg, size, shots[size]) for size in (FIRST, THEN)}
    for size, equal in same.items():
        assert equal, (f"the {_name(size)} screenshot differs from its snapshot "
                       f"(__snapshots__/<module>/<test>[{_name(size)}].svg; the diff is in "
                       "snapshot_report.html)")


def _compare(svg: SnapshotAssertion, size: tuple[int, int], actual: str) -> bool:
    """Compare one size, and leave its result where the plugin's report reads it
    (``snap_compare``'s record, one file per size)."""
    named = svg(name=_name(size))
    equal: bool = named == actual
    index = (named._custom_index and named._execution_name_index.get(named._custom_index)
             ) or named.num_executions - 1
    result = named.executions.get(index)
    exists = index in named.executions and result is not None \
        and result.final_data is not None
    node = svg.test_location.item
    console = Console(legacy_windows=False, force_terminal=True)
    full_path, line_number, name = node.reportinfo()
    record = (equal, str(named), actual,
              PseudoApp(PseudoConsole(console.legacy_windows, console.size)), full_path,
              line_number, f"{name}[{_name(size)}]",
              inspect.getdoc(getattr(node, "function", None)) or "", "", exists)
    path = node_to_report_path(node)
    path.with_name(f"{path.name}_{_name(size)}").write_bytes(pickle.dumps(record))
    return equal
