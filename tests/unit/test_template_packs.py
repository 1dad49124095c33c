"""Template packs: a tiny pack is built in a temporary folder, pip-installed (offline, into
a folder put on the test process's path, so the shared environment is untouched) and
its templates seen by `quiz templates list`, `quiz ask` and the loader."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import run_cli

from questions.catalog import load_bank
from questions.loader import bundled_files
from questions.packs import Pack

PYPROJECT = """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "quiz-pack-tiny"
version = "0.1.0"

[project.entry-points."quiz.templates"]
tiny = "quiz_pack_tiny:templates"
ghost = "quiz_pack_tiny:nowhere"

[tool.setuptools]
packages = ["quiz_pack_tiny"]

[tool.setuptools.package-data]
quiz_pack_tiny = ["templates/*.toml", "templates/**/*.toml"]
"""


def bundled(template_id: str) -> Path:
    name = template_id.split("/")[1]
    return next(p for p in bundled_files() if p.stem == name)


def make_pack(root: Path) -> Path:
    """A pack with one good template, one broken one and one that reuses a bundled id."""
    pack = root / "quiz-pack-tiny"
    templates = pack / "quiz_pack_tiny" / "templates"
    templates.mkdir(parents=True)
    (pack / "pyproject.toml").write_text(PYPROJECT)
    (pack / "quiz_pack_tiny" / "__init__.py").write_text(
        'raise RuntimeError("a pack is data: quiz must never import it")\n')
    good = bundled("memory/model-state").read_text().replace(
        'id = "memory/model-state"', 'id = "memory/tiny-pack-state"')
    (templates / "good.toml").write_text(good)
    (templates / "broken.toml").write_text(good.replace("memory/tiny-pack-state",
                                                        "memory/tiny-broken")
                                           .replace("difficulty = ", "difficulty = 9 #"))
    shutil.copy(bundled("inference/kv-cache"), templates / "collides.toml")
    return pack


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pack pip-installed into a folder of its own (what goes on PYTHONPATH)."""
    root = tmp_path_factory.mktemp("pack")
    target = root / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
         "--no-build-isolation", "--target", str(target), str(make_pack(root))],
        check=True, capture_output=True, timeout=300)
    return target


def test_an_installed_pack_shows_beside_the_bank_and_its_problems_are_located(
    installed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(installed))  # what PYTHONPATH would do
    data = ("--data-dir", str(tmp_path))
    code, out, err = run_cli(capsys, *data, "templates", "list", "--json")
    assert code == 0, err
    by_id = {row["id"]: row for row in json.loads(out)}
    assert by_id["memory/tiny-pack-state"]["pack"] == "tiny"
    assert by_id["memory/model-state"]["pack"] is None  # the bank stays the bank
    assert "memory/tiny-broken" not in by_id
    warnings = err.splitlines()
    # The broken file: skipped, with its file, line, field and the pack's name.
    [broken] = [w for w in warnings if "broken.toml" in w]
    assert "broken.toml:" in broken and "difficulty" in broken
    assert "(in pack 'tiny' (quiz-pack-tiny 0.1.0))" in broken
    # The collision names both sources: the pack's file and the bundled one.
    [clash] = [w for w in warnings if "collides.toml" in w]
    assert "duplicate id 'inference/kv-cache' in pack 'tiny'" in clash
    assert str(bundled("inference/kv-cache")) in clash
    # An entry point naming no folder is reported, not fatal.
    [ghost] = [w for w in warnings if "ghost" in w]
    assert "names no folder" in ghost
    assert len(warnings) == 3

    code, out, _ = run_cli(capsys, *data, "templates", "list")
    assert "PACK" in out and "1 from packs: tiny" in out
    code, out, _ = run_cli(capsys, *data, "ask", "memory/tiny-pack-state#3", "--json")
    assert code == 0 and json.loads(out)["seed"] == 3


def test_pack_templates_load_without_importing_the_pack(installed: Path) -> None:
    folder = installed / "quiz_pack_tiny" / "templates"
    bank = load_bank(bundled=False, packs=[Pack("tiny", "quiz-pack-tiny 0.1.0", folder)])
    assert bank.packs == {"memory/tiny-pack-state": "tiny", "inference/kv-cache": "tiny"}
    assert "quiz_pack_tiny" not in sys.modules  # its __init__ raises if imported


def test_packs_are_looked_for_again_only_when_what_is_installed_changes(
    installed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from helpers import spy

    from questions import packs

    cache = tmp_path / "cache" / "packs.json"
    looks = spy(monkeypatch, packs, "_look", pick=lambda: "look")
    assert packs.discover(cache) == packs.discover(cache) == packs._look()
    # No installed distribution declares a pack: importlib.metadata is not even asked
    # (the one look is by hand).
    assert looks == ["look"]
    site = tmp_path / "site"
    shutil.copytree(installed, site)
    with monkeypatch.context() as path:
        path.syspath_prepend(str(site))  # a pack installed: another path, found
        assert {p.name for p in packs.discover(cache)} == {"tiny", "ghost"}
        assert len(looks) == 2 and packs.discover(cache) and len(looks) == 2
        # Upgraded in place: its entry points file is rewritten.
        [info] = site.glob("quiz_pack_tiny-*.dist-info")
        points = info / "entry_points.txt"
        points.write_text(points.read_text().replace("ghost", "spectre"))
        assert {p.name for p in packs.discover(cache)} == {"tiny", "spectre"}
        # Its folder removed behind pip's back: the cached answer is not trusted.
        shutil.rmtree(site / "quiz_pack_tiny")
        assert all(p.folder is None for p in packs.discover(cache))
        assert len(looks) == 4
    assert packs.discover(cache) == []  # uninstalled (off the path)
    cache.write_text("{not json")  # a damaged cache is looked past, then rewritten
    assert packs.discover(cache) == [] and json.loads(cache.read_text())["packs"] == []


def test_a_warm_listing_never_imports_importlib_metadata(tmp_path: Path) -> None:
    probe = ("import sys\nfrom quiz.cli import main\n"
             f"main(['--data-dir', {str(tmp_path)!r}, 'templates', 'list'])\n"
             "print('importlib.metadata' in sys.modules)")
    runs = [subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                           check=True, timeout=120).stdout.splitlines()[-1]
            for _ in range(2)]
    assert runs == ["True", "False"]  # the first run looks for packs, the next reuse it
