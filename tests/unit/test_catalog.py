"""The compiled bank cache: a file is compiled again only when it changes, a cached
template is the template, and a broken or missing cache costs time, never correctness."""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

import pytest
from helpers import spy
from hypothesis import given, settings
from hypothesis import strategies as st

import questions.loader as loader
from questions.catalog import Catalog, Entry, build, load_bank
from questions.loader import Bank, bank_files, bundled_files

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
    real = loader.parse_template

    def counting(text: str, name: str = "<template>"):  # type: ignore[no-untyped-def]
        seen.append(name)
        return real(text, name)

    monkeypatch.setattr(loader, "parse_template", counting)
    return seen


@pytest.fixture
def read(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The template files whose text is read from now on."""
    seen: list[str] = []
    real = loader.read_template_text

    def counting(path: Path) -> str:
        seen.append(str(path))
        return real(path)

    monkeypatch.setattr(loader, "read_template_text", counting)
    return seen


HOUR_AGO = time.time_ns() - 3600 * 10**9


def later(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on, the catalog's clock is an hour ahead."""
    import questions.catalog as catalog

    now = time.time_ns()
    monkeypatch.setattr(catalog, "_now", lambda: now + 3600 * 10**9)


def age(*paths: Path) -> None:
    """Date files an hour back, as files that were not just written are."""
    for path in paths:
        os.utime(path, ns=(HOUR_AGO, HOUR_AGO))


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
    validated = spy(monkeypatch, Template, "model_validate")
    bank = load_bank(cache=cache, only=["memory/model-state"])
    assert list(bank.templates) == ["memory/model-state"]
    assert validated == []  # listed, not yet read
    assert bank.get("memory/model-state").id == "memory/model-state"
    assert bank.get("memory/model-state") is bank.get("memory/model-state")
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


def test_a_cache_locked_by_another_process_is_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sqlite3

    from questions import catalog

    cache = tmp_path / "bank.db"
    bank = load_bank(cache=cache)
    inode = cache.stat().st_ino
    monkeypatch.setattr(catalog, "LOCK_WAIT_S", 0.05)
    other = sqlite3.connect(cache)
    try:
        other.execute("BEGIN EXCLUSIVE")  # another quiz writing it right now
        assert load_bank(cache=cache).templates == bank.templates  # done without it
        assert cache.stat().st_ino == inode  # and never deleted under the writer
    finally:
        other.rollback()
        other.close()
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


def test_a_cached_bank_validates_a_template_only_when_it_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 15: a bank of 6,500 templates took seconds of validation before the first
    question; the lists, plans and menus read the catalog's summaries instead."""
    from questions.schema import Template
    from quiz.core.drill import teaching_order
    from quiz.core.mock import mock_plan, spoken_templates
    from quiz.core.practice import matching

    cache = tmp_path / "bank.db"
    fresh = load_bank(cache=cache)
    validated = spy(monkeypatch, Template, "model_validate")
    bank = load_bank(cache=cache)
    assert len(bank.templates) == len(fresh.templates)
    assert list(bank.templates) == list(fresh.templates)
    assert "memory/model-state" in bank.templates and "no/such" not in bank.templates
    # What lists, plans and menus read comes from the catalog, not the templates.
    assert teaching_order(bank) == teaching_order(fresh)
    assert matching(bank, "memory") == matching(fresh, "memory")
    assert spoken_templates(bank) == spoken_templates(fresh)
    import random
    assert mock_plan(bank, 8, random.Random(3)) == mock_plan(fresh, 8, random.Random(3))
    for tid, summary in bank.summaries.items():
        t = fresh.templates[tid]
        assert (summary.id, summary.title, summary.topic, list(summary.tags),
                summary.difficulty, summary.kind) == (t.id, t.title, t.topic, t.tags,
                                                      t.difficulty, t.kind)
    assert validated == []
    assert bank.templates["memory/model-state"] == fresh.templates["memory/model-state"]
    assert len(validated) == 1
    with pytest.raises(KeyError):
        bank.templates["no/such"]
    assert bank.templates == fresh.templates  # every one validated, in one batch
    assert len(validated) == len(fresh.templates)


def test_a_file_edited_in_the_same_clock_tick_with_the_same_size_is_compiled_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compiled: list[str]) -> None:
    """On a file system that keeps times to the second (FAT, HFS+, some shares), a
    same-size edit within the second leaves the stamp as it was: the content decides."""
    import questions.catalog as catalog

    def coarse(path: Path | str) -> tuple[str, int]:
        st = os.stat(path)
        whole = st.st_mtime_ns // 10**9 * 10**9
        return f"{st.st_size}:{whole}", whole

    monkeypatch.setattr(catalog, "stamp", coarse)
    folder, cache = tmp_path / "mine", tmp_path / "bank.db"
    folder.mkdir()
    a = write(folder, "a", "First")
    second = os.stat(a).st_mtime_ns // 10**9 * 10**9
    os.utime(a, ns=(second, second))
    assert build([a], cache).entries["mine/a"].title == "First"
    write(folder, "a", "Other")  # the same size
    os.utime(a, ns=(second, second))
    compiled.clear()
    catalog_ = build([a], cache)
    assert compiled == [str(a)]
    assert catalog_.entries["mine/a"].title == "Other"
    assert catalog_.templates(["mine/a"])["mine/a"].title == "Other"
    assert build([a], cache).entries["mine/a"].title == "Other"


