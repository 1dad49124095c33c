"""`quiz`, `quiz drill`, `quiz mock` and `quiz practice TOPIC`: open the terminal app."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

_MODES = {None: None, "drill": "drill", "mock": "mock", "practice": "practice",
          "learn": "learn"}


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
    topic = getattr(args, "topic", None)
    if command == "practice" and topic:
        problem = unknown_topic(topic, args)
        if problem:
            sys.stderr.write(f"quiz: {problem}\n")
            return 2
    from quiz.tui.app import QuizApp
    from quiz.tui.routing import Start

    mode = _MODES[command]
    start = None if mode is None else Start(
        mode, mock_minutes=getattr(args, "minutes", None),
        mock_questions=getattr(args, "questions", None), mock_closing=_closing(args),
        practice_topic=getattr(args, "topic", None),
        practice_difficulty=getattr(args, "difficulty", None),
        learn_target=getattr(args, "target", None))
    app = QuizApp(data_dir=getattr(args, "data_dir", None),
                  template_dirs=getattr(args, "templates", None) or [], start=start)
    try:
        app.run()
    finally:
        app.close_store()  # closed cleanly: the next start skips the page check
    return int(app.return_code or 0)


def unknown_topic(topic: str, args: argparse.Namespace) -> str | None:
    """Why ``quiz practice TOPIC`` would find nothing, or None when something matches.

    Checked before the app opens, cheaply: the template files are read with tomllib for
    their id, topic and tags only (loading the bank would import sympy). Template packs
    are not read here, so with any pack installed the app decides instead.
    """
    import difflib
    import tomllib
    from importlib import metadata

    from questions.packs import GROUP
    from quiz.commands.common import template_dirs

    if any(True for _ in metadata.entry_points(group=GROUP)):
        return None
    import questions

    names: set[str] = set()
    ids: set[str] = set()
    folders = [Path(questions.__file__).parent / "bank", *template_dirs(args)]
    for folder in folders:
        for path in sorted(folder.rglob("*.toml")) if folder.is_dir() else []:
            try:
                data = tomllib.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                continue  # the app reports broken files; they match nothing
            tid, kind = data.get("id"), data.get("topic")
            raw_tags = data.get("tags")
            tags: list[object] = raw_tags if isinstance(raw_tags, list) else []
            names.update(n for n in (tid, kind, *tags) if isinstance(n, str))
            if isinstance(tid, str):
                ids.add(tid)
    wanted = topic.rstrip("/")
    if wanted in names or any(n.startswith(f"{wanted}/") for n in names):
        return None
    if any(n.startswith(topic) for n in ids):  # the start of an id, as the session reads it
        return None
    close = difflib.get_close_matches(topic, sorted(names), n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return (f"no template matches {topic!r}{hint}; see quiz templates list for topics, "
            "tags (rapid-fire-1 to rapid-fire-7) and ids")


def _closing(args: argparse.Namespace) -> int | None:
    """Minutes for the 30-second answer closing a mock (None: no closing answer)."""
    minutes: int | None = getattr(args, "closing_minutes", None)
    if minutes:
        return minutes
    return 3 if getattr(args, "closing", False) else None
