"""What of a run's config a checkpoint's metadata keeps, by LangGraph 1.2's rule.

Besides ``source``, ``step`` and ``parents`` (which the user cannot replace), a checkpoint's
metadata takes, from ``config["metadata"]`` then ``config["configurable"]``, every key
that is not already there, not one of LangGraph's own (:data:`EXCLUDED`) and does not start
with ``__``, when its value is a ``str`` (NUL characters removed), ``int``, ``float`` or
``bool``; other values (lists, dicts, None, objects) are left out. So a user's
``configurable={"user_id": ...}`` is found in every checkpoint of the runs it configured.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sgdebug.runtime.engine._messages_mode import LIFTED_KEYS

__all__ = ["EXCLUDED", "user_metadata"]

EXCLUDED = frozenset(
    {
        "thread_id",
        "checkpoint_id",
        "checkpoint_ns",
        "checkpoint_map",
        "langgraph_step",
        "langgraph_node",
        "langgraph_triggers",
        "langgraph_path",
        "langgraph_checkpoint_ns",
        # the keys the checkpoint itself sets:
        "source",
        "step",
        "parents",
    }
)
"""Keys never copied from the config."""


def user_metadata(config: Mapping[str, Any]) -> dict[str, Any]:
    """The metadata ``config`` adds to the checkpoints of its run (see the module docstring)."""
    given: Mapping[str, Any] = config.get("metadata") or {}
    configurable: Mapping[str, Any] = config.get("configurable") or {}
    # (LangGraph first adds a few configurable keys to the run's metadata, as its task
    # configs show them: they come right after the user's own metadata keys)
    lifted = {k: configurable[k] for k in LIFTED_KEYS if k not in given and configurable.get(k)}
    out: dict[str, Any] = {}
    for keys in (given, lifted, configurable):
        for key, value in keys.items():
            if key in out or key in EXCLUDED or key.startswith("__"):
                continue
            if isinstance(value, str):
                out[key] = value.replace("\x00", "")
            elif isinstance(value, int | float):  # (bool is an int)
                out[key] = value
    return out
