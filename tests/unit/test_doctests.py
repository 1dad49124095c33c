"""Every docstring example in the core holds (the examples double as documentation)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

PACKAGES = ("solver", "questions", "quiz.core")


def _modules() -> list[str]:
    names: list[str] = []
    for package in PACKAGES:
        root = importlib.import_module(package)
        names.append(package)
        names += [info.name for info in pkgutil.walk_packages(root.__path__, f"{package}.")]
    return sorted(names)


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples_hold(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
