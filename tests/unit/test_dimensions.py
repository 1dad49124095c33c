"""Dimensions of template expressions, as the loader checks them against the unit."""

from __future__ import annotations

import pytest

from questions.dimensions import DimensionError, dim_of_unit, expr_dim, show_dim

UNITS = {"kv_cache_bytes": "B", "hbm_bytes": "B", "hbm_bw": "B/s", "peak_flops": "FLOP/s",
         "params": "param", "train_time": "s", "tokens": "1"}


@pytest.mark.parametrize(("text", "unit"), [
    ("kv_cache_bytes / hbm_bw", "s"),
    ("kv_cache_bytes / hbm_bytes", "1"),
    ("hbm_bw / kv_cache_bytes", "1/s"),
    ("tokens / train_time", "tokens/s"),
    ("min(kv_cache_bytes, hbm_bytes) / hbm_bw", "s"),
    ("(kv_cache_bytes + hbm_bytes) / hbm_bw", "s"),
    ("peak_flops * train_time", "FLOP"),
])
def test_dimension_matches_unit(text: str, unit: str) -> None:
    assert expr_dim(text, UNITS) == dim_of_unit(unit)


def test_a_number_may_carry_a_unit_so_its_product_is_not_checked() -> None:
    assert expr_dim("6 * params * tokens", UNITS) is None
    assert expr_dim("free_param * hbm_bw", UNITS) is None


def test_sums_of_different_dimensions_are_refused() -> None:
    with pytest.raises(DimensionError, match="adds s and B"):
        expr_dim("kv_cache_bytes / hbm_bw + hbm_bytes", UNITS)
    with pytest.raises(DimensionError, match="compares B with s"):
        expr_dim("kv_cache_bytes <= train_time", UNITS)


def test_units_show_as_written() -> None:
    assert show_dim(dim_of_unit("B/s")) == "B/s"
    assert show_dim(dim_of_unit("requests")) == "1"
    assert show_dim(dim_of_unit("1/s")) == "1/s"
    with pytest.raises(ValueError, match="unknown unit"):
        dim_of_unit("furlongs")
