"""Hostile sizes given to `quiz layout` (issue 26, item 5): a batch of 10^15 sequences,
a large prime, a GPU count with hundreds of divisors, sizes past the engine's bounds.
Each answers or ends in one line and exit 2, never a long search."""

from __future__ import annotations

import pytest
from helpers import cpu_guard, run_cli

from solver.layouts import MAX_FACTORED, divisors, factorize
from solver.perf import MAX_GLOBAL_BATCH, MAX_GPUS

BASE = ["layout", "--model", "llama3-8b", "--gpu", "h100", "--set", "seq=8192"]


@pytest.mark.parametrize("n", [10**15, 999_999_999_999_989, 2**61 - 1,
                               (2**31 - 1) * (2**31 - 19), 720_720, 1, 2**62])
def test_divisors_come_from_prime_factors(n: int) -> None:
    with cpu_guard(5.0):
        found = divisors(n)
    assert found[0] == 1 and found[-1] == n
    assert all(n % d == 0 for d in found)
    product = 1
    for p, k in factorize(n).items():
        product *= p**k
    assert product == n


@pytest.mark.parametrize("n", [0, -4, MAX_FACTORED + 1])
def test_factoring_refuses_what_it_does_not_take(n: int) -> None:
    with pytest.raises(ValueError, match="range"):
        factorize(n)


@pytest.mark.parametrize("sets", [
    ["gpus=64", "global_batch=1e15"],
    ["gpus=64", "global_batch=999999999999989"],
    ["gpus=720720", "global_batch=1440"],
    ["gpus=16384", "global_batch=2e15"],
])
def test_huge_batches_and_gpu_counts_answer_quickly(
        capsys: pytest.CaptureFixture[str], sets: list[str]) -> None:
    args = [*BASE]
    for s in sets:
        args += ["--set", s]
    with cpu_guard(20.0):
        code, out, err = run_cli(capsys, *args, "--top", "2")
    assert code in (0, 2)
    if code == 2:
        assert out == "" and len(err.strip().splitlines()) == 1
    else:
        assert "fastest layouts" in out


@pytest.mark.parametrize("key, value, words", [
    ("gpus", str(MAX_GPUS * 2), "at most"),
    ("global_batch", "1e17", "at most"),
])
def test_sizes_past_the_bounds_are_one_line(capsys: pytest.CaptureFixture[str], key: str,
                                            value: str, words: str) -> None:
    with cpu_guard(10.0):
        sets = {"gpus": "64", "global_batch": "64", key: value}
        code, out, err = run_cli(capsys, *BASE,
                                 *[a for k, v in sets.items() for a in ("--set", f"{k}={v}")])
    assert code == 2 and out == "" and words in err
    assert len(err.strip().splitlines()) == 1
    assert MAX_GLOBAL_BATCH < 1e17


@pytest.mark.parametrize("text", [
    "tp=" + "9" * 150, "x" * 201, "tensor " * 28 + "parallel", "8-way " * 30,
    "tp=8\x00pp=2", "tp=8 pp=２", "__import__('os')", "tp=8 recompute=" + "f" * 40,
    "fsdp fsdp fsdp=64 fsdp=32", "no no no tp", "zero-9", "tp=-8", "1e9-way tensor parallel",
    "interleaved 99999999", "tp=8 " * 40,
])
def test_hostile_layout_phrasings_are_refused_in_one_line(text: str) -> None:
    from questions.layout import LayoutError, read_layout

    with cpu_guard(2.0):
        try:
            lay = read_layout(text)
        except LayoutError as exc:
            assert "\n" not in str(exc) and len(str(exc)) < 200
        else:   # read: every degree is a small whole number
            assert all(1 <= v <= 999_999 for v in (lay.tp, lay.pp, lay.cp, lay.ep, lay.mb))
