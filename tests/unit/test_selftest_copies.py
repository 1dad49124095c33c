"""`quiz templates test` over copies of a template (files equal but for the id): each
copy is reported exactly as it is alone, and what does not depend on the id is checked
once per body (:class:`quiz.core.selftest.Bodies`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import run_cli, spy

import quiz.core.selftest as selftest
from questions.loader import load_template, read_template_text
from quiz.core.authoring import check_loaded
from quiz.core.selftest import Bodies

BROKEN = Path(__file__).parent / "broken"
BANK = Path(__file__).parents[2] / "questions" / "bank"


def copies(folder: Path, source: Path, count: int) -> list[Path]:
    """`count` copies of a template file under new ids."""
    text = source.read_text(encoding="utf-8")
    out = []
    for i in range(count):
        copy, n = re.subn(r'^id = "([^"]+)"', rf'id = "\1-c{i}"', text, count=1,
                          flags=re.M)
        assert n == 1
        path = folder / f"{source.stem}-c{i}.toml"
        path.write_text(copy, encoding="utf-8")
        out.append(path)
    return out


@pytest.mark.parametrize("source", [
    BROKEN / "mistake_equals_key.toml",      # a failure on some seeds' draws
    BROKEN / "wrong_verdict_example.toml",   # an example that fails
    BANK / "compute" / "recompute-trade-off.toml",  # options shuffled per id and seed
    BANK / "memory" / "model-state.toml",    # a template that passes
])
def test_each_copy_is_checked_as_it_is_alone(source: Path, tmp_path: Path) -> None:
    bodies = Bodies()
    for path in copies(tmp_path, source, 3):
        t, text = load_template(path), read_template_text(path)
        assert check_loaded(t, str(path), text, 8, bodies) == \
            check_loaded(t, str(path), text, 8)


def test_a_copy_checks_again_only_the_draws_its_body_has_not_met(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    paths = copies(tmp_path, BANK / "memory" / "model-state.toml", 2)
    bodies = Bodies()
    checked = spy(monkeypatch, selftest, "check_part",
                  lambda t, seed, pv: (pv.model, pv.gpu, repr(sorted(pv.overrides.items()))))
    first = check_loaded(load_template(paths[0]), str(paths[0]),
                         read_template_text(paths[0]), 20, bodies)
    alone = len(checked)
    second = check_loaded(load_template(paths[1]), str(paths[1]),
                          read_template_text(paths[1]), 20, bodies)
    assert first.checks == second.checks
    assert alone >= 1 and len(checked) - alone < alone  # five models: the copy repeats
    assert len(set(checked)) == len(checked)  # no draw is checked twice


def test_a_body_that_names_its_own_id_is_not_shared(tmp_path: Path) -> None:
    text = (BANK / "memory" / "model-state.toml").read_text(encoding="utf-8")
    a, b = tmp_path / "a.toml", tmp_path / "b.toml"
    a.write_text(text.replace('title = "', 'title = "memory/model-state: ', 1))
    b.write_text(text.replace('id = "memory/model-state"', 'id = "memory/other"')
                 .replace('title = "', 'title = "memory/other: ', 1))
    bodies = Bodies()
    assert bodies.of(load_template(a)) is not bodies.of(load_template(b))
    assert bodies.of(load_template(a)) is not bodies.of(load_template(a))


@pytest.fixture()
def folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An empty folder for copies, the command run with a fresh data folder and no
    templates of the user's."""
    monkeypatch.delenv("QUIZ_TEMPLATES", raising=False)
    monkeypatch.setenv("QUIZ_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "copies").mkdir()
    return tmp_path / "copies"


def test_the_command_reports_copies_as_it_reports_each_alone(
    capsys: pytest.CaptureFixture[str], folder: Path
) -> None:
    paths = copies(folder, BROKEN / "mistake_equals_key.toml", 3)
    code, out, _ = run_cli(capsys, "templates", "test", str(folder), "--seeds", "6",
                           "-j", "1")
    assert code == 1
    for path in paths:
        _, alone, _ = run_cli(capsys, "templates", "test", str(path), "--seeds", "6")
        failures = [line for line in alone.splitlines() if line.startswith(str(path))]
        assert failures and all(line in out.splitlines() for line in failures)


def test_a_fault_planted_in_one_copy_of_a_body_is_found(
    capsys: pytest.CaptureFixture[str], folder: Path
) -> None:
    paths = copies(folder, BANK / "memory" / "model-state.toml", 4)
    for path in paths:  # (its example at seed 1 holds for its own id only)
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace('[[examples]]\nanswer = "747 GB"\nverdict = "correct"'
                                     '\nseed = 1\n\n', ""), encoding="utf-8")
    planted = paths[2]  # after two clean copies of its body, before another
    text = planted.read_text(encoding="utf-8")
    planted.write_text(text.replace("bytes_per_param = 2 }", "bytes_per_param = 16 }"),
                       encoding="utf-8")
    code, out, _ = run_cli(capsys, "templates", "test", str(folder), "-j", "1")
    assert code == 1
    failures = [line for line in out.splitlines() if ".toml:" in line
                and "warning" not in line]
    assert failures and all(line.startswith(f"{planted}:") for line in failures)
    assert "'weights only' gives" in failures[0]
    rows = {line.split()[0]: line.split()[-1] for line in out.splitlines()
            if line.startswith("memory/model-state-c")}
    assert rows == {"memory/model-state-c0": "0", "memory/model-state-c1": "0",
                    "memory/model-state-c2": "1", "memory/model-state-c3": "0"}


def test_a_copy_is_checked_against_the_solver_once_and_a_changed_body_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import questions.checks as checks
    import questions.loader as loader

    monkeypatch.setattr(loader, "_SOLVER_CHECKED", {})
    checked = spy(monkeypatch, checks, "check_against_solver", lambda t: t.id)
    text = (BROKEN / "unknown_fixed_key.toml").read_text(encoding="utf-8")
    problems = []
    for i in range(3):  # copies: one check, the same problem reported for each
        with pytest.raises(loader.TemplateFileError) as exc:
            loader.parse_template(text.replace('id = "memory/', f'id = "memory/c{i}-'))
        problems.append([(p.line, p.field, p.reason) for p in exc.value.problems])
    assert checked == ["memory/c0-broken-example"]
    assert problems[0] == problems[1] == problems[2] and "micro_batch" in str(problems[0])
    # the same body with the key spelled right: checked again, and it loads
    right = text.replace("microbatch = 4", "micro_batch = 4")
    assert loader.parse_template(right.replace('id = "memory/', 'id = "memory/c3-')).id \
        == "memory/c3-broken-example"
    assert len(checked) == 2
    # 4 and 4.0 are equal in Python, not in a template: a body that differs only so is
    # its own
    loader.parse_template(right.replace("micro_batch = 4", "micro_batch = 4.0"))
    assert len(checked) == 3


def test_the_solver_checks_remembered_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    import questions.loader as loader

    monkeypatch.setattr(loader, "_SOLVER_CHECKED", {})
    monkeypatch.setattr(loader, "SOLVER_CHECKS_KEPT", 2)
    text = (BANK / "memory" / "model-state.toml").read_text(encoding="utf-8")
    assert 'title = "' in text
    sizes = []
    for i in range(5):
        loader.parse_template(text.replace('title = "', f'title = "{i} '))
        sizes.append(len(loader._SOLVER_CHECKED))
    assert sizes == [1, 2, 1, 2, 1]  # five bodies, never more than two kept
