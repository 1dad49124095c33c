"""A table whose entries are built on first use: the answer kinds' registries, so that
drawing or grading one kind (a one-shot ``quiz ask``/``quiz check``) imports that kind's
module and not the others'."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, MutableMapping
from typing import TypeVar

__all__ = ["LazyTable"]

V = TypeVar("V")


class LazyTable(MutableMapping[str, V]):
    """A fixed set of names, each entry built by its function when first looked up and
    kept. Entries may be replaced (tests put a doctored kind in), and a replacement
    deleted again brings back the built one."""

    def __init__(self, build: Mapping[str, Callable[[], V]]) -> None:
        self._build = dict(build)
        self._built: dict[str, V] = {}
        self._replaced: dict[str, V] = {}

    def __getitem__(self, name: str) -> V:
        if name in self._replaced:
            return self._replaced[name]
        entry = self._built.get(name)
        if entry is None:
            entry = self._built[name] = self._build[name]()  # KeyError: no such name
        return entry

    def __setitem__(self, name: str, entry: V) -> None:
        self._replaced[name] = entry

    def __delitem__(self, name: str) -> None:
        del self._replaced[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._build | self._replaced)

    def __len__(self) -> int:
        return len(self._build | self._replaced)
