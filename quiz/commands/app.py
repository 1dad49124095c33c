"""`quiz`, `quiz drill`, `quiz mock` and `quiz practice TOPIC`: open the terminal app."""

from __future__ import annotations

import argparse
import sys

_MODES = {None: None, "drill": "drill", "mock": "mock", "practice": "practice"}


def run(args: argparse.Namespace) -> int:
    """Start the Textual app in the mode ``args.command`` names.

    Textual is imported here so that other commands never load it. Reads
    ``args.data_dir``, ``args.templates``, and when present ``args.minutes``,
    ``args.questions`` (mock), ``args.topic`` and ``args.difficulty`` (practice).
    """
    command = getattr(args, "command", None)
    if command not in _MODES:
        sys.stderr.write(f"quiz: {command!r} does not open the app\n")
        return 2
    from quiz.tui.app import QuizApp

    app = QuizApp(data_dir=getattr(args, "data_dir", None),
                  template_dirs=getattr(args, "templates", None) or [],
                  mode=_MODES[command],
                  mock_minutes=getattr(args, "minutes", None),
                  mock_questions=getattr(args, "questions", None),
                  practice_topic=getattr(args, "topic", None),
                  practice_difficulty=getattr(args, "difficulty", None))
    app.run()
    return int(app.return_code or 0)
