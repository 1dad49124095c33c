"""`quiz drill --plain`: the daily drill line by line, for pipes and plain terminals.

Each answer is committed to the history before the next question is printed, so the
process can be killed at any moment without losing an answered question.
"""

from __future__ import annotations

import argparse
import sys

COMMANDS = {":hint": "a hint (it costs part of the score)",
            ":skip": "put the question off until after the rest",
            ":quit": "stop (every answer is already saved)"}
"""What can be typed instead of an answer, and what it does."""


def run(args: argparse.Namespace) -> int:
    """Run the drill reading answers from stdin; `:hint`, `:skip` and `:quit` work."""
    from quiz.core.drill import DrillSession
    from quiz.core.errors import StoreError
    from quiz.core.kinds import kind_of
    from quiz.core.state import load_bank_for, open_light

    state = open_light(args.data_dir, args.templates or [])
    for w in state.warnings:
        print(f"warning: {w}", file=sys.stderr)
    bank = load_bank_for(state)
    for p in bank.problems:
        print(f"warning: skipped {p}", file=sys.stderr)
    session = DrillSession(bank, state.store, state.settings)
    answered = 0
    print("Daily drill. Type an answer and press Enter: the verdict and the worked "
          "solution follow. Or type")
    for command, what in COMMANDS.items():
        print(f"  {command}  {what}")
    shown = 0
    q = session.next()
    while True:
        for warning in session.warnings[shown:]:
            print(f"warning: {warning}", file=sys.stderr)
        shown = len(session.warnings)
        if q is None:
            print(f"Nothing more is due today. {_answered(answered)}.")
            return 0
        print(f"\n[{q.label}] {q.template.title}\n{q.prompt}")
        kind = kind_of(q.part.kind)
        for line in kind.prompt_lines(q.part):
            print(line)
        if kind.paragraph:
            print("  (Several lines are fine: an empty line ends the answer.)")
        unsaved: str | None = None  # an answer the history could not take yet
        while True:
            print("> ", end="", flush=True)
            line = sys.stdin.readline()
            text = line.strip()
            if not line or text == ":quit":
                if unsaved is not None:
                    print(f"\nNot saved: {unsaved!r}.", end="")
                print(f"\nStopped. {_answered(answered)}.")
                return 0
            if kind.paragraph and text and not text.startswith(":"):
                text = _rest_of_paragraph(text)
            if text == ":hint":
                print(session.hint() or "No more hints.")
                continue
            if text == ":skip":
                print("Skipped: it comes back after the rest.")
                q = session.skip()
                break
            if text.startswith(":") and text[1:].isalpha():
                print(f"Unknown command {text}; type {', '.join(COMMANDS)} or an answer.")
                continue
            if not text and unsaved is not None:
                text = unsaved
            try:
                out = session.submit(text)
            except StoreError as exc:
                # A read-only file, a full disk, a lock held too long: keep the answer.
                unsaved = text
                print(f"Could not save your answer: {exc}")
                print("Press Enter to try again (your answer is kept), type another "
                      "answer, or :quit.", flush=True)
                continue
            unsaved = None
            g = out.grade
            if g.verdict == "invalid":
                print(f"Can't read that (no attempt used): {g.feedback}")
                continue
            answered += 1
            shown_key = "" if kind.paragraph else f"; key {g.shown_key}"
            print(f"{g.verdict.upper()} (score {g.score:.2f}); read as {g.read_as}"
                  f"{shown_key}")
            if g.mistake:
                print(f"Mistake: {g.mistake}")
            print(g.feedback)
            if kind.paragraph:
                print(f"\n{kind.key_label}:\n{g.key.display}")
            print("\nWorked solution:")
            from questions.derivation import derivation_of

            print(derivation_of(q.part).text(), flush=True)
            q = session.next()
            break


def _rest_of_paragraph(first: str) -> str:
    """A paragraph answer: the first line and those after it, up to an empty line."""
    lines = [first]
    while True:
        line = sys.stdin.readline()
        if not line.strip():
            return "\n".join(lines)
        lines.append(line.rstrip("\n"))


def _answered(n: int) -> str:
    return f"{n} answered"
