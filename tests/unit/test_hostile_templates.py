"""Hostile template files and folders: each one is skipped with a located warning, and
every command (list, ask, validate, the drill) keeps working.

Each case once crashed or hung every command: RecursionError, MemoryError after 20 s,
PermissionError, IsADirectoryError, a FIFO that blocked forever, a link to /dev/zero
read without end. `cpu_guard` only stops a regression from hanging the test run.
"""

from __future__ import annotations

import io
import os
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import cpu_guard, run_cli

from questions.catalog import load_bank
from questions.loader import MAX_BYTES, parse_template
from quiz.core.drill import DrillSession
from quiz.core.mock import MockSession
from quiz.core.practice import PracticeSession
from quiz.core.settings import Settings
from quiz.core.store import Store

BROKEN = Path(__file__).parent / "broken"
GOOD = (BROKEN / "unsatisfiable_constraint.toml").read_text(encoding="utf-8").replace(
    'constraints = ["tp > 16"]\n', "")
ROOT = os.geteuid() == 0


def good(tid: str) -> str:
    return GOOD.replace('"memory/broken-example"', f'"{tid}"')


def nested_arrays(path: Path) -> None:
    path.write_text("x = " + "[" * 60_000 + "]" * 60_000 + "\n")  # ~120 KB


def nested_tables(path: Path) -> None:
    path.write_text("x = " + "{a=" * 30_000 + "1" + "}" * 30_000 + "\n")


def deep_dotted_key(path: Path) -> None:
    path.write_text(".".join(["a"] * 60_000) + " = 1\n")


def deep_quoted_key(path: Path) -> None:
    path.write_text('"a".' * 40_000 + '"a" = 1\n')


def deep_header(path: Path) -> None:
    path.write_text("[" + ".".join(["t"] * 50_000) + "]\n")


def a_directory(path: Path) -> None:
    path.mkdir()


def a_fifo(path: Path) -> None:
    os.mkfifo(path)


def link_to_dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def dangling_link(path: Path) -> None:
    path.symlink_to(path.parent / "nowhere.toml")


def link_loop(path: Path) -> None:
    path.symlink_to(path)


def too_large(path: Path) -> None:
    path.write_text("# " + "x" * MAX_BYTES + "\n")


def not_utf8(path: Path) -> None:
    path.write_bytes(b"id = \"\xff\xfe\"\n")


def binary_noise(path: Path) -> None:
    path.write_bytes(random.Random(1).randbytes(4096))


def unreadable(path: Path) -> None:
    path.write_text(good("memory/locked"))
    path.chmod(0)


MAKERS: list[Callable[[Path], None]] = [
    nested_arrays, nested_tables, deep_dotted_key, deep_quoted_key, deep_header, a_fifo,
    link_to_dev_zero, dangling_link, link_loop, too_large, not_utf8,
    binary_noise, unreadable]


@pytest.fixture
def folder(warm_data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("QUIZ_TEMPLATES", raising=False)
    monkeypatch.setenv("QUIZ_DATA_DIR", str(warm_data_dir))
    out = warm_data_dir.parent / "mine"
    out.mkdir()
    (out / "fine.toml").write_text(good("memory/fine-one"), encoding="utf-8")
    return out


def deny_open(monkeypatch: pytest.MonkeyPatch, target: Path) -> None:
    """As root, mode 000 does not stop a read: make opening `target` fail as it would."""
    real_open = os.open

    def fake(path: str | os.PathLike[str], flags: int, *args: int, **kw: int) -> int:
        if Path(path) == target:
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *args, **kw)

    monkeypatch.setattr(os, "open", fake)


