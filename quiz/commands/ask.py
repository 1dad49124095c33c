"""`quiz ask` and `quiz check`: one variant, asked or graded, for people and scripts."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from questions.derivation import derivation_of, explanation_of
from quiz.commands.common import catalog, plan_cache


def run(args: argparse.Namespace) -> int:
    """Run `quiz ask` or `quiz check`."""
    from questions import stored
    from questions.variants import make_variant, variant_ref

    tid, seed = variant_ref(args.template, args.seed,
                            default=None if args.command == "check" else 0)
    if args.command == "check" and args.step is not None and (args.part or args.earlier):
        from quiz.core.errors import UsageError

        # Steps are numbered over the whole variant: a part beside one was ignored.
        flag = "--part" if args.part else "--earlier"
        raise UsageError(f"--step numbers the steps of the whole question (quiz ask "
                         f"{args.template} --steps lists them); give it without {flag}")
    bank = catalog(args, only=tid)
    if getattr(args, "followup", None) is not None:
        from quiz.core.errors import UsageError

        if getattr(args, "steps", False) or getattr(args, "step", None) is not None:
            raise UsageError("--followup and --steps/--step cannot be combined")
        bank.entry(tid)  # an unknown id: one line with a suggestion
        drawn = make_variant(bank.templates([tid])[tid], seed)
        return _followup(args, drawn)
    if (args.command == "ask" and args.steps) or (args.command == "check"
                                                  and args.step is not None):
        # A walk-through derives its steps with the solver: the template itself.
        bank.entry(tid)  # an unknown id: one line with a suggestion
        drawn = make_variant(bank.templates([tid])[tid], seed)
        return _steps(args, drawn) if args.command == "ask" else _check_step(args, drawn)
    # Drawn from the bank's view with the plans kept: no pydantic, and no sympy once the
    # derivations it needs were derived here before.
    variant = stored.variant(bank, tid, seed, plan_cache(args))
    if args.command == "ask":
        data = ask_json(variant)
        if args.json:
            print(json.dumps(data, indent=2))
        else:
            print(render_ask(variant))
        return 0
    return _check(args, variant)


def _part_json(pv: Any) -> dict[str, Any]:
    from quiz.core.kinds import kind_of

    out: dict[str, Any] = {"prompt": pv.prompt, "answer_kind": pv.kind,
                           "choices": list(pv.spec.choices), "expected": _expected(pv.key),
                           "explanation": explanation_of(pv),
                           "derivation": derivation_of(pv).to_json()}
    if pv.follow is not None:  # graded against earlier answers too (quiz check --earlier)
        out["follow"] = {"parts": [c.part for c in pv.follow.carried],
                         "credit": pv.follow.credit}
    return out | kind_of(pv.kind).json_fields(pv)


def _expected(key: Any) -> dict[str, Any]:
    """The ``expected`` object (one builder for ask and check)."""
    from quiz.core.kinds import expected_json

    return expected_json(key)


def ask_json(variant: Any) -> dict[str, Any]:
    """The `quiz ask --json` object (a scenario also lists every part)."""
    t = variant.template
    first = _part_json(variant.parts[0])
    data: dict[str, Any] = {"template": t.id, "seed": variant.seed, "variant": variant.id,
                            "version": t.version, "title": t.title, "topic": t.topic,
                            "tags": list(t.tags), "difficulty": t.difficulty,
                            "params": variant.params, **first}
    if t.intro:
        data["intro"] = variant.intro
    if len(variant.parts) > 1:
        data["parts"] = [_part_json(p) for p in variant.parts]
    return data


def render_ask(variant: Any) -> str:
    """The human form of `quiz ask`."""
    from quiz.core.kinds import kind_of

    lines = [f"{variant.id}  —  {variant.template.title}  "
             f"(difficulty {variant.template.difficulty})", ""]
    if variant.template.intro:
        lines += [variant.intro, ""]
    for pv in variant.parts:
        if len(variant.parts) > 1:
            lines.append(f"Part {pv.index}:")
        lines.append(pv.prompt)
        lines += kind_of(pv.kind).prompt_lines(pv)
        lines.append("")
    lines.append(f"Answer with: quiz check {variant.id} --answer '...'")
    return "\n".join(lines)


def _check(args: argparse.Namespace, variant: Any) -> int:
    part = args.part or 1
    data, g = check_json(variant, part, args.answer, args.earlier)
    pv = variant.parts[part - 1]
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    print_grade(g, pv, f"{g.verdict.upper()}  (score {g.score:.2f})")
    return 0


def print_grade(g: Any, pv: Any, headline: str) -> None:
    """A grade as `quiz check` prints it: the headline, how the answer was read, the
    key, the mistake named, the feedback and the worked solution."""
    from quiz.core.kinds import kind_of

    print(headline)
    if g.read_as:
        print(f"Read as:  {g.read_as}")
    label = kind_of(pv.kind).key_label
    print(f"Expected: {g.shown_key}" if label == "Key" else f"{label}:\n{pv.key.display}\n")
    if g.mistake:
        print(f"Mistake:  {g.mistake}")
    print(g.feedback)
    print()
    print(explanation_of(pv))


def check_json(variant: Any, part: int, answer: str,
               earlier_answers: Sequence[str] = ()) -> tuple[dict[str, Any], Any]:
    """The `quiz check --json` object for an answer to one part, and its Grade.

    Raises:
        TemplateError: no such part.
        UsageError: more earlier answers than earlier parts, or one that cannot be read.
    """
    from questions.errors import TemplateError
    from quiz.core.errors import UsageError
    from quiz.core.grading import grade, read_earlier
    from solver.formula import Unreadable

    if not 1 <= part <= len(variant.parts):
        raise TemplateError(f"{variant.id} has {len(variant.parts)} part(s); no part "
                            f"{part}")
    pv = variant.parts[part - 1]
    if len(earlier_answers) >= part:
        raise UsageError(f"--earlier gives the answers to parts before part {part}: "
                         f"at most {part - 1}, not {len(earlier_answers)}")
    try:
        earlier = read_earlier(variant.parts, earlier_answers)
    except Unreadable as exc:
        raise UsageError(f"--earlier: {exc}") from None
    g = grade(pv, answer, earlier=earlier)
    data: dict[str, Any] = {
            "template": variant.template.id, "seed": variant.seed, "part": part,
            "verdict": g.verdict, "score": g.score, "read_as": g.read_as,
            "expected": _expected(g.key), "mistake": g.mistake, "feedback": g.feedback,
            "explanation": explanation_of(pv),
            "derivation": derivation_of(pv).with_mistake(g.mistake, g.feedback).to_json()}
    if g.checklist is not None:
        data["checklist"] = g.checklist.to_json()
    return data, g


def _steps(args: argparse.Namespace, variant: Any) -> int:
    """`quiz ask ID --steps`: the walk-through's steps, as questions with their keys."""
    from questions.steps import walk
    from quiz.core.kinds import key_text

    steps = walk(variant).steps
    if args.json:
        print(json.dumps([s.to_json(_expected(s.key)) for s in steps], indent=2))
        return 0
    print(f"{variant.id}  —  {variant.template.title}: {len(steps)} step(s)")
    for s in steps:
        part = f" (part {s.part})" if len(variant.parts) > 1 else ""
        for g in s.given:
            print(f"     given: {g.why}")
        print(f"  {s.index}.{part} {s.prompt}")
        if s.inputs:
            print(f"     using: {', '.join(s.inputs)}")
        print(f"     key: {key_text(s.pv)}")
    print(f"Answer a step with: quiz check {variant.id} --step K --answer '...'")
    return 0


