"""What creating dataclasses costs a start, before its first frame.

Python 3.11 writes each method a dataclass gets (``__init__``, ``__repr__``, ``__eq__``,
``__hash__``, and a frozen class's ``__setattr__``/``__delattr__``) as source text and
compiles it with ``exec``: 0.1-0.2 ms of CPU a method, 0.4-1.7 ms a class. A start
creates every dataclass of every module it imports, whether or not it makes one.

Two figures, for `quiz drill` to its first question (or the home, ``--home``):

- the default: each dataclass the start creates before its frame, with the CPU its
  creation took (collections held off while it is timed), the least of ``--runs``
  processes, largest first, and their sum against the start's CPU to the frame (the
  ``--cpu`` probe of ``bench_startup.py``);
- ``--instructions``: instruction counts (``valgrind --tool=callgrind``: repeatable on a
  loaded machine) of importing the modules of quiz, questions and solver that start
  imported, in its order, after Textual: with the dataclasses as written, with ``eq``
  and ``repr`` turned off, with only ``__init__``, and with a stand-in that records
  the fields and compiles nothing (what the classes cost without generated code); and
  Textual alone. Each variant is one process with ``PYTHONHASHSEED=0``;
- ``--whole``: the same for the whole start to its frame, as written and with the
  stand-in, against the minimal Textual app (``bench_startup.py``'s ``--cpu`` probe).

Run: python bench/startup_classes.py [--home] [--runs N] [--instructions] [--whole]
(from a regular install, as ``bench_startup.py``; a data folder is made in a temp folder.)
Asserts nothing; bench/README.md, "Drill's first question", has what it found.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

OURS = ("quiz", "questions", "solver")
"""The packages whose classes are counted (written out in the two scripts below)."""

PROBE = """\
import gc, json, os, sys, time, dataclasses
created = []
_process = dataclasses._process_class


def timed(cls, *args):
    enabled = gc.isenabled()
    gc.disable()  # a collection that falls here is not the class's cost
    start = time.process_time()
    try:
        return _process(cls, *args)
    finally:
        created.append((f"{cls.__module__}.{cls.__qualname__}", time.process_time() - start))
        if enabled:
            gc.enable()


dataclasses._process_class = timed
from textual.app import App

TEXTS = tuple(sys.argv[2:])
_display = App._display


def display(self, screen, renderable):
    _display(self, screen, renderable)
    if renderable is not None and any(t in renderable.render_segments(self.console)
                                      for t in TEXTS):
        modules = [m for m in sys.modules if m.split(".")[0] in ("quiz", "questions", "solver")]
        print(json.dumps({"cpu": time.process_time(), "created": created,
                          "modules": modules}), flush=True)
        os._exit(0)


def run(self, *args, **kwargs):
    return _run(self, *args, **{**kwargs, "headless": True, "size": (120, 40)})


App._display, _run, App.run = display, App.run, run
from quiz.cli import main

sys.stdin = os.fdopen(os.openpty()[1])
main(sys.argv[1].split())
sys.exit("the text never showed")
"""
"""Runs a start headless (as ``bench_startup.py --cpu``) and prints, when the frame with
the text is rendered, the process's CPU, each dataclass created and its creation's CPU,
and the modules of quiz, questions and solver imported so far."""

HOOK = """\
import dataclasses
_process = dataclasses._process_class


def forced(cls, init, repr, eq, order, unsafe_hash, frozen, match_args, kw_only, slots,
           weakref_slot=False):
    if cls.__module__.split(".")[0] in ("quiz", "questions", "solver"):
        if variant in ("no-eq-repr", "init-only"):
            repr = eq = False
        if variant == "init-only":
            frozen = False
        if variant == "no-code":
            return stand_in(cls, init)
    return _process(cls, init, repr, eq, order, unsafe_hash, frozen, match_args, kw_only,
                    slots, weakref_slot)


def stand_in(cls, init):
    # The fields recorded as dataclasses records them, one shared __init__, no source
    # compiled: a measuring device, not a dataclass (no eq, repr, hash or frozen).
    fields = {}
    for base in cls.__mro__[-1:0:-1]:
        fields.update(getattr(base, "__dataclass_fields__", {}))
    for name, type_ in cls.__dict__.get("__annotations__", {}).items():
        default = cls.__dict__.get(name, dataclasses.MISSING)
        f = default if isinstance(default, dataclasses.Field) else dataclasses.field(
            default=default)
        f.name, f.type, f._field_type = name, type_, dataclasses._FIELD
        if isinstance(default, dataclasses.Field):
            if f.default is dataclasses.MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
        fields[name] = f
    cls.__dataclass_fields__ = fields
    names = list(fields)

    def __init__(self, *args, **kwargs):
        values = dict(zip(names, args), **kwargs)
        for n, f in fields.items():
            if n not in values:
                values[n] = (f.default_factory() if f.default_factory is not
                             dataclasses.MISSING else f.default)
            object.__setattr__(self, n, values[n])
        if hasattr(self, "__post_init__"):
            self.__post_init__()

    if init and "__init__" not in cls.__dict__:
        cls.__init__ = __init__
    return cls


