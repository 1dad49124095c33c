"""The derivation's lines, made directly, are what Rich's layout of them was (issue 15).

``quiz.tui.widgets.derivation`` once rendered a worked solution as a Rich ``Group`` of
``Padding(Text(block), (gap, 0, 0, indent))``, which cost 6-12 ms of an Enter on a long
one; it now wraps each block with Rich's ``Text.wrap`` and pads the lines itself. These
tests hold the two to the same cells (characters and styles), line for line, for any
blocks at any width.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Group
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style as RichStyle
from rich.text import Text
from textual.app import App
from textual.strip import Strip

from quiz.tui.data import Block
from quiz.tui.widgets import derivation

KINDS = sorted(derivation._LAYOUT)
STYLES = {f"derivation--{kind}": style for kind, style in zip(KINDS, [
    RichStyle(bold=True, color="red"), RichStyle(color="grey50"), RichStyle.null(),
    RichStyle(italic=True, color="green"), RichStyle(bold=True), RichStyle(), RichStyle(
        underline=True)], strict=False)}
BASE = RichStyle(color="white", bgcolor="black")
APP = App[None]()


class _Widget:
    """What the lines read of their widget: the app (console) and its style."""

    app = APP

    class visual_style:  # stands in for the widget attribute
        rich_style = BASE


def rich_lines(blocks: list[Block], width: int) -> list[Strip]:
    """The lines as the widget made them before: Rich's Group of Paddings, on the
    widget's style, split as Textual's RichVisual split them."""
    parts = []
    for block in blocks:
        gap, indent = derivation._LAYOUT[block.kind]
        text = Text(block.text, style=STYLES.get(f"derivation--{block.kind}", ""))
        parts.append(Padding(text, (int(gap), 0, 0, indent)))
    options = APP.console_options.update(highlight=False, width=width)
    segments = [Segment(t, BASE + s, None)
                for t, s, _ in APP.console.render(Group(*parts), options.update_width(width))]
    return [Strip(line) for line in Segment.split_and_crop_lines(
        segments, width, include_new_lines=False, pad=False)]


def cells(strip: Strip) -> list[tuple[str, RichStyle | None]]:
    return [(char, segment.style) for segment in strip for char in segment.text]


def made(blocks: list[Block], width: int) -> list[Strip]:
    lines = derivation._Lines(_Widget(), blocks, STYLES)  # type: ignore[arg-type]
    assert lines.get_height(None, width) == len(lines.lines(width, BASE))  # type: ignore[arg-type]
    return lines.lines(width, BASE)


WORDS = st.text(st.sampled_from("ab xyz·×=—é漢 \n-/()"), max_size=40) | st.sampled_from([
    "", " ", "supercalifragilisticexpialidocious" * 3, "memory_per_gpu = 1.13 TB",
    "  = 7.055e10 × 16\n  = 1.13 TB"])
BLOCKS = st.lists(st.builds(Block, st.sampled_from(KINDS),
                            st.lists(WORDS, max_size=6).map(" ".join)), max_size=8)


@settings(max_examples=150, deadline=None)
@given(blocks=BLOCKS, width=st.integers(min_value=6, max_value=130))
def test_lines_are_cell_for_cell_what_rich_made(blocks: list[Block], width: int) -> None:
    ours, rich = made(blocks, width), rich_lines(blocks, width)
    assert [cells(s) for s in ours] == [cells(s) for s in rich]


@settings(max_examples=30, deadline=None)
@given(blocks=BLOCKS, width=st.integers(min_value=1, max_value=5))
def test_a_width_under_the_indent_still_gives_lines_of_that_width(
        blocks: list[Block], width: int) -> None:
    # (Rich's own layout raised or gave nothing here: its width went below zero.)
    assert all(s.cell_length == width for s in made(blocks, width))


def test_a_worked_solution_of_the_bank_is_laid_out_as_before() -> None:
    blocks = [Block("title", "Worked solution"),
              Block("text", "Per parameter: the working weight, its gradient, the FP32 "
                            "master copy and the optimizer's state, in bytes each."),
              Block("step", "1. Model state = bytes per parameter x parameters, for the "
                            "whole model."),
              Block("math", "model_state_bytes = params·bytes_per_param\n  = 7.055e10 × 16"
                            "\n  = 1.13 TB"),
              Block("answer", "Answer: 1.13 TB (1.03 TiB)")]
    for width in (20, 76, 114):
        assert [cells(s) for s in made(blocks, width)] == \
            [cells(s) for s in rich_lines(blocks, width)]
