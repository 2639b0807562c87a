"""``stream_mode="messages"``: LLM tokens and messages, each with its metadata.

A stream in this mode gets, as ``(message, metadata)`` pairs:

* what a langchain-core chat model called in a node produces: each token chunk as it is
  generated, or the whole message when the model does not stream (a model call tagged
  ``nostream`` is left out). The node's code reaches the model with no argument for it: while
  a task runs, langchain-core's current-config context variable holds a config whose
  callbacks include this stream's handler, with the task's metadata and tags;
* the messages a node returns (in its state updates, a ``Command``'s update, ...) that were
  not streamed already, and the messages given to :func:`push_message`.

A message is streamed once (by id; one without an id is given one). The messages of a task's
input count as streamed. The metadata is the run's metadata, the run's configurable
``thread_id`` / ``checkpoint_id`` / ... (the keys LangGraph lifts into metadata),
``ls_integration``, and the task's ``langgraph_step`` / ``langgraph_node`` /
``langgraph_triggers`` / ``langgraph_path`` / ``langgraph_checkpoint_ns``; a chat model's
adds its own (``ls_provider`` ...), ``checkpoint_ns`` and ``tags``.

langchain-core is imported only when a stream asks for this mode.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sgdebug.runtime.engine._task import Task
    from sgdebug.runtime.engine._view import RunView

__all__ = ["LIFTED_KEYS", "MessagesStream", "lifted", "push_message", "task_metadata", "task_ns"]

LIFTED_KEYS = (
    "thread_id",
    "checkpoint_id",
    "checkpoint_ns",
    "task_id",
    "run_id",
    "assistant_id",
    "graph_id",
)
"""Configurable keys a task's metadata repeats (LangGraph 1.2's list)."""
NOSTREAM = "nostream"
"""The tag that keeps a chat model call out of the stream."""


class MessagesStream:
    """One run's ``messages`` and / or ``tools`` mode (the modes langchain-core's callbacks
    feed): the handlers, the ids streamed so far, and the emitter."""

    __slots__ = ("_handler", "_tools", "emit", "lock", "seen", "tokens", "tools")

    def __init__(self, emit: Callable[[str, Any], None], modes: frozenset[str]) -> None:
        self.emit = emit
        self.tokens = "messages" in modes
        """Whether the ``messages`` mode is streamed."""
        self.tools = "tools" in modes
        """Whether the ``tools`` mode is streamed (:mod:`._tools_mode`)."""
        self.seen: set[Any] = set()
        self.lock = threading.Lock()
        self._handler: Any = None
        self._tools: Any = None

    # -- messages of tasks ---------------------------------------------------------------

    def metadata(self, run: RunView, task: Task) -> dict[str, Any]:
        """The metadata of ``task``'s messages."""
        return task_metadata(run, task)

    def started(self, task: Task) -> None:
        """A task starts: the messages of its input count as streamed."""
        for message in _messages_in(_values(task.input), self._message_type()):
            if message.id is not None:
                self.seen.add(message.id)

    def finished(self, run: RunView, task: Task) -> None:
        """A task finished: stream the messages it wrote that were not streamed yet."""
        keys = run.graph.state_keys
        found = _messages_in((v for k, v in task.writes if k in keys), self._message_type())
        meta: dict[str, Any] | None = None
        for message in found:
            if message.id in self.seen:
                continue
            meta = meta if meta is not None else self.metadata(run, task)
            self.send(message, meta)

    def hears(self) -> bool:
        """Whether a langchain-core callback arriving now is this stream's: not one from a
        task of a subgraph's run that streams nothing itself (as in LangGraph, a stream
        without ``subgraphs=True`` leaves out what a subgraph's models and tools do; a
        graph run on a thread of its own is no subgraph)."""
        from sgdebug.runtime.engine._context import SCOPE

        scope = SCOPE.get()
        if scope is None:
            return True
        owner = scope.owner
        return owner.messages is self or not owner.namespace

    def send(self, message: Any, meta: Mapping[str, Any], *, once: bool = True) -> None:
        """Stream ``message`` (unless ``once`` and it was streamed already)."""
        with self.lock:
            if once and message.id is not None and message.id in self.seen:
                return
            if message.id is None:
                message.id = str(uuid.uuid4())
            self.seen.add(message.id)
        self.emit("messages", (message, dict(meta)))

    # -- chat models called in a task ----------------------------------------------------

    def enter(self, run: RunView, task: Task) -> Any:
        """``task`` starts running in this thread: its input's messages count as streamed
        and chat models see its config; returns the token :meth:`leave` takes."""
        from langchain_core.runnables.config import var_child_runnable_config

        if self.tokens:
            self.started(task)
        return var_child_runnable_config.set(self.child_config(run, task))  # type: ignore[arg-type]

    def leave(self, token: Any, run: RunView, task: Task) -> None:
        """The task that :meth:`enter` returned ``token`` for has ended."""
        from langchain_core.runnables.config import var_child_runnable_config

        var_child_runnable_config.reset(token)

    async def aenter(self, run: RunView, task: Task) -> Any:
        """:meth:`enter` for an async task."""
        return self.enter(run, task)

    async def aleave(self, token: Any, run: RunView, task: Task) -> None:
        """:meth:`leave` for an async task."""
        self.leave(token, run, task)

    def child_config(self, run: RunView, task: Task) -> dict[str, Any]:
        """The config a chat model called in ``task`` (with no config of its own) runs
        with: the task's metadata and tags, and this stream's handler."""
        from langchain_core.callbacks import CallbackManager

        config = run.config
        configurable = dict(config.get("configurable") or {})
        configurable["checkpoint_ns"] = task_ns(run, task)
        tags, meta = list(config.get("tags") or []), self.metadata(run, task)
        handlers = self.handlers()
        # Tags and metadata ride on the callbacks too: a call given a config of its own
        # (``model.invoke(x, {"tags": [...]})``) keeps them.
        callbacks = CallbackManager(
            handlers, handlers, tags=tags, inheritable_tags=tags,
            metadata=meta, inheritable_metadata=meta,
        )  # fmt: skip
        return {
            "tags": tags, "metadata": meta, "callbacks": callbacks, "configurable": configurable,
        }  # fmt: skip

    def handlers(self) -> list[Any]:
        """The callback handlers of the modes streamed (made on first use)."""
        handlers = []
        if self.tokens:
            handlers.append(self.handler())
        if self.tools:
            if self._tools is None:
                from sgdebug.runtime.engine._tools_mode import tools_handler

                self._tools = tools_handler(self)
            handlers.append(self._tools)
        return handlers

    def handler(self) -> Any:
        """The langchain-core callback handler of this stream (made on first use)."""
        if self._handler is None:
            self._handler = _handler_class()(self)
        return self._handler

    def _message_type(self) -> type:
        from langchain_core.messages import BaseMessage

        return BaseMessage


