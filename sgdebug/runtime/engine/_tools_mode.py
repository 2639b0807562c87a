"""``stream_mode="tools"``: the calls of langchain-core tools made in a node, as they happen.

Each call streams a ``tool-started`` event, then ``tool-finished`` or ``tool-error``
(LangGraph 1.2's shapes): ``{"event": "tool-started", "tool_call_id", "tool_name",
"input"}`` (``input`` only when the tool was given a dict), ``{"event": "tool-finished",
"tool_call_id", "output"}`` (a ``ToolMessage`` when the tool was called with a tool call),
``{"event": "tool-error", "tool_call_id", "message"}`` (the error's text). The id is the
tool call's when there is one, else the tool run's id. A tool that calls another tool
streams both. Tools reach the stream as chat models reach the ``messages`` mode: the
task's config (current while it runs) carries this mode's callback handler
(:meth:`~._messages_mode.MessagesStream.child_config`).

langchain-core is imported only when a stream asks for this mode.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sgdebug.runtime.engine._messages_mode import MessagesStream

__all__ = ["tools_handler"]


def tools_handler(stream: MessagesStream) -> Any:
    """A langchain-core callback handler streaming tool calls to ``stream``'s emitter."""
    return _handler_class()(stream)


def _handler_class() -> type:
    from sgdebug.runtime.engine._streaming_handler import streaming_handler

    # (as in LangGraph, chat models stream in this mode too: their message ids show it)
    class ToolsHandler(streaming_handler()):  # type: ignore[misc]
        """Streams the start and the end of each tool call."""

        def __init__(self, stream: MessagesStream) -> None:
            self.stream = stream
            self.ids: dict[Any, Any] = {}
            """Each running tool's call id, by its run id (the calls this stream hears)."""

        def on_tool_start(
            self, serialized: Any, input_str: str, *, run_id: Any, **kwargs: Any
        ) -> None:
            if not self.stream.hears():
                return
            call_id = kwargs.get("tool_call_id") or str(run_id)
            self.ids[run_id] = call_id
            name = kwargs.get("name") or (serialized or {}).get("name")
            event = {"event": "tool-started", "tool_call_id": call_id, "tool_name": name}
            inputs = kwargs.get("inputs")
            if inputs is not None:
                event["input"] = inputs
            self.stream.emit("tools", event)

        def on_tool_end(self, output: Any, *, run_id: Any, **kwargs: Any) -> None:
            call_id = self.ids.pop(run_id, None)
            if call_id is not None:
                event = {"event": "tool-finished", "tool_call_id": call_id, "output": output}
                self.stream.emit("tools", event)

        def on_tool_error(self, error: BaseException, *, run_id: Any, **kwargs: Any) -> None:
            call_id = self.ids.pop(run_id, None)
            if call_id is not None:
                event = {"event": "tool-error", "tool_call_id": call_id, "message": str(error)}
                self.stream.emit("tools", event)

    return ToolsHandler
