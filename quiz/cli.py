"""The command line. `quiz` alone opens the TUI; subcommands follow DESIGN.md's contract.

Nothing heavy is imported here: each subcommand imports what it needs when it runs, so
`quiz --help` never waits for sympy or Textual.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit 2."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"quiz: {message} (see quiz --help)\n")
        raise SystemExit(2)


def _version() -> str:
    """The installed package's version (pyproject.toml's, via the package metadata)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("quiz")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "unknown (not installed)"


class _Version(argparse.Action):
    """``--version``: the package metadata is read only when asked for (reading it costs
    every other command ~50 ms)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        print(f"quiz {_version()}")
        parser.exit()


if TYPE_CHECKING:
    _SubparsersBase = argparse._SubParsersAction[argparse.ArgumentParser]
else:
    _SubparsersBase = argparse._SubParsersAction

Build = Callable[[Any], None]
"""Adds one or more subcommands' parsers to the top-level subparsers (``sub.add_parser``)."""


class _Parsers(dict[str, "argparse.ArgumentParser | None"]):
    """Subcommand -> parser, as argparse looks them up; a declared subcommand's parser is
    built the first time it is looked up (None until then)."""

    def __init__(self, build: Callable[[str], None]) -> None:
        super().__init__()
        self._build = build

    def __getitem__(self, name: str) -> argparse.ArgumentParser | None:
        if super().__getitem__(name) is None:
            self._build(name)
        return super().__getitem__(name)

    def built(self, name: str) -> bool:
        """Whether the parser of ``name`` exists yet (without building it)."""
        return super().get(name) is not None

