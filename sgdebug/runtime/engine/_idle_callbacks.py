"""LangChain callback events count as progress for a node's ``idle_timeout``.

As in LangGraph, under ``TimeoutPolicy(refresh_on="auto")`` any callback event raised while
the node runs (a chat model's start, each token it streams, a tool's end ...) refreshes the
attempt's idle limit. The attempt runs with a callback handler that marks the task's
progress on every event, added to the config nested LangChain calls pick up (on top of the
``messages`` stream's handler when there is one).

langchain-core is looked at only when the program has imported it: a node cannot call a
LangChain Runnable otherwise, and the runtime does not import it for nothing.
"""

from __future__ import annotations

import sys
import time
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sgdebug.runtime._policies import TimeoutPolicy
    from sgdebug.runtime.engine._task import Task

__all__ = ["callbacks_beat"]

_handler_type: type | None = None


def callbacks_beat(task: Task, policy: TimeoutPolicy) -> AbstractContextManager[Any]:
    """While entered, LangChain calls made from this context (and the asyncio tasks it
    starts) mark ``task``'s progress on each callback event; nothing when the policy has no
    idle limit, counts only heartbeats, or LangChain is not loaded."""
    if policy.idle_timeout is None or policy.refresh_on != "auto":
        return nullcontext()
    if "langchain_core" not in sys.modules:
        return nullcontext()
    return _Beating(task)


class _Beating:
    def __init__(self, task: Task) -> None:
        self.task = task
        self.token: Any = None

    def __enter__(self) -> None:
        from langchain_core.runnables.config import var_child_runnable_config

        config = dict(var_child_runnable_config.get() or {})
        config["callbacks"] = _with_handler(config.get("callbacks"), _handler(self.task))
        self.token = var_child_runnable_config.set(config)  # type: ignore[arg-type]

    def __exit__(self, *exc: object) -> None:
        from langchain_core.runnables.config import var_child_runnable_config

        var_child_runnable_config.reset(self.token)


def _with_handler(callbacks: Any, handler: Any) -> Any:
    """``callbacks`` (a manager, a list of handlers or nothing) plus ``handler``, inherited
    by nested calls; the original is left as it was."""
    from langchain_core.callbacks import BaseCallbackManager, CallbackManager

    if isinstance(callbacks, BaseCallbackManager):
        manager = callbacks.copy()
        manager.add_handler(handler, inherit=True)
        return manager
    handlers = [*(callbacks or []), handler]
    return CallbackManager(handlers, handlers)


def _handler(task: Task) -> Any:
    global _handler_type
    if _handler_type is None:
        _handler_type = _build_handler_type()
    return _handler_type(task)


def _build_handler_type() -> type:
    from langchain_core.callbacks import BaseCallbackHandler

    def beat(self: Any, *args: Any, **kwargs: Any) -> None:
        self.task.beat = time.monotonic()

    def init(self: Any, task: Task) -> None:
        self.task = task

    events = {name: beat for name in dir(BaseCallbackHandler) if name.startswith("on_")}
    return type(
        "IdleBeatHandler",
        (BaseCallbackHandler,),
        {"__init__": init, "run_inline": True, **events},
    )
