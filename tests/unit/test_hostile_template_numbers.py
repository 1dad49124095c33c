"""Hostile numbers in template files: each is a located problem at validation (and the
template is skipped), never a crash later, a silent reading, or seconds of CPU.

Bugs (issue 26): `version = 2^70` crashed when an attempt was saved (SQLite holds 64
bits); `{seq:>999999999}` took 9 s of CPU per ask and 21 s per validation; `schema =
"1"` (a string) and a mistake's `scale` of 0 or NaN were taken silently.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from helpers import cpu_guard, run_cli

from questions.errors import TemplateError
from questions.loader import parse_template
from questions.variants import MAX_SPEC_NUMBER, spec_too_large

BROKEN = Path(__file__).parent / "broken"
GOOD = (BROKEN / "unsatisfiable_constraint.toml").read_text(encoding="utf-8").replace(
    'constraints = ["tp > 16"]\n', "")


def with_line(key: str, value: str, text: str = GOOD) -> str:
    """The good template with ``key = value`` set at the top level."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(f"{key} ="):
            lines[i] = f"{key} = {value}"
            return "\n".join(lines) + "\n"
    return f"{key} = {value}\n" + text


def with_mistake_scale(value: str) -> str:
    return GOOD + (f'\n[[mistakes]]\nname = "off by a factor"\nfeedback = "Check the '
                   f'factor."\nscale = {value}\n')


def with_prompt_spec(spec: str) -> str:
    lines = GOOD.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("prompt = "):
            quote = '"""' if line.startswith('prompt = """') else '"'
            lines[i] = line.replace(f"prompt = {quote}", f"prompt = {quote}{{seq:{spec}}} ", 1)
            return "\n".join(lines) + "\n"
    raise AssertionError("the good template has a prompt")


CASES = {
    "version-past-64-bits": (with_line("version", str(2**70)), "version"),
    "version-negative": (with_line("version", "-1"), "version"),
    "version-as-text": (with_line("version", '"2"'), "version"),
    "schema-as-text": (with_line("schema", '"1"'), "schema"),
    "scale-zero": (with_mistake_scale("0"), "scale"),
    "scale-nan": (with_mistake_scale("nan"), "scale"),
    "scale-inf": (with_mistake_scale("inf"), "scale"),
    "width-huge": (with_prompt_spec(">999999999"), "format spec"),
    "precision-huge": (with_prompt_spec(".999999999f"), "format spec"),
    "width-and-precision": (with_prompt_spec("0>200.2f"), "format spec"),
}


def test_the_good_template_is_good() -> None:
    parse_template(GOOD, "good.toml")
    parse_template(with_prompt_spec(">12,.2f"), "fine-spec.toml")
    parse_template(with_mistake_scale("1000"), "fine-scale.toml")


@pytest.mark.parametrize(("text", "field"), CASES.values(), ids=CASES.keys())
def test_a_hostile_number_is_a_located_problem_at_once(text: str, field: str) -> None:
    with cpu_guard(5, 20), pytest.raises(TemplateError) as info:
        parse_template(text, "t.toml")
    assert field in str(info.value)


@pytest.mark.parametrize(("text", "field"), CASES.values(), ids=CASES.keys())
def test_validate_names_the_problem_in_one_line_per_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, field: str,
) -> None:
    path = tmp_path / "t.toml"
    path.write_text(text)
    with cpu_guard(10, 30):
        code, out, err = run_cli(capsys, "--data-dir", str(tmp_path / "d"), "templates",
                                 "validate", str(path))
    assert code == 1, (out, err)
    assert f"{path.name}:" in out + err and field in out + err


@pytest.mark.parametrize(("spec", "large"), [
    ("", False), (",.0f", False), (".3g", False), (">12", False), ("0>5", False),
    (f".{MAX_SPEC_NUMBER}f", False), (f".{MAX_SPEC_NUMBER + 1}f", True),
    (">999999999", True), ("0" * 400 + "5", True),
])
def test_spec_sizes(spec: str, large: bool) -> None:
    assert spec_too_large(spec) is large
    if not large:
        assert isinstance(format(math.pi, spec), str)
