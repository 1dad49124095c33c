"""The command line. `quiz` alone opens the TUI; subcommands follow DESIGN.md's contract.

Nothing heavy is imported here: each subcommand imports what it needs when it runs, so
`quiz --help` never waits for sympy or Textual.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit 2."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"quiz: {message} (see quiz --help)\n")
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    """The whole `quiz` command line."""
    p = _Parser(prog="quiz", description="Drill the arithmetic of distributed LLM training.")
    p.add_argument("--data-dir", help="history and settings folder (env QUIZ_DATA_DIR)")
    p.add_argument("--templates", action="append", default=[], metavar="DIR",
                   help="extra template folder (repeatable; env QUIZ_TEMPLATES)")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)

    s = sub.add_parser("solve", help="derive a quantity with worked steps")
    s.add_argument("quantity", nargs="?", help="e.g. model_state_bytes")
    s.add_argument("--model", help="model preset, e.g. llama3-70b")
    s.add_argument("--gpu", help="GPU preset, e.g. h100")
    s.add_argument("--set", action="append", metavar="KEY=VALUE", help="override a key")
    s.add_argument("--list", action="store_true", help="list the quantities")
    s.add_argument("--json", action="store_true", help="machine-readable output")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `quiz` command; returns the process exit code."""
    args = build_parser().parse_args(argv)
    try:
        if args.command == "solve":
            from quiz.commands import solve

            return solve.run(args)
        from quiz.commands import app

        return app.run(args)
    except ValueError as exc:  # SolverError, Unreadable, template errors: one line
        sys.stderr.write(f"quiz: {exc}\n")
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
