"""The one way the app evaluates quantities and works derivations: plans.

:func:`evaluate` and :func:`solve` run :class:`solver.plan.Plan` objects. The engine
(:mod:`solver.engine`, sympy) derives a plan once per (quantity, conventions, given
quantities) and this process keeps it in memory (the engine's own cache). While a
*source* is in use (:func:`using`: :mod:`questions.stored` keeps plans on disk, so that a
one-shot ``quiz ask`` of a new seed imports no sympy), plans are read from it first and
a plan it lacks is derived and given to it; the quantity catalogue (:data:`QUANTITIES`:
names, units, meanings) then comes from the source too.

sympy is imported only to derive a plan nothing holds, or to print a substitution whose
numbers only sympy's printer decides the signs of (a negative or infinite one).
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterator, KeysView, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from solver.errors import SolverError
from solver.inputs import Ctx, Inputs, _suggest, ctx_of, resolve_inputs
from solver.keys import Value
from solver.plan import (
    Plan,
    Result,
    evaluate_with,
    given_quantities,
    given_result,
    key_text,
    load_plan,
    planned_result,
    worked,
)
from solver.plan import (
    Worked as Worked,  # re-exported: solve returns one
)
from solver.plan import number as number  # re-exported: derivations show numbers so

if TYPE_CHECKING:
    from typing import Protocol

    class Source(Protocol):
        """Where plans are kept between processes: JSON texts by key."""

        def get(self, key: str) -> str | None:
            """The text stored under ``key`` (None: none)."""

        def put(self, key: str, text: str) -> None:
            """Store ``text`` under ``key``."""


# ---------------------------------------------------------------- the quantity catalogue


class Info(NamedTuple):
    """A quantity's name, base unit and meaning (what drawing reads of the catalogue)."""

    name: str
    unit: str
    meaning: str


class _Catalogue(Mapping[str, Any]):
    """The quantities by name: the source's copy of the engine's table while a source
    is in use, else the copy shipped with the package (:mod:`solver.shipped`), else the
    engine's table (so that listing names or reading a unit imports no sympy)."""

    _engine: Mapping[str, Any] | None = None

    def _table(self) -> Mapping[str, Any]:
        source = _state.source
        if source is None:
            if self._engine is None:
                self._engine = _shipped_meta()
            if self._engine is None:
                from solver.quantities import QUANTITIES as table

                self._engine = table
            return self._engine
        if _state.meta is None:
            _state.meta = _load_meta(source)
        return _state.meta

    def __getitem__(self, name: str) -> Any:
        return self._table()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())

    def __contains__(self, name: object) -> bool:
        return name in self._table()

    def keys(self) -> KeysView[str]:
        return self._table().keys()  # the table's own view: set operations run in C


QUANTITIES: Mapping[str, Any] = _Catalogue()
"""Every quantity by name; each value has ``.name``, ``.unit`` and ``.meaning``."""

CATALOGUE_KEY = "quantities"
"""The key a source keeps the quantity catalogue under (:func:`catalogue_json`)."""


def _load_meta(source: Source) -> dict[str, Info]:
    text = source.get(CATALOGUE_KEY)
    if text is not None:
        with contextlib.suppress(ValueError, TypeError):
            return {name: Info(name, str(unit), str(meaning))
                    for name, (unit, meaning) in json.loads(text).items()}
    text = catalogue_json()
    source.put(CATALOGUE_KEY, text)
    return {name: Info(name, unit, meaning)
            for name, (unit, meaning) in json.loads(text).items()}


def _shipped_meta() -> dict[str, Info] | None:
    """The catalogue shipped with the package (:mod:`solver.shipped`), if current."""
    from solver import shipped

    text = shipped.get(CATALOGUE_KEY)
    if text is not None:
        with contextlib.suppress(ValueError, TypeError):
            return {name: Info(name, str(unit), str(meaning))
                    for name, (unit, meaning) in json.loads(text).items()}
    return None


def catalogue_json() -> str:
    """The quantity catalogue (names, units, meanings) as the JSON text a source keeps
    under ``"quantities"``: the copy shipped with the package when it is current, else
    from the engine's table (which imports sympy)."""
    from solver import shipped

    text = shipped.get(CATALOGUE_KEY)
    if text is not None:
        return text
    from solver.quantities import QUANTITIES as table

    return json.dumps({q.name: [q.unit, q.meaning] for q in table.values()})


# ---------------------------------------------------------------- state


class _State(threading.local):
    source: Source | None = None
    meta: dict[str, Info] | None = None
    plans: dict[str, Plan]

    def __init__(self) -> None:
        self.plans = {}


_state = _State()


@contextlib.contextmanager
def using(source: Source) -> Iterator[None]:
    """Read and keep plans (and the catalogue) in ``source`` within the block (this
    thread only); a plan it lacks is derived by the engine and put there."""
    before = (_state.source, _state.meta, _state.plans)
    _state.source, _state.meta, _state.plans = source, None, {}
    try:
        yield
    finally:
        _state.source, _state.meta, _state.plans = before


