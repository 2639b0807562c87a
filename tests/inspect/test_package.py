"""The ``sgdebug.inspect`` package: its exports leave every public submodule reachable."""

from __future__ import annotations

import importlib
import pkgutil
import types

import pytest

import sgdebug.inspect

PUBLIC_MODULES = sorted(
    info.name
    for info in pkgutil.iter_modules(sgdebug.inspect.__path__)
    if not info.name.startswith("_")
)


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_no_export_hides_a_submodule(name: str) -> None:
    module = importlib.import_module(f"sgdebug.inspect.{name}")

    assert isinstance(getattr(sgdebug.inspect, name), types.ModuleType)
    assert getattr(sgdebug.inspect, name) is module