def test_a_same_size_edit_with_its_old_modification_time_is_seen(
        tmp_path: Path, compiled: list[str]) -> None:
    folder, cache = tmp_path / "mine", tmp_path / "bank.db"
    folder.mkdir()
    a = write(folder, "a", "First")
    age(a)
    build([a], cache)
    write(folder, "a", "Other")
    age(a)  # a tool that keeps times: the change time still moves
    compiled.clear()
    assert build([a], cache).entries["mine/a"].title == "Other"
    assert compiled == [str(a)]


def test_an_old_unchanged_file_is_not_even_read(tmp_path: Path, read: list[str]) -> None:
    folder, cache = tmp_path / "mine", tmp_path / "bank.db"
    folder.mkdir()
    files = [write(folder, name) for name in "abc"]
    age(*files)
    build(files, cache)
    read.clear()
    assert len(build(files, cache).entries) == 3
    assert read == []


def test_a_touched_file_is_read_again_but_not_compiled(
        tmp_path: Path, read: list[str], compiled: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    folder, cache = tmp_path / "mine", tmp_path / "bank.db"
    folder.mkdir()
    a, b = write(folder, "a"), write(folder, "b")
    age(a, b)
    build([a, b], cache)
    read.clear()
    compiled.clear()
    os.utime(a)  # touch: a new stamp, the same text
    assert len(build([a, b], cache).entries) == 2
    assert (read, compiled) == ([str(a)], [])
    later(monkeypatch)
    build([a, b], cache)  # a was touched just before that look: once more
    read.clear()
    build([a, b], cache)
    assert (read, compiled) == ([], [])  # the new stamp was kept


def test_a_just_written_file_is_checked_until_it_is_old_enough(
        tmp_path: Path, read: list[str], compiled: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    folder, cache = tmp_path / "mine", tmp_path / "bank.db"
    folder.mkdir()
    a = write(folder, "a")
    build([a], cache)
    read.clear()
    compiled.clear()
    build([a], cache)
    assert (read, compiled) == ([str(a)], [])  # racy: read, found the same, kept
    later(monkeypatch)
    build([a], cache)  # checked long after it was written: no longer racy
    read.clear()
    build([a], cache)
    assert (read, compiled) == ([], [])


def test_added_edited_broken_fixed_and_removed_files_show_at_once(tmp_path: Path) -> None:
    folder, cache = tmp_path / "mine", tmp_path / "bank.db"
    folder.mkdir()
    write(folder, "a")
    age(folder / "a.toml")

    def catalog() -> Catalog:
        return build(bank_files([folder], bundled=False, packs=[]), cache)

    assert catalog().ids == ["mine/a"]
    write(folder, "b", "Added")
    assert catalog().ids == ["mine/a", "mine/b"]
    assert catalog().entries["mine/b"].title == "Added"
    (folder / "b.toml").write_text(TEMPLATE.format(name="b", title="Broken").replace(
        "difficulty = 1", "difficulty = 7"), encoding="utf-8")
    broken = catalog()
    assert broken.ids == ["mine/a"]
    assert [(p.file, p.line, p.field) for p in broken.problems] == [
        (str(folder / "b.toml"), 6, "difficulty")]
    assert "less than or equal to 3" in broken.problems[0].reason
    assert [str(p) for p in catalog().problems] == [str(p) for p in broken.problems]
    write(folder, "b", "Fixed")
    fixed = catalog()
    assert fixed.entries["mine/b"].title == "Fixed" and fixed.problems == []
    os.remove(folder / "a.toml")
    assert catalog().ids == ["mine/b"]


def test_a_cache_of_the_older_layout_is_replaced(tmp_path: Path) -> None:
    import sqlite3

    cache = tmp_path / "bank.db"
    with sqlite3.connect(cache) as conn:
        conn.execute("CREATE TABLE files (path TEXT PRIMARY KEY, stamp TEXT NOT NULL)")
    conn.close()
    assert len(load_bank(cache=cache).templates) == len(bundled_files())
    assert len(load_bank(cache=cache).templates) == len(bundled_files())


def test_the_files_of_a_folder_that_is_gone_leave_the_cache(tmp_path: Path) -> None:
    import shutil
    import sqlite3

    kept, temporary, cache = tmp_path / "kept", tmp_path / "temporary", tmp_path / "bank.db"
    kept.mkdir()
    temporary.mkdir()
    a, b = write(kept, "a"), write(temporary, "b")
    build([a, b], cache)
    build([a], cache)  # b's folder is still there: kept for the next run that reads it

    def cached() -> set[str]:
        with contextlib.closing(sqlite3.connect(cache)) as conn:
            return {row[0] for table in ("entries", "compiled")
                    for row in conn.execute(f"SELECT path FROM {table}")}

    assert cached() == {str(a), str(b)}
    shutil.rmtree(temporary)
    assert build([a], cache).ids == ["mine/a"]
    assert cached() == {str(a)}


def reference_teaching_order(bank: Bank) -> list[str]:
    """teaching_order as it was before issue 15 (a scan of the list per pick)."""
    from quiz.core.drill import _rapid_fire_item

    templates = bank.summaries
    ranked = sorted(templates, key=lambda tid: (
        templates[tid].difficulty, _rapid_fire_item(templates[tid]),
        len(templates[tid].tags), tid))
    order: list[str] = []
    last_topic: str | None = None
    while ranked:
        level = templates[ranked[0]].difficulty
        pick = next((i for i, tid in enumerate(ranked)
                     if templates[tid].difficulty == level
                     and templates[tid].topic != last_topic), 0)
        tid = ranked.pop(pick)
        order.append(tid)
        last_topic = templates[tid].topic
    return order


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["memory", "compute", "moe"]), st.integers(1, 3),
                          st.lists(st.sampled_from(["rapid-fire-1", "rapid-fire-3", "x"]),
                                   max_size=2, unique=True)), max_size=40))