def plan(name: str, ctx: Ctx, given: frozenset[str]) -> Plan:
    """The plan of ``name`` under ``ctx``: from the source in use, else derived by the
    engine (kept in memory, and given to the source).

    Raises:
        SolverError: unknown quantity.
    """
    source = _state.source
    if source is None:
        return _SHIPPED_PLANS.get((name, ctx, given)) or _shipped_or_derived(name, ctx, given)
    key = key_text(name, ctx, given)
    found = _state.plans.get(key)
    if found is not None:
        return found
    text = source.get(key)
    if text is not None:
        with contextlib.suppress(ValueError, KeyError, TypeError):
            found = load_plan(json.loads(text))
    if found is None:
        from solver.engine import plan as derive
        from solver.engine import plan_data

        found = derive(name, ctx, given)
        data = plan_data(name, ctx, given)
        if data is not None:
            source.put(key, json.dumps(data))
    _state.plans[key] = found
    return found


_SHIPPED_PLANS: dict[tuple[str, Ctx, frozenset[str]], Plan] = {}
"""Plans read from the package's copy outside a source, by what they were asked for."""


def _shipped_or_derived(name: str, ctx: Ctx, given: frozenset[str]) -> Plan:
    """Outside a source: the plan the package ships (:mod:`solver.shipped`, current for
    this code: what the engine derives, a test holds them equal), else the engine's. So
    the app's first question of a bundled template needs no sympy either."""
    from solver import shipped

    text = shipped.get(key_text(name, ctx, given))
    if text is not None:
        with contextlib.suppress(ValueError, KeyError, TypeError):
            found = load_plan(json.loads(text))
            _SHIPPED_PLANS[(name, ctx, given)] = found
            return found
    return _engine_plan()(name, ctx, given)


_ENGINE_PLAN: list[Callable[[str, Ctx, frozenset[str]], Plan]] = []


def _engine_plan() -> Callable[[str, Ctx, frozenset[str]], Plan]:
    """:func:`solver.engine.plan`, imported (sympy) when first needed."""
    if not _ENGINE_PLAN:
        from solver.engine import plan as derive

        _ENGINE_PLAN.append(derive)
    return _ENGINE_PLAN[0]


# ---------------------------------------------------------------- evaluating and solving


def evaluate(names: list[str] | tuple[str, ...], inputs: Inputs) -> dict[str, float]:
    """Evaluate several quantities for resolved inputs (fast after the first call).

    Raises:
        SolverError: unknown quantity, or an input the formula needs is missing.
    """
    return evaluate_with(names, inputs, QUANTITIES.keys(), plan)


def solve(name: str, *, model: str | None = None, gpu: str | None = None,
          overrides: Mapping[str, Value] | None = None) -> Worked:
    """The worked steps of ``name`` for a model, a GPU and overrides (the steps
    :func:`solver.engine.solve` shows, from the same plan).

    Raises:
        SolverError: as :func:`solver.engine.solve`.
    """
    if name not in QUANTITIES:
        raise SolverError(f"unknown quantity {name!r}{_suggest(name, QUANTITIES)}; "
                          "see quiz solve --list")
    inp = resolve_inputs(model, gpu, overrides)
    given = given_quantities(inp.values, inp.origin, name, QUANTITIES.keys())
    if name in given:
        return Worked(name, (), {})
    ctx = ctx_of(inp.values)
    found = plan(name, ctx, given)
    _, steps, conventions = worked(found, inp.values)
    if steps is None:  # a number only sympy's printer signs: the engine's own plan
        from solver.engine import plan as derive

        _, steps, conventions = worked(derive(name, ctx, given), inp.values)
        assert steps is not None  # the engine's plans print every substitution
    return Worked(name, steps, conventions)


def result(name: str, *, model: str | None = None, gpu: str | None = None,
           overrides: Mapping[str, Value] | None = None) -> Result:
    """:func:`solver.engine.solve`'s :class:`~solver.plan.Result` (the same texts and
    numbers), from the source's plan while one is in use and that plan keeps its
    expanded formula; otherwise the engine's, whose plan (expanded formula included) is
    then given to the source.

    Raises:
        SolverError: as :func:`solver.engine.solve`.
    """
    source = _state.source
    if source is not None:
        if name not in QUANTITIES:
            raise SolverError(f"unknown quantity {name!r}{_suggest(name, QUANTITIES)}; "
                              "see quiz solve --list")
        inp = resolve_inputs(model, gpu, overrides)
        given = given_quantities(inp.values, inp.origin, name, QUANTITIES.keys())
        unit = QUANTITIES[name].unit
        if name in given:
            return given_result(name, unit, inp)
        ctx = ctx_of(inp.values)
        found = plan(name, ctx, given)
        if found.expanded is not None:
            got = planned_result(found, unit, inp, found.expanded)
            if got is not None:
                return got
    from solver.engine import plan_data
    from solver.engine import solve as derive

    got = derive(name, model=model, gpu=gpu, overrides=overrides)
    if source is not None:
        data = plan_data(name, ctx, given, expanded=True)
        if data is not None:
            source.put(key_text(name, ctx, given), json.dumps(data))
    return got
