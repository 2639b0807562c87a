"""The checkpointer the session lends a LangGraph graph compiled without one.

The LangGraph engine needs a checkpointer to stop between supersteps and go back; a graph
without one of its own gets LangGraph's ``InMemorySaver``. Storing makes LangGraph's
serializer round-trip every value, and reading back a type outside its msgpack allow-list
(a dataclass given to ``Send``) logs "Deserializing unregistered type ...": about a saver the
program never had, so the process (which debugs that one graph) drops that notice from the
first lent saver on. A graph compiled with its own checkpointer gets no lent saver and no
filter: its notices are LangGraph's to give, as they would be without sgdebug.
"""

from __future__ import annotations

import logging
from typing import Any

__all__ = ["lent_saver"]

_UNREGISTERED = "Deserializing unregistered type"
_LOGGER = "langgraph.checkpoint.serde.jsonplus"


class _LentSaverNotice(logging.Filter):
    """Drops LangGraph's unregistered-type notice (see the module's docstring)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(_UNREGISTERED)


def lent_saver() -> Any:
    """A new ``InMemorySaver`` for a graph without a checkpointer of its own."""
    from langgraph.checkpoint.memory import InMemorySaver

    log = logging.getLogger(_LOGGER)
    if not any(isinstance(f, _LentSaverNotice) for f in log.filters):
        log.addFilter(_LentSaverNotice())
    return InMemorySaver()
