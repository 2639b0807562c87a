"""Which node parameters the runtime fills in (LangGraph's rule: name, kind and annotation)."""

from __future__ import annotations

import inspect
from typing import Any, Optional

import pytest
from langchain_core.runnables import RunnableConfig

from sgdebug.runtime.graph._injection import injected
from sgdebug.runtime.types import StreamWriter


def _params(fn: Any) -> Any:
    return inspect.signature(fn).parameters


def test_config_is_injected_unannotated_or_as_runnable_config_in_every_spelling() -> None:
    def plain(s, config):  # type: ignore[no-untyped-def]
        return s

    def typed(s: Any, config: RunnableConfig) -> Any:
        return s

    def optional(s: Any, *, config: Optional[RunnableConfig] = None) -> Any:  # noqa: UP045
        return s

    typed.__annotations__["config"] = RunnableConfig | None  # evaluated, not a string
    for fn in (plain, typed, optional):
        assert injected(_params(fn)) == {"config"}, fn


def test_config_of_another_type_is_left_to_its_default_with_langgraphs_warning() -> None:
    def any_config(s: Any, config: Any = None) -> Any:
        return s

    with pytest.warns(UserWarning, match="should be typed as 'RunnableConfig'"):
        assert injected(_params(any_config)) == frozenset()


def test_writer_store_need_their_types_runtime_previous_take_any_none_positional_only() -> None:
    def node(s: Any, writer: Any = None, store: Any = None, *, runtime: Any, previous: int) -> Any:
        return s

    assert injected(_params(node)) == {"runtime", "previous"}
    node.__annotations__.update(writer=StreamWriter, store="Optional[BaseStore]")
    assert injected(_params(node)) == {"runtime", "previous", "writer", "store"}

    def positional(s: Any, config: RunnableConfig | None = None, /) -> Any:
        return s

    assert injected(_params(positional)) == frozenset()
