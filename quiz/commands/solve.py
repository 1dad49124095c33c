"""`quiz solve`: derive one quantity, with its formula, substitution and result."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from solver.engine import Result
    from solver.keys import Value


def parse_sets(pairs: list[str]) -> dict[str, str]:
    """Turn `KEY=VALUE` strings into a dict.

    Raises:
        SolverError: a pair without `=`, or a key given twice.
    """
    from solver.errors import SolverError

    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise SolverError(f"--set takes KEY=VALUE, not {pair!r}")
        if key.strip() in out:
            raise SolverError(f"--set {key.strip()} is given twice ({out[key.strip()]!r} "
                              f"and {value.strip()!r}); give it once")
        out[key.strip()] = value.strip()
    return out


def read_sets(pairs: list[str]) -> dict[str, Value]:
    """`KEY=VALUE` strings as solver overrides, numbers read by the answer reader.

    A number is read exactly as a typed answer is (``70.5bn``, ``1,130``, ``2^30``,
    ``80 GB``, ``400 Gb/s``), in the key's base unit, so ``--set`` and the question
    screen never disagree about what a number means. Flags and choices, and keys the
    solver does not know, go to the solver as typed: it names the problem.

    Raises:
        SolverError: a pair without `=`, a key given twice, or a number that cannot be
            read (with what was wrong and an example).
    """
    from quiz.core.reading import Unreadable, read_number
    from solver.errors import SolverError
    from solver.inputs import read_length
    from solver.keys import KEYS
    from solver.units import BASE_UNITS

    out: dict[str, Value] = {}
    for name, text in parse_sets(pairs).items():
        key = KEYS.get(name)
        if key is None or key.kind not in ("int", "float") or key.unit not in BASE_UNITS:
            out[name] = text
            continue
        length = read_length(name, text)  # seq=128K: 131,072 tokens, not 128,000
        if length is not None:
            out[name] = length
            continue
        try:
            out[name] = read_number(text, key.unit).value
        except Unreadable as exc:
            example = f" (e.g. {exc.example})" if exc.example else ""
            raise SolverError(f"{name} needs a number, not {text!r}: "
                              f"{exc.message}{example}") from None
    return out


def run(args: argparse.Namespace) -> int:
    """Run `quiz solve` for parsed arguments; returns the exit code."""
    from solver.errors import SolverError

    if args.list:
        from solver.engine import list_quantities

        rows = list_quantities()
        if args.json:
            print(json.dumps(rows, indent=2))
        else:
            from quiz.commands.table import render_table, terminal_width

            print(render_table([[r["quantity"], r["unit"], r["meaning"]] for r in rows],
                               width=terminal_width()))
        return 0
    if args.keys or args.presets:
        rows = keys_rows() if args.keys else preset_rows()
        if args.keys and args.presets:
            rows += preset_rows()
        if args.json:
            print(json.dumps(rows, indent=2))
        else:
            print(_table(rows))
        return 0
    if not args.quantity:
        raise SolverError("quiz solve needs a QUANTITY (see quiz solve --list)")
    overrides = read_sets(args.set or [])
    # Run from the plans the data folder keeps (questions.plancache): once this quantity
    # was derived under these conventions, no sympy (most of a one-shot solve's time).
    from questions.plancache import PlanFile
    from quiz.commands.common import plan_cache
    from solver import light

    source = PlanFile(plan_cache(args))
    with light.using(source):  # (the human output reads the quantities' meanings)
        # A formula with no value here (it divides by an input that is 0, say an
        # expert count on a dense model) raises solver.errors.Undefined: one line.
        result = light.result(args.quantity, model=args.model, gpu=args.gpu,
                              overrides=overrides)
        if args.json:
            print(json.dumps(result.to_json(), indent=2))
        else:
            for line in read_as_lines(args.set or []):
                print(line)
            print(render(result, model=args.model, gpu=args.gpu))
    source.save()
    for w in result.warnings:
        print(f"warning: {w}", file=sys.stderr)
    return 0


def read_as_lines(pairs: list[str]) -> list[str]:
    """"Read as" lines for the `--set` values whose reading is not the obvious one: a
    length written with K, which counts 1,024 (``seq=128K`` is 131,072 tokens)."""
    from solver.inputs import BINARY_K, read_length

    out = []
    for name, text in parse_sets(pairs).items():
        length = read_length(name, text)
        if length is not None:
            out.append(f"Read as: {name} = {text} = {length:,.0f} tokens (a sequence or "
                       f"vocabulary length's K is {BINARY_K:,}; params, tokens and money "
                       "keep K = 1,000)")
    return out


def keys_rows() -> list[dict[str, str]]:
    """Every solver key: name, group, unit, default and meaning (choices listed)."""
    from solver.keys import KEYS

    rows = []
    for k in KEYS.values():
        default = "derived" if k.default is None else (
            f"{k.default:g}" if isinstance(k.default, float) else str(k.default))
        meaning = k.description + (f" ({' | '.join(k.choices)})" if k.choices else "")
        rows.append({"key": k.name, "group": k.group, "unit": k.unit or "-",
                     "default": default, "meaning": meaning})
    return rows


def preset_rows() -> list[dict[str, str]]:
    """Every model and GPU preset: what to write in a template, and what people read."""
    from questions.variants import short_name
    from solver.presets import GPUS, MODELS

    return ([{"preset": n, "kind": "model", "short": short_name("model", n),
              "title": p.title} for n, p in MODELS.items()]
            + [{"preset": n, "kind": "gpu", "short": short_name("gpu", n), "title": p.title}
               for n, p in GPUS.items()])


def _table(rows: list[dict[str, str]]) -> str:
    """Rows of the same fields as aligned columns under their names, the last one
    wrapping to fit the terminal."""
    from quiz.commands.table import render_table, terminal_width

    tables: list[str] = []
    for group in ([r for r in rows if "key" in r], [r for r in rows if "preset" in r]):
        if group:
            fields = list(group[0])
            tables.append(render_table([fields, *([r[f] for f in fields] for r in group)],
                                       width=terminal_width()))
    return "\n\n".join(tables)


def render(result: Result, *, model: str | None, gpu: str | None) -> str:
    """The human form: the same step layout as every worked solution in the app."""
    from questions.derivation import Derivation, result_section

    # The model's own shape choices (mlp, norm ...) are facts of the preset, not
    # conventions, unless the question is the parameter count itself.
    shape = result.quantity in ("params", "active_params", "params_per_gpu")
    given = ", ".join(g for g in (f"model {model}" if model else "",
                                  f"gpu {gpu}" if gpu else "") if g)
    value = f"{result.value:.6g} {result.unit}".replace("e+", "e")
    extra = f" ({result.display_iec})" if result.display_iec != result.display else ""
    d = Derivation(intro=f"Given {given}." if given else "",
                   sections=(result_section(result, shape_shown=shape),),
                   answer=f"{result.quantity} = {result.display}{extra}  [{value}]")
    return d.text()