def test_teaching_order_is_the_same_order_without_the_scan(
        specs: list[tuple[str, int, list[str]]]) -> None:
    from quiz.core.drill import teaching_order

    bank = Bank(templates={}, listed={
        f"{topic}/t{i}": Entry(f"t{i}.toml", f"{topic}/t{i}", "T", topic, tuple(tags), level,
                               "number")
        for i, (topic, level, tags) in enumerate(specs)})
    assert teaching_order(bank) == reference_teaching_order(bank)


def test_the_bundled_teaching_order_is_unchanged() -> None:
    from quiz.core.drill import teaching_order

    bank = load_bank()
    assert teaching_order(bank) == reference_teaching_order(bank)


def _everything(catalog: Catalog, cache: Path) -> tuple[object, ...]:
    """What a build gives and leaves in its cache (the cached rows without their times)."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(cache)) as conn:
        rows = sorted(conn.execute("SELECT path, digest, id, title, topic, tags, difficulty, "
                                   "kind, problems FROM entries"))
        data = sorted(conn.execute("SELECT path, data FROM compiled"))
    return catalog.entries, [str(p) for p in catalog.problems], rows, data


def _many(folder: Path) -> list[Path]:
    """Templates to compile: good ones, a broken one, a duplicate id, a file that is not
    TOML."""
    folder.mkdir()
    files = [write(folder, f"t{i}", title=f"Mine {i}") for i in range(6)]
    broken = folder / "broken.toml"
    broken.write_text(TEMPLATE.format(name="broken", title="B").replace(
        "difficulty = 1", "difficulty = 9"), encoding="utf-8")
    twin = folder / "twin.toml"
    twin.write_text(files[0].read_text(), encoding="utf-8")
    junk = folder / "junk.toml"
    junk.write_text("id = [", encoding="utf-8")
    return sorted([*files, broken, twin, junk])


def _many_and_alone(tmp_path: Path,
                    monkeypatch: pytest.MonkeyPatch) -> tuple[list[Path], Catalog]:
    """:func:`_many`'s files and their catalog compiled in this process alone; then two
    idle cores and two files a process, so that the next build shares the work out."""
    import questions.bankpool as bankpool

    files = _many(tmp_path / "t")
    alone = build(files, tmp_path / "alone.db")
    monkeypatch.setattr(bankpool, "PER_PROCESS", 2)
    monkeypatch.setattr(bankpool, "_cores", lambda: 2)
    return files, alone


def test_many_changed_files_compile_in_processes_to_the_same_catalog(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import questions.bankpool as bankpool

    files, alone = _many_and_alone(tmp_path, monkeypatch)
    shares = spy(monkeypatch, bankpool, "_in_processes", pick=lambda shares, now: shares)
    spread = build(files, tmp_path / "spread.db")
    assert [len(share) for share in shares[0]] == [4]  # this process did the other 5
    assert len(spread._fresh) == 3  # t0, t2, t4: the rest came from the other process
    assert _everything(spread, tmp_path / "spread.db") == _everything(alone,
                                                                      tmp_path / "alone.db")
    assert spread.templates() == alone.templates()
    assert build(files, tmp_path / "spread.db").entries == alone.entries
    assert shares[1:] == []  # warm (or only touched): no process, nor a look for one


def test_a_process_that_cannot_start_leaves_the_work_to_this_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    files, alone = _many_and_alone(tmp_path, monkeypatch)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-python"))
    spread = build(files, tmp_path / "spread.db")
    assert len(spread._fresh) == 6  # the six good ones, all compiled here
    assert _everything(spread, tmp_path / "spread.db") == _everything(alone,
                                                                      tmp_path / "alone.db")


# ---------------------------------------------------------------- listing without compiling


def test_every_bundled_template_summarizes_as_it_compiles() -> None:
    from questions.loader import read_template_text
    from questions.summaries import summarize

    templates = load_bank(bundled=True).templates
    plain = 0
    for path in bundled_files():
        text = read_template_text(path)
        found = summarize(text)
        if found is None:
            continue
        plain += 1
        t = templates[found.id]
        assert found[1:] == (t.id, t.title, t.topic, tuple(t.tags), t.difficulty, t.kind,
                             None)
    assert plain == len(bundled_files())  # the bank is written plainly: none compiled


@pytest.mark.parametrize("text", [
    'id = "a/b"\ntitle = "A \\"quoted\\" title"\ntopic = "a"\n',  # an escape
    "id = 'a/b'\ntitle = \"T\"\ntopic = \"a\"\n",  # a literal string
    'id = "a/b"\ntitle = "T"\ntopic = "a"\ntags = [\n  "x",\n]\n',  # a multi-line array
    'id = "a/b"\ntitle = "T"\ntopic = "a"\n"difficulty" = 3\n',  # a quoted key
    'id = "a/b"\nid = "a/c"\ntitle = "T"\ntopic = "a"\n',  # a key given twice
    'id = "a/b"\ntitle = "T"\ntopic = "a"\nanswer_kind = "choice"\n[[parts]]\nprompt = "p"\n',
    'id = "a/b"\ntitle = "C# in a title"\ntopic = "a"\n',  # a # inside a string
    'title = "T"\ntopic = "a"\n',  # no id
    'id = "a/b"\ntitle = "T"\ntopic = "a"\nprompt = """\nunclosed\n',
])
def test_a_summary_that_is_not_plain_is_none(text: str) -> None:
    from questions.summaries import summarize

    assert summarize(text) is None