dataclasses._process_class = forced
"""
"""Makes the dataclasses of quiz, questions and solver (after ``variant`` is set) as
written (``as-written``), without ``eq`` and ``repr`` (``no-eq-repr``), with only
``__init__`` (``init-only``) or by a stand-in that compiles nothing (``no-code``)."""

IMPORTS = """\
import importlib, sys
import textual.app, textual.widgets
variant, names = sys.argv[1], sys.argv[2:]
""" + HOOK + """\
if variant != "textual":
    for name in names:
        importlib.import_module(name)
"""
"""Imports Textual, then the given modules with the dataclasses made as ``variant``
says (:data:`HOOK`); ``textual``: Textual alone."""


def start(probe: Path, data: Path, home: bool) -> dict[str, object]:
    """One start to its frame: what :data:`PROBE` prints."""
    from bench_startup import QUESTION, USABLE

    args = [f"--data-dir {data}"] if home else [f"--data-dir {data} drill"]
    texts = USABLE if home else QUESTION
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run([sys.executable, str(probe), *args, *texts], capture_output=True,
                          text=True, env=env, check=False, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip()[-800:])
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def instructions(script: Path, variant: str, modules: list[str],
                 direct: bool = False) -> int:
    """Instructions of one :data:`IMPORTS` run under callgrind (``direct``: of
    ``script`` run with ``modules`` as its arguments)."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    argv = modules if direct else [variant, *modules]
    with tempfile.TemporaryDirectory() as out:
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}/cg.out",
             sys.executable, str(script), *argv],
            capture_output=True, text=True, env=env, check=False)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise RuntimeError(done.stderr.strip()[-800:])
    return int(found.group(1))


def whole(variant: str, data: Path, home: bool, tmp: Path) -> int:
    """Instructions of one whole start to its frame (``bench_startup.py``'s ``--cpu``
    probe under callgrind), the dataclasses made as ``variant`` says; ``minimal``: the
    minimal Textual app."""
    from bench_startup import CPU_PROBE, QUESTION, USABLE

    script = tmp / f"whole-{variant}.py"
    script.write_text(CPU_PROBE if variant in ("minimal", "as-written") else
                      f"variant = {variant!r}\n" + HOOK + CPU_PROBE)
    if variant == "minimal":
        args: list[str] = ["minimal", "ready"]
    else:
        args = [f"--data-dir {data}" + ("" if home else " drill"),
                *(USABLE if home else QUESTION)]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, str(script), *args], capture_output=True, env=env,
                   check=True, timeout=120)  # warm: bytecode, caches
    return instructions(script, "", args, direct=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", action="store_true",
                        help="the home until usable instead of the drill's first question")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--instructions", action="store_true",
                        help="also count the instructions of the imports (callgrind)")
    parser.add_argument("--whole", action="store_true",
                        help="also count the instructions of the whole start, as written "
                        "and with the stand-in, against the minimal app (callgrind)")
    args = parser.parse_args()
    from bench_history import build_history

    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "probe.py"
        probe.write_text(PROBE)
        data = Path(tmp) / "data"
        build_history(data, 20)
        start(probe, data, args.home)  # warm-up: bytecode, caches, today's backup
        runs = [start(probe, data, args.home) for _ in range(args.runs)]
        least: dict[str, float] = {}
        for run in runs:
            created = run["created"]
            assert isinstance(created, list)
            for name, cpu in created:
                least[name] = min(cpu, least.get(name, cpu))
        cpus = sorted(float(str(run["cpu"])) for run in runs)
        ours = {n: c for n, c in least.items() if n.split(".")[0] in OURS}
        what = "home usable" if args.home else "drill's first question"
        print(f"{what}: CPU to the frame {cpus[len(cpus) // 2] * 1000:.0f} ms (median of "
              f"{len(cpus)}, {cpus[0] * 1000:.0f}-{cpus[-1] * 1000:.0f}); load "
              f"{os.getloadavg()[0]:.1f}")
        print(f"dataclasses created before it: {len(least)}, {sum(least.values()) * 1000:.1f}"
              f" ms (least of {len(runs)} runs each); of quiz, questions and solver "
              f"{len(ours)}, {sum(ours.values()) * 1000:.1f} ms")
        for name, cpu in sorted(least.items(), key=lambda item: -item[1]):
            print(f"{cpu * 1000:6.2f} ms  {name}")
        if args.instructions:
            modules = runs[0]["modules"]
            assert isinstance(modules, list)
            script = Path(tmp) / "imports.py"
            script.write_text(IMPORTS)
            counts = {v: instructions(script, v, modules) for v in
                      ("textual", "as-written", "no-eq-repr", "init-only", "no-code")}
            base = counts["as-written"] - counts["textual"]
            print(f"instructions, importing the {len(modules)} modules after Textual "
                  f"({counts['textual'] / 1e6:,.1f} M for Textual alone):")
            for variant, count in counts.items():
                if variant != "textual":
                    print(f"  {variant:<11} {(count - counts['textual']) / 1e6:8,.1f} M "
                          f"({(count - counts['textual']) / base:.2f}x as written)")
        if args.whole:
            minimal = whole("minimal", data, args.home, Path(tmp))
            print(f"instructions, the whole start to its frame (minimal app "
                  f"{minimal / 1e6:,.1f} M):")
            for variant in ("as-written", "no-code"):
                count = whole(variant, data, args.home, Path(tmp))
                print(f"  {variant:<11} {count / 1e6:8,.1f} M ({count / minimal:.3f}x the "
                      "minimal app)")


if __name__ == "__main__":
    main()
