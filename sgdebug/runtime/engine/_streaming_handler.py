"""The base of the callback handlers a stream gives langchain-core (messages and tools modes)."""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["streaming_handler"]


@functools.cache
def streaming_handler() -> type:
    """The base of the handlers a stream gives langchain-core: a callback handler run inline
    that chat models stream their tokens to (``_StreamingCallbackHandler``: its message ids
    show it, as in LangGraph), their outputs passed through untouched. Built on first use,
    so the runtime imports langchain-core only for a stream that needs it."""
    from langchain_core.callbacks import BaseCallbackHandler

    try:
        from langchain_core.tracers._streaming import _StreamingCallbackHandler as Streaming
    except ImportError:  # (an older langchain-core)
        Streaming = object  # type: ignore[assignment,misc]

    class StreamingHandler(BaseCallbackHandler, Streaming):  # type: ignore[type-arg]
        run_inline = True

        def tap_output_iter(self, run_id: Any, output: Any) -> Any:
            return output

        def tap_output_aiter(self, run_id: Any, output: Any) -> Any:
            return output

    return StreamingHandler
