"""A node's policies as compiled: its own, with ``set_node_defaults()`` filling the gaps."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from sgdebug.runtime.graph._specs import NodeDefaults, NodePolicy, NodeSpec

if TYPE_CHECKING:
    from sgdebug.runtime._policies import TimeoutPolicy
    from sgdebug.runtime.graph._node import CompiledNode

__all__ = [
    "DEFAULT_ERROR_HANDLER",
    "effective_policy",
    "error_handler_name",
    "sync_timeout_error",
    "with_timeout",
]

DEFAULT_ERROR_HANDLER = "__default_error_handler__"
"""The node ``set_node_defaults(error_handler=...)`` adds."""


def error_handler_name(node: str) -> str:
    """The name of the node ``add_node(node, ..., error_handler=...)`` adds."""
    return f"__error_handler__{node}"


def sync_timeout_error(node: str) -> ValueError:
    """LangGraph's refusal of a time limit on a node that is not async."""
    return ValueError(
        "Node timeouts are only supported for async nodes because sync Python execution "
        f"cannot be safely cancelled in-process. Node {node!r} is sync."
    )


def effective_policy(spec: NodeSpec, defaults: NodeDefaults, is_async: bool) -> NodePolicy | None:
    """``spec``'s policies, each one it leaves unset taken from ``defaults`` (an error handler
    only for a regular node: a handler never handles a handler); ``None`` when it has none.

    Raises ``ValueError`` for a time limit on a sync node, as LangGraph's ``compile`` does.
    """
    own = spec.policy
    handler = own.error_handler
    if handler is None and defaults.error_handler is not None and not spec.is_error_handler:
        handler = DEFAULT_ERROR_HANDLER
    policy = NodePolicy(own.retry or defaults.retry, own.timeout or defaults.timeout, handler)
    if policy.timeout is not None and not is_async:
        raise sync_timeout_error(spec.name)
    if not policy.retry and policy.timeout is None and policy.error_handler is None:
        return None
    return policy


def with_timeout(node: CompiledNode, timeout: TimeoutPolicy) -> CompiledNode:
    """``node`` with ``timeout`` as its time limit (a ``Send(..., timeout=)``'s task); a sync
    node is refused when the task runs, as in LangGraph."""
    policy = node.policy or NodePolicy()
    return replace(node, policy=replace(policy, timeout=timeout))
