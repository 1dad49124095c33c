"""`quiz learn [ITEM|TEMPLATE_ID#SEED] [--plain]`: walk through questions step by step.

In a terminal it opens the app's Learn mode; with ``--plain`` (or without a terminal)
it runs line by line: each step asked, a wrong step explained and asked again
(``:reveal`` shows it and goes on), then the question whole (a guided attempt) and, for
an item or topic, a fresh variant cold. Every whole and cold answer is committed to the
history before the next line is printed.
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from quiz.core.learn import Walkthrough


def add_parser(sub: Any) -> None:
    """Register `learn`."""
    p = sub.add_parser("learn")
    p.add_argument("target", nargs="?",
                   help="a rapid-fire item (rapid-fire-1), topic, tag, or one variant as "
                        "TEMPLATE_ID#SEED")
    p.add_argument("--plain", action="store_true",
                   help="line by line in this terminal instead of the full-screen app")


def run(args: argparse.Namespace) -> int:
    """Open Learn mode in the app, or walk through line by line (``--plain``)."""
    if not args.plain and sys.stdin.isatty():
        from quiz.commands.app import run as run_app

        return run_app(args)
    return _plain(args)


def _plain(args: argparse.Namespace) -> int:
    from questions.variants import make_variant
    from quiz.core.learn import Walkthrough, bank_templates, progress_in, target_of
    from quiz.core.state import load_bank_for, open_light

    state = open_light(args.data_dir, args.templates or [])
    for w in state.warnings:
        print(f"warning: {w}", file=sys.stderr)
    bank = load_bank_for(state)
    if not args.target:
        print("Learn: walk through an item's or topic's questions step by step.")
        for p in progress_in(state.store, bank_templates(bank)):
            print(f"  {p.group:<22} {p.learned} of {p.templates} learned")
        print("Start one with: quiz learn rapid-fire-1 --plain (or a topic, or ID#SEED)")
        return 0
    ids, single = target_of(bank, args.target)
    rng = random.Random()
    walks: list[tuple[str, int, int | None]] = (
        [(single[0], single[1], None)] if single
        else [(tid, rng.randrange(1_000_000), rng.randrange(1_000_000)) for tid in ids])
    print("Learn. Type each answer and press Enter; :reveal shows a step, :quit stops.")
    for tid, seed, cold_seed in walks:
        template = bank.get(tid)
        cold = make_variant(template, cold_seed) if cold_seed is not None else None
        walkthrough = Walkthrough(make_variant(template, seed), state.store,
                                  state.settings, cold=cold)
        if not _walk(walkthrough):
            print("\nStopped. Your whole and cold answers are saved.")
            return 0
    print("\nDone.")
    return 0


def _walk(w: Walkthrough) -> bool:
    """One walk-through on stdin/stdout; False when the user quits."""
    from quiz.core.kinds import key_text, kind_of

    v = w.variant
    print(f"\n[{v.id}] {v.template.title}")
    print(v.intro if v.template.intro else v.parts[0].prompt)
    while not w.finished:
        step = w.step
        if step is not None:
            for given in step.given:
                print(f"  given: {given.why}")
            print(f"\n{w.label}. {w.prompt}")
            if step.inputs:
                print(f"  using: {', '.join(step.inputs)}")
        else:
            part = w.part
            assert part is not None
            lead_in = w.lead_in if w.phase == "whole" else None
            for given in lead_in.given if lead_in else ():
                print(f"  given: {given.why}")
            print(f"\n{w.label}:\n{w.prompt}")
            if lead_in is not None and lead_in.inputs:
                print(f"  using: {', '.join(lead_in.inputs)}")
            for line in kind_of(part.kind).prompt_lines(part):
                print(line)
        print("> ", end="", flush=True)
        line = sys.stdin.readline()
        if not line or line.strip() == ":quit":
            return False
        text = line.strip()
        if text == ":reveal":
            shown = w.reveal()
            if shown is None:
                print("Only a step can be revealed; answer the question itself.")
            else:
                print(f"Answer: {key_text(shown.pv)}\n{shown.explanation}")
            continue
        a = w.submit(text)
        g = a.grade
        if g.verdict == "invalid":
            print(f"Can't read that (nothing counted): {g.feedback}")
            continue
        print(f"{g.verdict.upper()}; read as {g.read_as}"
              + (f"; key {g.shown_key}" if a.phase != "step" or a.advanced else ""))
        if g.mistake:
            print(f"Mistake: {g.mistake}")
        if a.phase == "step" and not a.advanced:
            print(g.feedback)
            print(f"How this step goes:\n{a.explanation}\nTry again, or :reveal.")
        elif a.phase != "step":
            print(g.feedback)
            print(f"({'guided' if a.phase == 'whole' else 'cold'} attempt saved)")
    return True