def push_message(message: Any, *, state_key: str | None = "messages") -> Any:
    """Stream ``message`` now to the ``messages`` mode (with the running task's metadata)
    and, unless ``state_key`` is ``None``, write it to that state key as the task's update;
    returns the message (as a langchain-core message). It must have an id."""
    from langchain_core.messages import convert_to_messages

    from sgdebug.runtime.engine._context import current_scope

    scope = current_scope()
    message = convert_to_messages([message])[0]
    if message.id is None:
        raise ValueError("Message ID is required")
    stream = scope.owner.messages
    if stream is not None and stream.tokens:
        stream.send(message, scope.get_config()["metadata"], once=False)
    if state_key:
        if scope.pushed is None:
            scope.pushed = []
        scope.pushed.append((state_key, message))
    return message


def task_metadata(run: RunView, task: Task) -> dict[str, Any]:
    """The metadata LangGraph gives what runs in ``task`` (its messages, its models, its
    chain run): the run's metadata and lifted configurable keys, ``ls_integration`` and the
    task's ``langgraph_*`` keys."""
    config = run.config
    meta: dict[str, Any] = dict(config.get("metadata") or {})
    configurable = config.get("configurable") or {}
    meta.update(lifted(configurable, meta))
    meta["ls_integration"] = "langgraph"
    meta.update(
        langgraph_step=run.step,
        langgraph_node=task.name,
        langgraph_triggers=task.triggers,
        langgraph_path=task.path,
        langgraph_checkpoint_ns=task_ns(run, task),
    )
    return meta