def test_a_summary_reads_past_multi_line_strings_and_into_the_first_part() -> None:
    from questions.summaries import summarize

    text = ('id = "a/b"\ntitle = "T" # a comment\ntopic = "a"\ndifficulty = 2\n'
            'intro = """\n[not a table]\nanswer_kind = "table"\n"""\n'
            '[[parts]]\nprompt = "p"\nanswer_kind = "choice"\n[parts.answer]\n'
            '[[parts]]\nanswer_kind = "formula"\n')
    found = summarize(text)
    assert found is not None and found[1:7] == ("a/b", "T", "a", (), 2, "choice")


def _folder_of(tmp_path: Path, count: int) -> list[Path]:
    folder = tmp_path / "t"
    folder.mkdir()
    return [write(folder, f"t{i}", f"Title {i}") for i in range(count)]


def test_many_changed_files_are_listed_from_their_summaries_without_compiling(
    tmp_path: Path, compiled: list[str],
) -> None:
    files = _folder_of(tmp_path, 5)
    (files[0].parent / "typo.toml").write_text(
        TEMPLATE.format(name="typo", title="Typo").replace("model_state_bytes",
                                                           "model_stat_bytes"))
    files = sorted(files[0].parent.glob("*.toml"))
    full = build(files)
    compiled.clear()
    cache = tmp_path / "bank.db"
    listed = build(files, cache, compile_up_to=2)
    assert compiled == []  # six changed files, more than two: summarized
    assert set(listed.entries) == set(full.entries) | {"mine/typo"}
    assert [listed.entries[tid][1:] for tid in full.entries] == \
        [full.entries[tid][1:] for tid in full.entries]
    assert not listed.problems  # the typo is found when the file is compiled:
    assert listed.templates(["mine/t1"]) == full.templates(["mine/t1"])
    assert compiled == [str(files[1])]
    again = build(files, cache, compile_up_to=2)  # a second listing: still summaries
    assert set(again.entries) == set(listed.entries) and len(compiled) == 1
    loaded = build(files, cache)  # loading the bank compiles every file
    assert len(compiled) == 7
    assert "mine/typo" not in loaded.entries
    assert any("model_stat_bytes" in p.reason for p in loaded.problems)
    assert loaded.entries == full.entries
    assert build(files, cache, compile_up_to=2).entries == full.entries and len(compiled) == 7


