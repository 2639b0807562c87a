"""LangChain Runnables as nodes: a ``prompt | model`` chain, a ``RunnableLambda``, a tool.

A Runnable is not called like a function: LangGraph runs it as ``runnable.invoke(state,
config)`` (``ainvoke`` in an async run), with the node's config. A node whose action is a
Runnable gets an action that does that. Runnables are recognised by their class (one of its
bases is langchain-core's ``Runnable``), so nothing of LangChain is imported here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sgdebug.runtime.graph._injection import RunnableConfig

__all__ = ["is_runnable", "runnable_action"]


def is_runnable(action: Any) -> bool:
    """Whether ``action`` is a langchain-core ``Runnable`` (and not a plain callable)."""
    return any(
        c.__name__ == "Runnable" and c.__module__.startswith("langchain_core.")
        for c in type(action).__mro__
    )


def runnable_action(runnable: Any) -> Callable[..., Any]:
    """The node action running ``runnable`` with the node's input and config.

    A ``RunnableLambda`` of only an async function runs through ``ainvoke`` (its ``invoke``
    cannot run it); any other Runnable through ``invoke``.
    """
    name = getattr(runnable, "name", None) or type(runnable).__name__
    if getattr(runnable, "afunc", None) is not None and getattr(runnable, "func", None) is None:

        async def arun(state: Any, config: RunnableConfig) -> Any:
            return await runnable.ainvoke(state, config)

        arun.__name__ = name
        return arun

    def run(state: Any, config: RunnableConfig) -> Any:
        return runnable.invoke(state, config)

    run.__name__ = name
    return run