def lifted(configurable: Mapping[str, Any], meta: Mapping[str, Any]) -> dict[str, Any]:
    """The configurable keys (of :data:`LIFTED_KEYS`, set and not ``None``) that metadata
    ``meta`` repeats, as LangGraph does."""
    return {
        key: configurable[key]
        for key in LIFTED_KEYS
        if configurable.get(key) is not None and key not in meta
    }


def task_ns(run: RunView, task: Task) -> str:
    return "|".join((*run.namespace, f"{task.name}:{task.id}"))


def _values(state: Any) -> list[Any]:
    """The top-level values of a task's input (a dict, a pydantic model, a dataclass)."""
    if isinstance(state, dict):
        return list(state.values())
    fields = getattr(type(state), "model_fields", None)
    if fields is None:
        fields = getattr(state, "__dataclass_fields__", None)
    if fields is None:
        return []
    return [getattr(state, name) for name in fields]


def _messages_in(values: Iterable[Any], message: type) -> list[Any]:
    """The messages among ``values`` and in the lists among them."""
    out: list[Any] = []
    for value in values:
        if isinstance(value, message):
            out.append(value)
        elif isinstance(value, list | tuple):
            out.extend(item for item in value if isinstance(item, message))
    return out


def _mark_progress() -> None:
    """A model's token, streamed while the task running here runs: progress for its idle
    time limit, unless the limit counts only heartbeats (``refresh_on="heartbeat"``)."""
    import time

    from sgdebug.runtime.engine._context import SCOPE

    scope = SCOPE.get()
    task = scope.task if scope is not None else None
    policy = task.node.policy if task is not None else None
    limit = policy.timeout if policy is not None else None
    if limit is not None and limit.idle_timeout is not None and limit.refresh_on == "auto":
        assert task is not None
        task.beat = time.monotonic()


def _handler_class() -> type:
    """langchain-core's callback handler for a :class:`MessagesStream` (built on first use,
    so the runtime imports langchain-core only for a messages stream)."""
    from langchain_core.outputs import ChatGeneration, ChatGenerationChunk

    from sgdebug.runtime.engine._streaming_handler import streaming_handler

    class MessagesHandler(streaming_handler()):  # type: ignore[misc]
        """Streams what chat models generate to a :class:`MessagesStream`."""

        def __init__(self, stream: MessagesStream) -> None:
            self.stream = stream
            self.runs: dict[Any, dict[str, Any]] = {}

        def on_chat_model_start(
            self, serialized: Any, messages: Any, *, run_id: Any, **kwargs: Any
        ) -> None:
            tags, metadata = kwargs.get("tags") or [], kwargs.get("metadata")
            if metadata is None or NOSTREAM in tags or not self.stream.hears():
                return
            meta = dict(metadata)
            user_tags = [t for t in tags if not t.startswith("seq:step")]
            if user_tags:
                meta["tags"] = user_tags
            self.runs[run_id] = meta

        def on_llm_new_token(self, token: Any, *, run_id: Any, **kwargs: Any) -> None:
            chunk, meta = kwargs.get("chunk"), self.runs.get(run_id)
            if meta is not None and isinstance(chunk, ChatGenerationChunk):
                _mark_progress()
                self.stream.send(chunk.message, meta, once=False)

        def on_llm_end(self, response: Any, *, run_id: Any, **kwargs: Any) -> None:
            meta = self.runs.pop(run_id, None)
            generations = response.generations
            if meta is not None and generations and generations[0]:
                generation = generations[0][0]
                if isinstance(generation, ChatGeneration):
                    self.stream.send(generation.message, meta)

        def on_llm_error(self, error: BaseException, *, run_id: Any, **kwargs: Any) -> None:
            self.runs.pop(run_id, None)

    return MessagesHandler
