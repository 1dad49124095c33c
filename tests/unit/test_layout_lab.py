"""The layout lab's headless state: one key press at a time, plain arithmetic."""

from __future__ import annotations

from functools import cache

from quiz.core.layout_lab import Lab, Setup, build, segments
from solver.layouts import Ranking
from solver.perf import Evaluation, Workload

SETUP = Setup("llama3-70b", "h100", 512, 8192, 1024)


@cache
def built() -> tuple[Workload, Ranking]:
    """The seed case's workload and ranking, searched once (when a test first asks, not
    while every test process collects the suite)."""
    return build(SETUP)


def loaded() -> Lab:
    lab = Lab(SETUP)
    lab.loaded(*built())
    return lab


def test_the_default_layout_is_the_seed_answer_and_fits() -> None:
    e = loaded().evaluate()
    assert isinstance(e, Evaluation) and e.fits
    assert (e.layout.tp, e.layout.dp) == (8, 64)


def test_raising_tp_past_a_node_moves_its_traffic_to_the_network() -> None:
    lab = loaded()
    lab.change("tp", +1)
    e = lab.evaluate()
    assert isinstance(e, Evaluation)
    assert e.layout.tp == 16 and e.layout.dp == 32 and e.tp_link == "network"


def test_dp_follows_the_other_axes() -> None:
    lab = loaded()
    lab.change("pp", +1)
    lab.change("cp", +1)
    assert lab.layout.pp * lab.layout.cp * lab.layout.tp * lab.layout.dp == 512


def test_an_illegal_layout_says_why_instead_of_failing() -> None:
    lab = loaded()
    lab.change("ep", +1)   # a dense model has no experts
    assert isinstance(lab.evaluate(), str)


def test_best_jumps_to_the_engines_key() -> None:
    lab = loaded()
    lab.change("tp", -1)
    lab.best()
    assert lab.layout == built()[1].best.layout


def test_setup_changes_cycle_presets_and_double_or_halve() -> None:
    lab = loaded()
    assert lab.change_setup("gpu", +1).gpu == "h200"
    assert lab.change_setup("gpus", -1).gpus == 256
    assert lab.change_setup("seq", +1).seq == 16384


def test_bar_segments_fill_in_proportion() -> None:
    cells = segments({"a": 10.0, "b": 30.0, "c": 0.0}, 80.0, 16)
    assert cells == [("a", 2), ("b", 6)]
