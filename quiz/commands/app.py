"""`quiz` with no subcommand: open the terminal app."""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    """Start the Textual app (imported here so that other commands never load Textual)."""
    from quiz.tui.app import QuizApp

    app = QuizApp(data_dir=args.data_dir, template_dirs=args.templates)
    app.run()
    return int(app.return_code or 0)
