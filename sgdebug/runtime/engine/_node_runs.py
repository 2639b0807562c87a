"""Each task as a LangChain chain run, for the callbacks of a run's config (``astream_events``,
a tracer given in ``config["callbacks"]``), as LangGraph shows its nodes.

When a run's config has callbacks, each task (but ``__start__``) is a child run of them:
``on_chain_start`` named after the node, with the task's input, the tag ``graph:step:N`` and
the task's metadata (``langgraph_step``, ``langgraph_node``, ... as the ``messages`` mode
gives them); then its output as one streamed chunk (``on_chain_stream`` in
``astream_events``) and ``on_chain_end`` (``on_chain_error`` when the task failed or
stopped at an interrupt). The node's output is what it wrote to the state (a dict of the
keys it wrote; ``None`` when it wrote none). While the node runs, langchain-core's current
config holds the task run's child callbacks (tag ``seq:step:1``), so chat models and tools
the node calls are child runs of it (``on_chat_model_start`` / ``_stream`` / ``_end`` with
the task's metadata). The ``messages`` and ``tools`` stream modes' handlers ride along.

Not yet LangGraph's: a subgraph's own graph run and its nodes are not nested under the
parent's task run (they are children of the parent's graph run, if any).
langchain-core is imported only for a run whose config has callbacks.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from sgdebug.runtime._constants import START

if TYPE_CHECKING:
    from sgdebug.runtime.engine._messages_mode import MessagesStream
    from sgdebug.runtime.engine._task import Task
    from sgdebug.runtime.engine._view import RunView

__all__ = ["NodeRuns"]

Entered = tuple[Any, Any] | None
"""What :meth:`NodeRuns.enter` returns: the task's run manager and the config token."""


class NodeRuns:
    """One run's tasks as child runs of its config's callbacks."""

    __slots__ = ("callbacks", "messages")

    def __init__(self, callbacks: Any, messages: MessagesStream | None) -> None:
        self.callbacks = callbacks
        """``config["callbacks"]``: handlers, or a callback manager (a parent run's child)."""
        self.messages = messages
        """The run's ``messages`` / ``tools`` stream, whose handlers the task's config adds."""

    def _manager(self, run: RunView, task: Task, cls: Any) -> Any:
        from sgdebug.runtime.engine._messages_mode import task_metadata

        tag = f"graph:step:{run.step}"
        manager = cls.configure(self.callbacks, None, False, None, [tag], task_metadata(run, task))
        manager.tags = [tag, *(t for t in manager.tags if t != tag)]  # (LangGraph's order)
        return manager

    def enter(self, run: RunView, task: Task) -> Entered:
        """``task`` starts in this thread: its run starts, models see its child config."""
        if task.name == START:
            return None
        self._started(task)
        from langchain_core.callbacks.manager import CallbackManager

        node_run = self._manager(run, task, CallbackManager).on_chain_start(
            None, task.input, name=task.name
        )
        return node_run, self._set_config(run, task, node_run)

    async def aenter(self, run: RunView, task: Task) -> Entered:
        """:meth:`enter` for an async task."""
        if task.name == START:
            return None
        self._started(task)
        from langchain_core.callbacks.manager import AsyncCallbackManager

        manager = self._manager(run, task, AsyncCallbackManager)
        node_run = await manager.on_chain_start(None, task.input, name=task.name)
        return node_run, self._set_config(run, task, node_run)

    def _started(self, task: Task) -> None:
        if self.messages is not None and self.messages.tokens:
            self.messages.started(task)  # (its input's messages count as streamed)

    def _set_config(self, run: RunView, task: Task, node_run: Any) -> Any:
        from langchain_core.runnables.config import var_child_runnable_config

        from sgdebug.runtime.engine._messages_mode import task_metadata, task_ns

        child = node_run.get_child("seq:step:1")
        if self.messages is not None:
            for handler in self.messages.handlers():
                child.add_handler(handler, inherit=True)
        config = run.config
        configurable = dict(config.get("configurable") or {})
        configurable["checkpoint_ns"] = task_ns(run, task)
        child_config = {
            "callbacks": child, "tags": list(config.get("tags") or []),
            "metadata": task_metadata(run, task), "configurable": configurable,
        }  # fmt: skip
        return var_child_runnable_config.set(child_config)  # type: ignore[arg-type]

    def leave(self, entered: Entered, run: RunView, task: Task) -> None:
        """``task`` has ended: its run streams its output and ends (or fails)."""
        if entered is None:
            return
        node_run, token = entered
        _reset(token)
        error = _error(task)
        if error is not None:
            node_run.on_chain_error(error)
            return
        output = _output(run, task)
        for handler in node_run.handlers:
            if hasattr(handler, "tap_output_iter"):
                for _ in handler.tap_output_iter(node_run.run_id, iter([output])):
                    pass
        node_run.on_chain_end(output, inputs=task.input)

    async def aleave(self, entered: Entered, run: RunView, task: Task) -> None:
        """:meth:`leave` for an async task."""
        if entered is None:
            return
        node_run, token = entered
        _reset(token)
        error = _error(task)
        if error is not None:
            await node_run.on_chain_error(error)
            return
        output = _output(run, task)
        for handler in node_run.handlers:
            if hasattr(handler, "tap_output_aiter"):
                async for _ in handler.tap_output_aiter(node_run.run_id, _one(output)):
                    pass
        await node_run.on_chain_end(output, inputs=task.input)


def _reset(token: Any) -> None:
    from langchain_core.runnables.config import var_child_runnable_config

    var_child_runnable_config.reset(token)


def _error(task: Task) -> BaseException | None:
    if task.error is not None:
        return task.error
    if task.interrupts or not task.done:
        from sgdebug.runtime.errors import GraphInterrupt

        return GraphInterrupt(task.interrupts)
    return None


def _output(run: RunView, task: Task) -> Any:
    """What the node gave, as its state writes: ``{key: value}``, or ``None``."""
    keys = run.graph.state_keys
    out = {key: value for key, value in task.writes if key in keys}
    return out or None


async def _one(value: Any) -> AsyncIterator[Any]:
    yield value