def _check_step(args: argparse.Namespace, variant: Any) -> int:
    """`quiz check ID --seed N --step K`: one step graded like a whole question."""
    from questions.steps import walk
    from quiz.core.grading import grade

    step = walk(variant).step(args.step)
    g = grade(step.pv, args.answer)
    explanation = step.explanation
    data = {"template": variant.template.id, "seed": variant.seed, "part": step.part,
            "step": step.index, "quantity": step.quantity, "verdict": g.verdict,
            "score": g.score, "read_as": g.read_as, "expected": _expected(g.key),
            "mistake": g.mistake, "feedback": g.feedback, "explanation": explanation}
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    print(f"{g.verdict.upper()}  (score {g.score:.2f})  step {step.index}: {step.prompt}")
    if g.read_as:
        print(f"Read as:  {g.read_as}")
    print(f"Expected: {g.shown_key}")
    if g.mistake:
        print(f"Mistake:  {g.mistake}")
    print(g.feedback)
    if g.verdict != "correct":
        print()
        print(explanation)
    return 0


def followup_ask_json(fu: Any, variant: Any) -> dict[str, Any]:
    """`quiz ask ID#SEED --followup K --json`: the shape of `ask --json` (the changed
    variant's parameters, the follow-up's prompt, key and explanation) plus
    ``followup`` (index, of, changes, family, ask, said, harder)."""
    t = variant.template
    return {"template": t.id, "seed": variant.seed, "variant": variant.id,
            "version": t.version, "title": t.title, "topic": t.topic,
            "tags": list(t.tags), "difficulty": t.difficulty, "params": fu.params,
            **_part_json(fu.pv), "followup": fu.to_json()}


def followup_check_json(fu: Any, variant: Any, answer: str) -> tuple[dict[str, Any], Any]:
    """`quiz check ID --seed N --followup K --answer T --json` and its Grade."""
    from quiz.core.grading import grade

    g = grade(fu.pv, answer)
    data: dict[str, Any] = {
        "template": variant.template.id, "seed": variant.seed,
        "part": fu.extra.get("part", 1), "verdict": g.verdict, "score": g.score,
        "read_as": g.read_as, "expected": _expected(g.key), "mistake": g.mistake,
        "feedback": g.feedback, "explanation": explanation_of(fu.pv),
        "derivation": derivation_of(fu.pv).with_mistake(g.mistake, g.feedback).to_json(),
        "followup": fu.to_json()}
    if g.checklist is not None:
        data["checklist"] = g.checklist.to_json()
    return data, g


def _followup(args: argparse.Namespace, variant: Any) -> int:
    """`quiz ask ID#SEED --followup K` and `quiz check ID --seed N --followup K`."""
    from questions.followups import draw
    from quiz.core.kinds import kind_of

    fu = draw(variant, args.followup)
    pv = fu.pv
    if args.command == "ask":
        if args.json:
            print(json.dumps(followup_ask_json(fu, variant), indent=2))
            return 0
        lines = [f"{variant.id}  follow-up {fu.index} ({fu.family})  —  "
                 f"{variant.template.title}", "", pv.prompt, *kind_of(pv.kind).prompt_lines(pv),
                 "", f"Answer with: quiz check {variant.id} --followup {fu.index} "
                 "--answer '...'"]
        print("\n".join(lines))
        return 0
    data, g = followup_check_json(fu, variant, args.answer)
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    print_grade(g, pv, f"{g.verdict.upper()}  (score {g.score:.2f})  follow-up {fu.index}: "
                f"{fu.said}")
    return 0