@pytest.mark.parametrize("make", MAKERS, ids=[m.__name__ for m in MAKERS])
def test_a_hostile_file_is_skipped_with_a_located_warning(
    folder: Path, make: Callable[[Path], None], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    bad = folder / "x.toml"
    make(bad)
    if make is unreadable and ROOT:
        deny_open(monkeypatch, bad)
    with cpu_guard():
        bank = load_bank([folder])
        assert "memory/fine-one" in bank.templates
        assert any(p.file.startswith(str(bad)) for p in bank.problems), bank.problems
        code, out, err = run_cli(capsys, "--templates", str(folder), "templates", "list")
        assert code == 0 and "memory/fine-one" in out
        assert f"warning: skipped {bad}" in err
        code, out, err = run_cli(capsys, "--templates", str(folder), "ask",
                                 "memory/fine-one#1")
        assert code == 0
        code, out, err = run_cli(capsys, "templates", "validate", str(folder))
        assert code == 1 and f"{bad}:" in out and "Traceback" not in out + err
        assert f"{folder / 'fine.toml'}: ok" in out


def test_an_unreadable_folder_is_reported_not_ignored(
    folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    locked = folder / "locked"
    locked.mkdir()
    (locked / "hidden.toml").write_text(good("memory/hidden"))
    if ROOT:
        real_scandir = os.scandir

        def fake(path: str | os.PathLike[str] = ".") -> object:
            if Path(path) == locked:
                raise PermissionError(13, "Permission denied", str(path))
            return real_scandir(path)

        monkeypatch.setattr(os, "scandir", fake)
    else:
        locked.chmod(0)
    try:
        bank = load_bank([folder])
        assert "memory/fine-one" in bank.templates
        assert [p for p in bank.problems if p.file == str(locked)], bank.problems
        code, _, err = run_cli(capsys, "--templates", str(folder), "templates", "list")
        assert code == 0 and f"warning: skipped {locked}" in err and "cannot read" in err
        code, out, _ = run_cli(capsys, "templates", "validate", str(folder))
        assert code == 1 and f"{locked}:1: (folder): cannot read this folder" in out
    finally:
        locked.chmod(0o755)


def test_a_folder_named_like_a_template_is_a_folder(
    folder: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    a_directory(folder / "x.toml")
    with cpu_guard():
        assert not load_bank([folder]).problems
        code, _, err = run_cli(capsys, "templates", "validate", str(folder / "x.toml"))
    assert code == 2 and err.count("\n") == 1 and "no .toml files" in err


def test_a_file_given_as_template_folder_is_reported(folder: Path) -> None:
    bank = load_bank([folder / "fine.toml"])
    assert [p.reason for p in bank.problems] == ["not a folder"]


def test_a_bom_is_accepted(folder: Path) -> None:
    (folder / "bom.toml").write_bytes(b"\xef\xbb\xbf" + good("memory/with-bom").encode())
    bank = load_bank([folder], bundled=False)
    assert "memory/with-bom" in bank.templates, bank.problems
    assert parse_template("\ufeff" + good("memory/with-bom")).id == "memory/with-bom"


def test_a_template_that_cannot_be_drawn_is_skipped_not_the_drill(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An unsatisfiable constraint once made the daily drill die every time."""
    text = good("memory/aaa-never").replace("[params.model]",
                                            'constraints = ["gpus < 0"]\n[params.model]')
    (folder / "never.toml").write_text(text, encoding="utf-8")
    bank = load_bank([folder], bundled=False)
    assert set(bank.templates) == {"memory/aaa-never", "memory/fine-one"}
    store = Store.open(tmp_path / "h.db")
    with cpu_guard():
        for session in (DrillSession(bank, store, Settings()),
                        PracticeSession(bank, store, Settings(), topic="memory"),
                        MockSession(bank, store, Settings(), questions=2)):
            asked = [q.template.id for q in (session.next() for _ in range(3)) if q]
            assert asked and set(asked) == {"memory/fine-one"}
            assert any("memory/aaa-never" in w for w in session.warnings)
    store.close()
    # The plain drill, with the bundled bank: the broken one comes early among new cards.
    (folder / "never.toml").write_text(text.replace("memory/aaa-never", "communication/aaa")
                                       .replace('topic = "memory"', 'topic = "communication"'),
                                       encoding="utf-8")
    monkeypatch.setattr("sys.stdin", io.StringIO("1 TB\n:quit\n"))
    code, out, err = run_cli(capsys, "--templates", str(folder), "drill", "--plain")
    assert code == 0 and "Traceback" not in out + err
    assert "warning: skipped communication/aaa#" in err
    assert re.search(r"^\[[a-z-]+/[a-z0-9-]+#\d+\]", out, re.MULTILINE)  # a question came


def test_the_hostile_corpus_files_exist_in_the_validator_corpus() -> None:
    for name in ("unsatisfiable_gpus", "huge_base_constraint", "huge_base_expr",
                 "overflowing_range", "infinite_range"):
        assert (BROKEN / f"{name}.toml").is_file()


def _answer_fields_of_other_kinds() -> list[tuple[str, str]]:
    from questions.schema import answer_models

    models = answer_models()
    return [(kind, field) for kind, model in models.items()
            for other in dict.fromkeys(models.values()) for field in other.model_fields
            if field not in model.model_fields]


@pytest.mark.parametrize(("kind", "field"), _answer_fields_of_other_kinds())
def test_a_field_of_another_kinds_answer_is_refused_naming_whose_it_is(
        kind: str, field: str) -> None:
    """The flat [answer] model once took any kind's field and ignored it (`tolerance` on
    a choice graded nothing): each kind's answer refuses the fields it does not read."""
    import tomllib

    from pydantic import ValidationError

    from questions.loader import bundled_files, schema_problems
    from questions.schema import Template

    path = next(p for p in bundled_files() if f'answer_kind = "{kind}"' in p.read_text()
                or (kind == "number" and "answer_kind" not in p.read_text()))
    text = path.read_text(encoding="utf-8")
    data = tomllib.loads(text)
    part = data["parts"][0] if "parts" in data else data
    assert part.get("answer_kind", "number") == kind
    part["answer"][field] = 1
    with pytest.raises(ValidationError) as caught:
        Template.model_validate(data).all_parts()
    reasons = {p.field: p.reason for p in schema_problems(caught.value, data, text, path.name)}
    at = ("parts[0]." if "parts" in data else "") + f"answer.{field}"
    assert f"{field!r} is a field of " in reasons[at] and f"not of a {kind} answer" in \
        reasons[at], reasons


def _mistake_fields_of_other_kinds() -> list[tuple[str, str]]:
    from questions.schema import mistake_models

    models = mistake_models()
    return [(kind, field) for kind, model in models.items()
            for other in dict.fromkeys(models.values()) for field in other.model_fields
            if field not in model.model_fields]


def _part_of_kind(kind: str) -> tuple[Path, str, dict[str, Any], dict[str, Any]]:
    """A bundled template with a part of ``kind``: its file, text, data and that part."""
    import tomllib

    from questions.loader import bundled_files

    for path in bundled_files():
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
        for part in data.get("parts", [data]):
            if part.get("answer_kind", "number") == kind:
                return path, text, data, part
    raise AssertionError(f"no bundled part of kind {kind}")


@pytest.mark.parametrize(("kind", "field"), _mistake_fields_of_other_kinds())
def test_a_mistake_field_of_another_kind_is_refused_naming_whose_it_is(
        kind: str, field: str) -> None:
    """The one flat mistake model once took any kind's recogniser and ignored it (a
    `formula` on a number's mistake never fired): each kind's mistakes refuse the fields
    they do not read, saying whose the field is and which fields this kind's have."""
    from pydantic import ValidationError

    from questions.loader import schema_problems
    from questions.schema import Template, mistake_models

    path, text, data, part = _part_of_kind(kind)
    mistakes = part.setdefault("mistakes", [{"name": "n", "feedback": "f", "scale": 2}])
    mistakes[0][field] = 1
    with pytest.raises(ValidationError) as caught:
        Template.model_validate(data).all_parts()
    reasons = {p.field: p.reason for p in schema_problems(caught.value, data, text, path.name)}
    index = data["parts"].index(part) if "parts" in data else None
    at = ("" if index is None else f"parts[{index}].") + f"mistakes[0].{field}"
    own = ", ".join(mistake_models()[kind].model_fields)
    assert f"{field!r} is a field of " in reasons[at], reasons
    assert f"not of a {kind} answer's mistake" in reasons[at], reasons
    assert reasons[at].endswith(f"whose [[mistakes]] have {own}"), reasons


def test_a_layout_part_has_no_mistakes() -> None:
    """A layout's grader names the slips it knows itself: a `[[mistakes]]` entry on a
    layout part could never fire, so it is refused, saying which kinds have them."""
    from pydantic import ValidationError

    from questions.loader import schema_problems
    from questions.schema import Template

    path, text, data, part = _part_of_kind("layout")
    part["mistakes"] = [{"name": "n", "feedback": "f", "scale": 2}]
    with pytest.raises(ValidationError) as caught:
        Template.model_validate(data)
    reasons = {p.field: p.reason for p in schema_problems(caught.value, data, text, path.name)}
    at = ("" if "parts" not in data else f"parts[{data['parts'].index(part)}].") + \
        "mistakes[0]"
    assert reasons[at].startswith("a layout answer has no [[mistakes]]"), reasons
    assert "number, formula, choice, multi, table and spoken" in reasons[at]


@pytest.mark.parametrize(("kind", "missing"), [("number", "set, expr, scale"),
                                               ("formula", "formula"),
                                               ("choice", "choice"), ("table", "cells")])
def test_a_mistake_without_its_kinds_recogniser_is_refused(kind: str, missing: str) -> None:
    from pydantic import ValidationError

    from questions.loader import schema_problems
    from questions.schema import Template

    path, text, data, part = _part_of_kind(kind)
    part["mistakes"] = [{"name": "n", "feedback": "f"}]
    with pytest.raises(ValidationError) as caught:
        Template.model_validate(data)
    problems = schema_problems(caught.value, data, text, path.name)
    prefix = "" if "parts" not in data else f"parts[{data['parts'].index(part)}]."
    assert [p for p in problems if p.field.startswith(f"{prefix}mistakes[0]")
            and (missing in p.reason or missing in p.field)], problems
