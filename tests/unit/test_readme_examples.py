"""The README's examples do what it says (its `quiz check` example once graded incorrect)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from helpers import run_cli

README = Path(__file__).parents[2] / "README.md"


def test_the_readme_check_examples_grade_correct(capsys: pytest.CaptureFixture[str]) -> None:
    lines = [line.split("#  ")[0] for line in README.read_text().splitlines()
             if re.match(r"quiz check \S+ ", line)]
    assert lines
    for line in lines:
        argv = shlex.split(line.split("   #")[0])[1:]
        code, out, err = run_cli(capsys, *argv, *([] if "--json" in argv else ["--json"]))
        assert code == 0, err
        assert json.loads(out)["verdict"] == "correct", line


def test_the_readme_documents_every_setting_with_its_default() -> None:
    from quiz.core.settings import Settings

    text = README.read_text()
    for name, field in Settings.model_fields.items():
        default = field.default
        shown = (json.dumps(default) if isinstance(default, str | bool)
                 else repr(default))
        assert f"| `{name}` | `{shown}` |" in text, name