def test_a_few_changed_files_are_compiled_even_when_listing(
    tmp_path: Path, compiled: list[str],
) -> None:
    files = _folder_of(tmp_path, 2)
    build(files, tmp_path / "bank.db", compile_up_to=2)
    assert compiled == [str(f) for f in files]


def test_find_compiles_the_one_template_asked_for(tmp_path: Path, compiled: list[str]) -> None:
    from questions.catalog import find
    from questions.errors import UnknownTemplate
    from questions.loader import TemplateFileError

    files = _folder_of(tmp_path, 4)
    bad = files[0].parent / "bad.toml"
    bad.write_text(TEMPLATE.format(name="bad", title="Bad").replace("model_state_bytes",
                                                                    "nonsense"))
    cache = tmp_path / "bank.db"
    source = bank_files([files[0].parent], bundled=False, packs=[])
    found = find(source, "mine/t2", cache)
    assert compiled == [str(files[2])]
    assert found.templates(["mine/t2"])["mine/t2"].title == "Title 2"
    assert found.ids == ["mine/bad", "mine/t0", "mine/t1", "mine/t2", "mine/t3"]
    with pytest.raises(UnknownTemplate, match="did you mean mine/t1"):
        find(source, "mine/t11", cache)
    with pytest.raises(TemplateFileError, match="nonsense"):
        find(source, "mine/bad", cache)
    compiled.clear()
    whole = build(source, cache)  # those find compiled (t2, bad) are not compiled again
    assert compiled == [str(files[i]) for i in (0, 1, 3)]
    assert "mine/t2" in whole.entries and "mine/bad" not in whole.entries
