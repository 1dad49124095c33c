"""A GPU's "80 GB" is 80e9 bytes in the solver, though the chip holds 80 GiB (issue 9):
every prompt that shows the memory says which, and no yes/no verdict hangs on it."""

from __future__ import annotations

import pytest

from questions.catalog import load_bank
from questions.variants import hbm_text, make_variant, pv_env_value

BANK = load_bank(bundled=True)
GIB_PER_GB = 2**30 / 1e9


def test_the_memory_is_shown_with_its_convention() -> None:
    assert hbm_text(80e9) == "80 GB (80 x 10^9 bytes)"
    assert hbm_text(141e9) == "141 GB (141 x 10^9 bytes)"


def test_every_prompt_showing_a_gpus_memory_names_the_convention() -> None:
    shown = 0
    for t in BANK.templates.values():
        texts = [t.intro, *(p.prompt for p in t.all_parts())]
        if not any("{hbm_bytes}" in text for text in texts):
            continue
        v = make_variant(t, 0)
        rendered = "\n".join([v.intro, *(p.prompt for p in v.parts)])
        assert "x 10^9 bytes)" in rendered, t.id
        shown += 1
    assert shown >= 10


@pytest.mark.parametrize(("tid", "quantity", "share"), [
    ("memory/does-it-fit", "memory_per_gpu", 1.0),
    ("inference/quantized-fits-one-gpu", "serve_weight_bytes", 0.9),
])
def test_a_fits_verdict_is_the_same_whether_gb_means_1e9_or_2_to_the_30(
        tid: str, quantity: str, share: float) -> None:
    t = BANK.get(tid)
    for seed in range(60):
        pv = make_variant(t, seed).parts[0]
        need, hbm = pv_env_value(pv, quantity), pv_env_value(pv, "hbm_bytes")
        assert (need <= share * hbm) == (need <= share * hbm * GIB_PER_GB), seed
