"""No dataclass of ours is made on the way to the drill's first question or the home's
figures. Python 3.11 writes every method a dataclass gets as source text and compiles
it when the class is made, so each one cost its module's import 0.3-1.7 ms; the ~80 on
the drill's path were 13% of its start (bench/README.md, "Drill's first question").
The records there are ``msgspec.Struct`` classes and the messages plain classes; this
keeps a dataclass from creeping back onto the path."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from quiz import locations

from .conftest import TEMPLATES, WAIT_BOUND_S, seed_history
from .test_startup_drill import modules_when_the_first_question_shows

PROBE = """
import dataclasses, json, os, sys
from pathlib import Path

made = []
_dataclass = dataclasses.dataclass


def recording(cls=None, /, **options):
    def wrap(cls):
        made.append(f"{cls.__module__}.{cls.__qualname__}")
        return _dataclass(cls, **options)

    return wrap if cls is None else wrap(cls)


dataclasses.dataclass = recording  # before anything of ours is imported

from questions.loader import bank_files
from quiz.tui.app import QuizApp
from quiz.tui.routing import Start
from quiz.tui.screens.home import HomeScreen
from quiz.tui.screens.question import QuestionScreen


def ours():
    return [name for name in made if name.split(".")[0] in ("quiz", "questions", "solver")]


def report():  # the frame is drawn next: what was made on the way is all there is
    print(json.dumps(ours()), flush=True)
    os._exit(0)


shown_first, ready = QuestionScreen.show_first, HomeScreen.ready


def show_first(self, question, left):
    report()


def home_ready(self, summary, *, ids_known):
    if sys.argv[3] == "home":
        report()
    ready(self, summary, ids_known=ids_known)


QuestionScreen.show_first, HomeScreen.ready = show_first, home_ready
QuizApp(data_dir=sys.argv[1], start=Start("drill") if sys.argv[3] == "drill" else None,
        seed=0, template_files=lambda folder: bank_files([Path(sys.argv[2])],
                                                         bundled=False).files,
        ).run(headless=True, size=(120, 40))
"""


def dataclasses_made_before(data_dir: Path, start: str) -> list[str]:
    """The dataclasses of quiz, questions and solver a fresh interpreter has made when
    ``start`` (``drill`` or ``home``) shows its first question or today's figures."""
    out = subprocess.run([sys.executable, "-c", PROBE, str(data_dir), str(TEMPLATES), start],
                         capture_output=True, text=True, check=True, timeout=WAIT_BOUND_S)
    made: list[str] = json.loads(out.stdout.strip().splitlines()[-1])
    return made


@pytest.mark.parametrize("start", ["drill", "home"])
def test_no_dataclass_is_made_before_the_first_frame(data_dir: Path, start: str) -> None:
    seed_history(data_dir)
    locations.config_path(data_dir).write_text("new_per_day = 2\n")
    modules_when_the_first_question_shows(data_dir)  # a first start: the caches
    assert dataclasses_made_before(data_dir, start) == []


def test_the_probe_sees_a_dataclass(data_dir: Path) -> None:
    """The check can fail: a dataclass made on the path is reported."""
    seed_history(data_dir)
    probe = PROBE.replace("from questions.loader import bank_files",
                          "from quiz.core.kinds.base import Grade\n"
                          "from questions.loader import bank_files")
    out = subprocess.run([sys.executable, "-c", probe, str(data_dir), str(TEMPLATES), "home"],
                         capture_output=True, text=True, check=True, timeout=WAIT_BOUND_S)
    assert "quiz.core.kinds.base.Grade" in json.loads(out.stdout.strip().splitlines()[-1])