class _Subcommands(_SubparsersBase):
    """The subcommands, each listed (name and help) from the start but built only when
    it runs or its help is shown.

    Building every subcommand's parser imported most of :mod:`quiz.commands` and made
    about 200 argparse actions on every start, for one command. argparse finds the
    command in the arguments itself and then looks its parser up in ``choices``: the
    lookup builds it, so what is parsed, and every message, is as if all were built.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._later: dict[str, Build] = {}
        self._parsers = _Parsers(self._build)
        self._name_parser_map = self.choices = self._parsers  # type: ignore[assignment]

    def declare(self, name: str, help: str, build: Build) -> None:
        """List ``name`` with its ``help``; ``build(self)`` adds its parser when needed."""
        self._choices_actions.append(self._ChoicesPseudoAction(name, (), help))
        dict.__setitem__(self._parsers, name, None)
        self._later[name] = build

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        if name not in self._later:
            return super().add_parser(name, **kwargs)
        del self._later[name]
        kwargs.pop("help", None)  # listed when declared
        if kwargs.get("prog") is None:
            kwargs["prog"] = f"{self._prog_prefix} {name}"
        parser = self._parser_class(**kwargs)
        dict.__setitem__(self._parsers, name, parser)
        return parser

    def _build(self, name: str) -> None:
        build = self._later.get(name)
        if build is not None:
            build(self)
        if not self._parsers.built(name):
            raise RuntimeError(f"building the parser of {name!r} did not add it")


def _commands_in(module: str) -> Build:
    """The parsers that ``quiz.commands.MODULE.add_parser`` adds."""

    def build(sub: Any) -> None:
        import importlib

        importlib.import_module(f"quiz.commands.{module}").add_parser(sub)

    return build


def _solve(sub: Any) -> None:
    s = sub.add_parser("solve")
    s.add_argument("quantity", nargs="?", help="e.g. model_state_bytes")
    s.add_argument("--model", help="model preset, e.g. llama3-70b")
    s.add_argument("--gpu", help="GPU preset, e.g. h100")
    s.add_argument("--set", action="append", metavar="KEY=VALUE", help="override a key")
    s.add_argument("--list", action="store_true", help="list the quantities")
    s.add_argument("--keys", action="store_true",
                   help="list every key with its unit, default and meaning")
    s.add_argument("--presets", action="store_true", help="list the model and GPU presets")
    s.add_argument("--json", action="store_true", help="machine-readable output")


def _ask(sub: Any) -> None:
    from quiz.commands.args import seed, whole

    a = sub.add_parser("ask")
    a.add_argument("template", help="TEMPLATE_ID or TEMPLATE_ID#SEED")
    a.add_argument("--seed", type=seed, help="the variant (default 0)")
    a.add_argument("--steps", action="store_true",
                   help="list the worked derivation's steps as questions (learn mode)")
    a.add_argument("--followup", type=whole(1, 100), metavar="K",
                   help="the K-th follow-up: one input changed, asked about the effect")
    a.add_argument("--json", action="store_true")


def _check(sub: Any) -> None:
    from quiz.commands.args import seed, whole

    c = sub.add_parser("check")
    c.add_argument("template", help="TEMPLATE_ID or TEMPLATE_ID#SEED")
    c.add_argument("--seed", type=seed)
    c.add_argument("--answer", required=True, help="the answer as you would type it")
    c.add_argument("--part", type=whole(1, 100), help="scenario part (1-based; default 1)")
    c.add_argument("--earlier", action="append", default=[], metavar="TEXT",
                   help="your answer to an earlier part, in order (repeatable): a part that "
                   "follows through is graded against them too")
    c.add_argument("--step", type=whole(1, 1000),
                   help="grade one step of the walk-through (see quiz ask ID --steps); "
                   "steps are numbered over the whole question, so not with --part")
    c.add_argument("--followup", type=whole(1, 100), metavar="K",
                   help="grade the K-th follow-up (see quiz ask ID --followup K)")
    c.add_argument("--json", action="store_true")


def _stats(sub: Any) -> None:
    sub.add_parser("stats").add_argument("--json", action="store_true")


def _drill(sub: Any) -> None:
    sub.add_parser("drill").add_argument(
        "--plain", action="store_true",
        help="line-by-line in this terminal instead of the full-screen app")


def _mock(sub: Any) -> None:
    from quiz.commands.args import whole

    m = sub.add_parser("mock")
    # The same bounds as the settings (mock_minutes, mock_questions).
    m.add_argument("--minutes", type=whole(1, 240), help="time limit (default 30)")
    m.add_argument("--questions", type=whole(1, 50), help="number of questions (default 8)")
    m.add_argument("--closing", action="store_true",
                   help="close with a 30-second answer, on a clock of its own")
    m.add_argument("--closing-minutes", type=whole(1, 30),
                   help="time for the closing answer (default 3; implies --closing)")


def _practice(sub: Any) -> None:
    from quiz.commands.args import whole

    pr = sub.add_parser("practice")
    pr.add_argument("topic", nargs="?", help="topic, tag (rapid-fire-3) or id prefix")
    pr.add_argument("--difficulty", type=whole(1, 3), help="1, 2 or 3")


PARSERS: dict[str, tuple[str, Build]] = {
    "solve": ("derive a quantity with worked steps", _solve),
    "ask": ("show a question variant", _ask),
    "check": ("grade an answer to a variant", _check),
    "stats": ("your history: attempts, accuracy by topic", _stats),
    "drill": ("today's spaced-repetition drill", _drill),
    "mock": ("a timed mock interview", _mock),
    "practice": ("endless practice on a topic or rapid-fire item", _practice),
    "templates": ("list, check and write question templates", _commands_in("templates")),
    "learn": ("walk through questions one derivation step at a time", _commands_in("learn")),
    "mistakes": ("your incorrect and partial answers, newest first", _commands_in("review")),
    "flags": ("questions you flagged as wrong or unclear (for authors)",
              _commands_in("review")),
    "history": ("export or import your history (JSON or CSV)", _commands_in("history")),
    "schedule": ("fit the scheduler to your reviews; its leeches",
                 _commands_in("schedule")),
    "export": ("export questions to other study tools (Anki)", _commands_in("export")),
    "layout": ("search and evaluate parallel layouts", _commands_in("layout")),
    "serve": ("the app in a web browser (each tab its own session)", _commands_in("serve")),
}
"""Each subcommand, in the order ``quiz --help`` lists them: its one-line help and what
builds its parser (the module's ``add_parser(sub)`` for those of :mod:`quiz.commands`)."""


def build_parser(*, lazy: bool = True) -> argparse.ArgumentParser:
    """The whole `quiz` command line.

    Args:
        lazy: build a subcommand's parser only when it is looked up (when it runs, or
            its help is shown). False builds them all now: the same parser, all at once.
    """
    p = _Parser(prog="quiz", description="Drill the arithmetic of distributed LLM training.",
                epilog="With no command, quiz opens the full-screen app (drill, practice, "
                "mock interview, stats, template browser). Questions can be reproduced "
                "anywhere as TEMPLATE_ID#SEED, e.g. quiz ask memory/model-state#7.")
    p.add_argument("--version", action=_Version, nargs=0,
                   help="show program's version number and exit")
    p.add_argument("--data-dir", help="history and settings folder (env QUIZ_DATA_DIR)")
    p.add_argument("--templates", action="append", default=[], metavar="DIR",
                   help="extra template folder (repeatable; env QUIZ_TEMPLATES)")
    sub = p.add_subparsers(dest="command", parser_class=_Parser, action=_Subcommands)
    assert isinstance(sub, _Subcommands)
    for name, (what, build) in PARSERS.items():
        sub.declare(name, what, build)
    if not lazy:
        for name in PARSERS:
            sub.choices[name]  # looking a parser up builds it
    return p


COMMANDS: dict[str | None, str] = {
    None: "app",
    "solve": "solve",
    "ask": "ask",
    "check": "ask",
    "stats": "stats",
    "layout": "layout",
    "templates": "templates",
    "serve": "serve",
    "export": "export",
    "history": "history",
    "schedule": "schedule",
    "mistakes": "review",
    "flags": "review",
    "drill": "app",
    "mock": "app",
    "practice": "app",
    "learn": "learn",
}
"""Each subcommand and the module of :mod:`quiz.commands` whose ``run(args)`` runs it.

The module is imported only when its command runs, so ``quiz --help`` stays light.
"""


def _run(args: argparse.Namespace) -> int:
    import importlib

    name = COMMANDS[args.command]
    if args.command == "drill" and (args.plain or not sys.stdin.isatty()):
        name = "plain"  # line by line: asked for, or there is no terminal to draw on
    run: Callable[[argparse.Namespace], int] = importlib.import_module(
        f"quiz.commands.{name}").run
    return run(args)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `quiz` command; returns the process exit code."""
    from quiz.core.errors import QuizError

    # pydantic looks for plugins in every installed distribution's entry points when it
    # builds its first model: a scan of site-packages on every start (~0.1 s; more with
    # many packages). quiz uses none; set the variable yourself to choose otherwise.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

    try:
        _check_clock()
        if not (sys.argv[1:] if argv is None else argv):
            # `quiz` alone: open the app without building the whole parser (start-up time).
            return _run(argparse.Namespace(command=None, data_dir=None, templates=[]))
        args = build_parser().parse_args(argv)
        code = _run(args)
        if argv is None and args.command in QUICK_EXIT:
            _exit_now(code)
        return code
    except BrokenPipeError:  # `quiz ... | head`: the reader left; not an error
        sys.stderr.close()
        return 0
    except QuizError as exc:  # the user's or the environment's problem: one line
        return _fail(str(exc))
    except OSError as exc:  # a folder or file the system refuses: one line
        return _fail(os_message(exc))
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug in quiz: say so in one line, keep the details
        where = write_crash_report(exc)
        return _fail(f"internal error ({type(exc).__name__}: {exc}); this is a bug in quiz. "
                     f"The full report is in {where}", code=1)


QUICK_EXIT = frozenset({"ask", "check"})
"""One-shot commands whose process ends as soon as their output is written, when
:func:`main` is the process's entry point (``argv`` None: the ``quiz`` script, ``python
-m quiz.cli``): an ordinary exit first frees every object the process made, and once
sympy is imported that takes about 60 ms. Paired (bench/bench_solve.py (d), n = 15; and
a formula's check, n = 11, 2026-12-02): a warm ``quiz check`` of a number takes 0.88x
the CPU time it takes without, of a formula (sympy imported: the one-shot check nearest
its 1.2x ``import sympy`` goal) 0.81x (see bench/README.md). These commands close their
files (SQLite connections closed, their transactions committed) before they return,
start no threads and leave no process behind; the only exit handlers they leave are
lambdify's, which drop its generated source from the in-memory line cache."""


def _exit_now(code: int) -> None:
    """End the process with ``code`` once stdout and stderr are written, skipping the
    interpreter's clean-up (see :data:`QUICK_EXIT`); returns only when it cannot."""
    import threading

    sys.stdout.flush()  # BrokenPipeError: handled by main, as for any write
    sys.stderr.flush()
    # Never cut a thread short, nor a profiler or coverage tracer that writes its data at
    # exit (`python -m cProfile -o FILE -m quiz.cli check ...`).
    if threading.active_count() == 1 and sys.getprofile() is None and sys.gettrace() is None:
        os._exit(code)


def _check_clock() -> None:
    """A QUIZ_NOW that cannot be read is one line, before anything reads the clock."""
    import os

    if os.environ.get("QUIZ_NOW"):
        from quiz.core.clock import utc_now
        from quiz.core.errors import QuizError

        try:
            utc_now()
        except ValueError as exc:
            raise QuizError(str(exc)) from None


def _fail(message: str, code: int = 2) -> int:
    sys.stderr.write(f"quiz: {' '.join(message.split())}\n")
    return code


def os_message(exc: OSError) -> str:
    """One line for an error of the system: ``PATH: reason``."""
    reason = exc.strerror or str(exc)
    return f"{exc.filename}: {reason}" if exc.filename else reason


def write_crash_report(exc: BaseException) -> str:
    """Write the traceback of an unexpected exception to a temporary file; its path.

    The temporary folder rather than the data folder: the data folder may be the
    very thing that is broken.
    """
    import tempfile
    import traceback

    text = "".join(traceback.format_exception(exc))
    try:
        fd, path = tempfile.mkstemp(prefix="quiz-crash-", suffix=".txt")
        with open(fd, "w", encoding="utf-8") as out:
            out.write(f"quiz {' '.join(sys.argv[1:])}\n\n{text}")
    except OSError:
        return "(nowhere: the temporary folder is not writable)"
    return path

if __name__ == "__main__":
    raise SystemExit(main())
