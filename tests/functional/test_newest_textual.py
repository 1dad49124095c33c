"""Would the Textual patches still apply to the newest Textual release?

Textual is pinned exactly, and :mod:`quiz.tui.textual_private` checks at import that
each private function it patches or extends is the one it was written against. This
test installs the newest Textual from PyPI into a temporary virtual environment and
runs those checks there, naming each patch that would not apply and why: what to look
at before raising the pin. It needs the network, so it is deselected by default:
``pytest -m newest_textual``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CHECK = """\
import json, textual
from quiz.tui import textual_private
print(json.dumps({"version": textual.__version__, "problems": textual_private.problems()}))
"""


@pytest.mark.newest_textual
def test_every_textual_patch_applies_to_the_newest_release(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / ("Scripts" if os.name == "nt" else "bin") / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--upgrade", "textual"],
                   check=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([str(python), "-c", CHECK], env=env, capture_output=True, text=True,
                         check=True, cwd=tmp_path)
    found = json.loads(out.stdout.splitlines()[-1])
    broken = "; ".join(f"{name}: {why}" for name, why in sorted(found["problems"].items()))
    assert not broken, f"with Textual {found['version']}, these patches do not apply: {broken}"
