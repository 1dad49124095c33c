"""The compiled bank cache: a file is compiled again only when it changes, a cached
template is the template, and a broken or missing cache costs time, never correctness."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import questions.loader as loader
from questions.catalog import build
from questions.loader import bank_files, bundled_files, load_bank

TEMPLATE = '''schema = 1
id = "mine/{name}"
version = 1
title = "{title}"
topic = "memory"
difficulty = 1
prompt = "Model state of {{model}}?"
[params.model]
choices = ["llama3-8b"]
[answer]
quantity = "model_state_bytes"
'''


def write(folder: Path, name: str, title: str = "Mine") -> Path:
    path = folder / f"{name}.toml"
    path.write_text(TEMPLATE.format(name=name, title=title), encoding="utf-8")
    return path


@pytest.fixture
def compiled(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files compiled (parsed and checked) from now on."""
    seen: list[str] = []
    real = loader.load_template

    def counting(path: Path):  # type: ignore[no-untyped-def]
        seen.append(str(path))
        return real(path)

    monkeypatch.setattr(loader, "load_template", counting)
    return seen


def test_every_bundled_template_comes_back_from_the_cache_unchanged(tmp_path: Path) -> None:
    cache = tmp_path / "bank.db"
    fresh = load_bank(cache=cache)
    cached = load_bank(cache=cache)
    assert cached.templates == fresh.templates
    assert cached.sources == fresh.sources
    assert load_bank().templates == fresh.templates


def test_a_warm_cache_compiles_no_file(tmp_path: Path, compiled: list[str]) -> None:
    cache = tmp_path / "bank.db"
    files = bank_files().files
    build(files, cache)
    assert len(compiled) == len(files)
    compiled.clear()
    again = build(files, cache)
    assert compiled == []
    assert len(again.entries) == len(files)


def test_only_the_changed_file_is_compiled_again(tmp_path: Path, compiled: list[str]) -> None:
    folder, cache = tmp_path / "mine", tmp_path / "bank.db"
    folder.mkdir()
    a, _ = write(folder, "a", "First"), write(folder, "b")
    build([a, folder / "b.toml"], cache)
    compiled.clear()
    write(folder, "a", "Second title")
    catalog = build([a, folder / "b.toml"], cache)
    assert compiled == [str(a)]
    assert catalog.entries["mine/a"].title == "Second title"
    assert catalog.templates(["mine/a"])["mine/a"].title == "Second title"


def test_ask_validates_only_the_template_it_draws(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from questions.schema import Template

    cache = tmp_path / "bank.db"
    load_bank(cache=cache)
    validated: list[object] = []
    real = Template.model_validate

    def counting(data: object, *args: object, **kw: object) -> Template:
        validated.append(data)
        return real(data, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(Template, "model_validate", counting)
    bank = load_bank(cache=cache, only=["memory/model-state"])
    assert list(bank.templates) == ["memory/model-state"]
    assert len(validated) == 1
    assert len(bank.sources) == len(bundled_files())
    with pytest.raises(LookupError, match="did you mean memory/model-state"):
        bank.get("memory/model-stat")


def test_problems_and_duplicates_are_reported_from_a_warm_cache_too(tmp_path: Path) -> None:
    folder, cache = tmp_path / "mine", tmp_path / "bank.db"
    folder.mkdir()
    write(folder, "a")
    (folder / "broken.toml").write_text('id = "mine/broken"\nversion = "x"\n')
    (folder / "copy.toml").write_text(TEMPLATE.format(name="a", title="Copy"))
    first = load_bank([folder], cache=cache)
    second = load_bank([folder], cache=cache)
    assert [str(p) for p in second.problems] == [str(p) for p in first.problems]
    assert any("duplicate id 'mine/a'" in str(p) for p in second.problems)
    assert any("broken.toml" in str(p) for p in second.problems)
    assert second.templates["mine/a"].title == "Mine"


def test_a_damaged_cache_is_rebuilt(tmp_path: Path) -> None:
    cache = tmp_path / "bank.db"
    cache.write_bytes(b"not a database at all" * 100)
    bank = load_bank(cache=cache)
    assert len(bank.templates) == len(bundled_files())
    assert load_bank(cache=cache).templates == bank.templates


def test_an_unwritable_cache_folder_only_costs_time(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    bank = load_bank(cache=blocker / "cache" / "bank.db")  # its folder cannot exist
    assert len(bank.templates) == len(bundled_files())


def test_a_file_removed_since_it_was_cached_is_gone(tmp_path: Path) -> None:
    folder, cache = tmp_path / "mine", tmp_path / "bank.db"
    folder.mkdir()
    path = write(folder, "a")
    assert "mine/a" in load_bank([folder], bundled=False, cache=cache).templates
    os.remove(path)
    assert load_bank([folder], bundled=False, cache=cache).templates == {}
