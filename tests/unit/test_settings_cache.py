"""The validated-settings cache (quiz.core.settings_cache): what the settings model made
of a file, read back before pydantic is imported, and never anything else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quiz.core import settings_cache
from quiz.core.settings import Settings, load_settings, save_settings
from quiz.core.settings_cache import DailyLimits, cached_limits


def paths(tmp_path: Path) -> tuple[Path, Path]:
    return tmp_path / "config.toml", tmp_path / "cache" / "settings.json"


def limits_of(s: Settings) -> DailyLimits:
    return DailyLimits(s.new_per_day, s.reviews_per_day)


def test_nothing_is_cached_before_the_model_has_read_the_file(tmp_path: Path) -> None:
    config, cache = paths(tmp_path)
    config.write_text("new_per_day = 3\n")
    assert cached_limits(config, cache) is None


def test_a_file_the_model_read_is_read_back_without_it(tmp_path: Path) -> None:
    config, cache = paths(tmp_path)
    config.write_text("new_per_day = 3\nreviews_per_day = 40\n")
    load_settings(config, cache)
    assert cached_limits(config, cache) == DailyLimits(3, 40)


def test_no_file_caches_the_defaults(tmp_path: Path) -> None:
    config, cache = paths(tmp_path)
    load_settings(config, cache)
    assert cached_limits(config, cache) == limits_of(Settings())
    config.write_text("new_per_day = 4\n")  # a file appears: another key
    assert cached_limits(config, cache) is None


def test_an_edited_file_is_a_miss_until_the_model_reads_it(tmp_path: Path) -> None:
    config, cache = paths(tmp_path)
    config.write_text("new_per_day = 3\n")
    load_settings(config, cache)
    config.write_text("new_per_day = 5\n")
    assert cached_limits(config, cache) is None
    load_settings(config, cache)
    assert cached_limits(config, cache) == DailyLimits(5, 100)


def test_a_changed_model_is_a_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config, cache = paths(tmp_path)
    config.write_text("new_per_day = 3\n")
    load_settings(config, cache)
    changed = tmp_path / "settings.py"
    changed.write_bytes(settings_cache.MODEL_SOURCE.read_bytes() + b"\n# le=5 now\n")
    monkeypatch.setattr(settings_cache, "MODEL_SOURCE", changed)
    assert cached_limits(config, cache) is None


def test_the_key_covers_the_model_that_validates() -> None:
    import quiz.core.settings

    assert Path(quiz.core.settings.__file__) == settings_cache.MODEL_SOURCE


@pytest.mark.parametrize("tamper", [
    lambda d: d["values"].update(new_per_day="3"),
    lambda d: d["values"].update(new_per_day=True),
    lambda d: d["values"].update(reviews_per_day=2.5),
    lambda d: d["values"].pop("reviews_per_day"),
    lambda d: d.update(values=[1, 2]),
    lambda d: d.update(format=0),
    lambda d: d.update(key="0" * 64),
])
def test_a_tampered_cache_is_a_miss(tmp_path: Path, tamper: object) -> None:
    config, cache = paths(tmp_path)
    config.write_text("new_per_day = 3\n")
    load_settings(config, cache)
    data = json.loads(cache.read_text())
    assert callable(tamper)
    tamper(data)
    cache.write_text(json.dumps(data))
    assert cached_limits(config, cache) is None


@pytest.mark.parametrize("text", ["", "{", "[]", "null", "[" * 100_000])
def test_an_unreadable_cache_is_a_miss(tmp_path: Path, text: str) -> None:
    config, cache = paths(tmp_path)
    cache.parent.mkdir()
    cache.write_text(text)
    assert cached_limits(config, cache) is None


def test_an_unreadable_settings_file_is_never_cached(tmp_path: Path) -> None:
    config, cache = paths(tmp_path)
    config.write_bytes(b"new_per_day = 3\n\xff\n")  # not UTF-8: defaults and a warning
    _, warnings = load_settings(config, cache)
    assert warnings
    assert not cache.exists()
    assert cached_limits(config, cache) is None


def test_a_cache_that_cannot_be_written_is_no_error(tmp_path: Path) -> None:
    config, _ = paths(tmp_path)
    blocked = tmp_path / "file"
    blocked.write_text("")  # a file where the cache folder should be
    config.write_text("new_per_day = 3\n")
    assert load_settings(config, blocked / "settings.json")[0].new_per_day == 3


def test_an_unchanged_result_is_not_written_again(tmp_path: Path) -> None:
    config, cache = paths(tmp_path)
    config.write_text("new_per_day = 3\n")
    load_settings(config, cache)
    before = cache.stat().st_mtime_ns
    cache.chmod(0o444)
    try:
        load_settings(config, cache)
    finally:
        cache.chmod(0o644)
    assert cache.stat().st_mtime_ns == before
    assert sorted(p.name for p in cache.parent.iterdir()) == ["settings.json"]  # no tmp left


def test_saving_caches_what_the_saved_file_will_load_as(tmp_path: Path) -> None:
    config, cache = paths(tmp_path)
    # What is cached is what the next start reads from the file written, whatever
    # save_settings kept of the user's text (here a table it must not break).
    config.write_text("new_per_day = 3\n\n[extra]\nx = 1\n")
    s, _ = load_settings(config)
    s.new_per_day = 7
    s.reviews_per_day = 55
    save_settings(s, config, cache)
    assert cached_limits(config, cache) == limits_of(load_settings(config)[0])
    assert cached_limits(config, cache) == DailyLimits(7, 55)


VALUES = st.one_of(st.integers(-5, 200_000), st.booleans(), st.floats(allow_nan=True),
                   st.text(max_size=5), st.lists(st.integers(), max_size=2))
LINES = st.lists(st.tuples(st.sampled_from(["new_per_day", "reviews_per_day", "theme",
                                            "tolerance_scale", "unknown", "mock_minutes"]),
                           VALUES), max_size=6)


def toml_value(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)  # inf, -inf and nan are TOML too
    return json.dumps(v)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=LINES)
def test_the_cache_agrees_with_the_model_on_any_file(tmp_path: Path,
                                                     lines: list[tuple[str, object]]) -> None:
    config, cache = paths(tmp_path)
    config.write_text("".join(f"{k} = {toml_value(v)}\n" for k, v in lines))
    loaded, _ = load_settings(config, cache)
    assert cached_limits(config, cache) == limits_of(loaded)
