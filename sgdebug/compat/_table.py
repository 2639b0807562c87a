"""Which ``langgraph`` modules the alias serves, with what, and what LangGraph has there.

Each :class:`AliasModule` names the sgdebug objects a ``langgraph`` module is built from,
and LangGraph 1.2.22's public names of that module (its ``__all__``), so that asking for a
name LangGraph has and sgdebug lacks says so, while a typo stays a plain ``AttributeError``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

__all__ = ["ALIASES", "AliasModule", "Export", "is_langgraph", "not_provided"]


def is_langgraph(name: str) -> bool:
    """Whether ``name`` is ``langgraph`` or one of its submodules."""
    return name == "langgraph" or name.startswith("langgraph.")


def not_provided(what: str) -> str:
    """The one sentence for a LangGraph module or name (dotted) that the alias lacks."""
    return (
        f"sgdebug's runtime does not provide {what} yet; run this program on the langgraph "
        f"engine (leave out --engine native)"
    )


@dataclass(frozen=True, slots=True)
class Export:
    """One name of an alias module."""

    name: str
    """The name in the ``langgraph`` module."""
    source: str
    """The sgdebug module the object comes from."""
    attr: str
    """The object's name in ``source`` (differs from ``name`` for renames)."""


@dataclass(frozen=True, slots=True)
class AliasModule:
    """A ``langgraph`` module served from sgdebug."""

    name: str
    """Its dotted name, e.g. ``langgraph.graph``."""
    exports: tuple[Export, ...]
    """What it holds (its ``__all__``, in this order)."""
    upstream: tuple[str, ...]
    """LangGraph 1.2.22's public names of this module."""
    package: bool = False
    """Whether it has submodules (as in LangGraph), so ``langgraph.x.y`` is looked up."""

    @property
    def names(self) -> tuple[str, ...]:
        """The names it serves."""
        return tuple(export.name for export in self.exports)

    def lacks(self, name: str) -> bool:
        """Whether ``name`` is one of LangGraph's names here that sgdebug does not serve."""
        return name in self.upstream and name not in self.names


def _take(source: str, *names: str) -> tuple[Export, ...]:
    return tuple(Export(name, source, name) for name in names)


_RT: Final = "sgdebug.runtime"
_CHECKPOINT_BASE_UPSTREAM: Final = (
    "BaseCheckpointSaver", "ChannelProtocol", "ChannelVersions", "Checkpoint",
    "CheckpointMetadata", "CheckpointTuple", "DeltaChannelHistory", "EXCLUDED_METADATA_KEYS",
    "EmptyChannelError", "EncryptedSerializer", "JsonPlusSerializer", "LATEST_VERSION",
    "PendingWrite", "SerializerProtocol", "WRITES_IDX_MAP", "copy_checkpoint",
    "create_checkpoint", "empty_checkpoint", "get_checkpoint_id", "get_checkpoint_metadata",
    "get_serializable_checkpoint_metadata", "maybe_add_typed_methods", "writes_sort_key",
)  # fmt: skip
"""LangGraph 1.2.22's public names of ``langgraph.checkpoint.base`` (a saver's tuple is
served: a saver's own ``get_tuple`` may rebuild it; the rest of LangGraph's saver API is
sgdebug's ``sgdebug.runtime.checkpoint``)."""
_CHANNELS: Final = "sgdebug.runtime.channels"
_CACHE: Final = "sgdebug.runtime.cache"
_TYPES_UPSTREAM: Final = (
    "All", "Checkpointer", "StreamMode", "StreamWriter", "StreamPart", "ValuesStreamPart",
    "UpdatesStreamPart", "MessagesStreamPart", "CustomStreamPart", "CheckpointStreamPart",
    "TasksStreamPart", "DebugStreamPart", "TaskPayload", "TaskResultPayload", "CheckpointTask",
    "CheckpointPayload", "DebugPayload", "RetryPolicy", "TimeoutPolicy", "CachePolicy",
    "TracePolicy", "omit_payload", "Interrupt", "StateUpdate", "PregelTask",
    "PregelExecutableTask", "StateSnapshot", "Send", "Command", "Durability", "interrupt",
    "Overwrite", "GraphOutput", "ensure_valid_checkpointer",
)  # fmt: skip
_ERRORS_UPSTREAM: Final = (
    "EmptyChannelError", "ErrorCode", "GraphDrained", "GraphRecursionError",
    "InvalidUpdateError", "GraphBubbleUp", "GraphInterrupt", "NodeCancelledError", "NodeError",
    "NodeInterrupt", "NodeTimeoutError", "ParentCommand", "EmptyInputError", "TaskNotFound",
    "UnknownInterruptError", "is_invalid_resume",
)  # fmt: skip
_CHANNELS_UPSTREAM: Final = (
    "BaseChannel", "AnyValue", "LastValue", "LastValueAfterFinish", "UntrackedValue",
    "EphemeralValue", "BinaryOperatorAggregate", "DeltaChannel", "NamedBarrierValue",
    "NamedBarrierValueAfterFinish", "Topic",
)  # fmt: skip
_STORE: Final = "sgdebug.runtime.store"
_STORE_SERVED: Final = (
    "BaseStore", "Item", "SearchItem", "Op", "PutOp", "GetOp", "SearchOp", "ListNamespacesOp",
    "MatchCondition", "NamespacePath", "NamespaceMatchType", "validate_op_namespace",
    "InvalidNamespaceError", "IndexConfig", "TTLConfig", "NotProvided", "NOT_PROVIDED", "Result",
    "ensure_embeddings", "tokenize_path",
)  # fmt: skip
_STORE_UPSTREAM: Final = (*_STORE_SERVED, "get_text_at_path", "Embeddings")
_CHANNEL_CLASSES: Final = (
    "BaseChannel", "LastValue", "LastValueAfterFinish", "UntrackedValue", "EphemeralValue",
    "BinaryOperatorAggregate", "NamedBarrierValue", "Topic",
)  # fmt: skip


def _channel_module(leaf: str, *upstream: str) -> AliasModule:
    served = tuple(name for name in upstream if name in _CHANNEL_CLASSES)
    return AliasModule(f"langgraph.channels.{leaf}", _take(_CHANNELS, *served), upstream)


_MODULES: Final = (
    AliasModule("langgraph", (), (), package=True),
    AliasModule(
        "langgraph.graph",
        _take(_RT, "END", "START", "StateGraph", "add_messages", "MessagesState"),
        ("END", "START", "StateGraph", "add_messages", "MessagesState", "MessageGraph"),
        package=True,
    ),
    AliasModule(
        "langgraph.graph.message",
        _take(_RT, "add_messages", "MessagesState")
        + _take("sgdebug.runtime.graph._messages", "REMOVE_ALL_MESSAGES")
        + _take("sgdebug.runtime.engine._messages_mode", "push_message"),
        ("add_messages", "MessagesState", "MessageGraph", "REMOVE_ALL_MESSAGES", "push_message"),
    ),
    AliasModule(
        "langgraph.graph.state",
        _take(_RT, "StateGraph", "CompiledStateGraph"),
        ("StateGraph", "CompiledStateGraph"),
    ),
    AliasModule(
        "langgraph.types",
        _take(_RT, "Send", "Command", "Overwrite", "interrupt", "Interrupt", "StateSnapshot")
        + _take(_RT, "PregelTask", "StreamWriter")
        + _take("sgdebug.runtime.types", "StateUpdate", "RetryPolicy", "TimeoutPolicy")
        + _take(_CACHE, "CachePolicy")
        + _take("sgdebug.runtime._stream_out", "GraphOutput"),
        _TYPES_UPSTREAM,
    ),
    AliasModule(
        "langgraph.errors",
        _take(
            "sgdebug.runtime.errors",
            "EmptyChannelError",
            "EmptyInputError",
            "GraphDrained",
            "GraphInterrupt",
            "GraphRecursionError",
            "InvalidUpdateError",
            "NodeCancelledError",
            "NodeError",
            "NodeTimeoutError",
            "ParentCommand",
        )
        + _take("sgdebug.runtime.engine._response_schema", "is_invalid_resume"),
        _ERRORS_UPSTREAM,
    ),
    AliasModule(
        "langgraph.constants",
        _take(_RT, "START", "END"),
        ("TAG_NOSTREAM", "TAG_HIDDEN", "START", "END", "CONF", "TASKS", "CONFIG_KEY_CHECKPOINTER"),
    ),
    AliasModule(
        "langgraph.channels", _take(_CHANNELS, *_CHANNEL_CLASSES), _CHANNELS_UPSTREAM, package=True
    ),
    _channel_module("base", "BaseChannel"),
    _channel_module("binop", "BinaryOperatorAggregate"),
    _channel_module("last_value", "LastValue", "LastValueAfterFinish"),
    _channel_module("ephemeral_value", "EphemeralValue"),
    _channel_module("topic", "Topic"),
    _channel_module("untracked_value", "UntrackedValue"),
    _channel_module("named_barrier_value", "NamedBarrierValue", "NamedBarrierValueAfterFinish"),
    AliasModule(
        "langgraph.managed",
        _take("sgdebug.runtime.managed", "IsLastStep", "RemainingSteps"),
        ("IsLastStep", "RemainingSteps"),
        package=True,
    ),
    AliasModule("langgraph.cache", (), (), package=True),
    AliasModule(
        "langgraph.cache.base",
        _take(_CACHE, "BaseCache", "FullKey", "Namespace"),
        ("BaseCache", "FullKey", "Namespace"),
        package=True,
    ),
    AliasModule(
        "langgraph.cache.memory", _take(_CACHE, "InMemoryCache"), ("InMemoryCache",), package=True
    ),
    AliasModule("langgraph.checkpoint", (), (), package=True),
    AliasModule(
        "langgraph.checkpoint.base",
        _take("sgdebug.runtime.checkpoint._tuples", "CheckpointTuple"),
        _CHECKPOINT_BASE_UPSTREAM,
        package=True,
    ),
    AliasModule(
        "langgraph.checkpoint.memory",
        (
            Export("InMemorySaver", "sgdebug.runtime.checkpoint", "InMemorySaver"),
            Export("MemorySaver", "sgdebug.runtime.checkpoint", "InMemorySaver"),
        ),
        ("InMemorySaver", "MemorySaver", "PersistentDict"),
        package=True,
    ),
    AliasModule(
        "langgraph.config",
        _take(_RT, "get_config", "get_store", "get_stream_writer"),
        ("get_config", "get_store", "get_stream_writer"),
    ),
    AliasModule("langgraph.store", (), (), package=True),
    AliasModule(
        "langgraph.store.base",
        (*_take(_STORE, *_STORE_SERVED), Export("get_text_at_path", _STORE, "texts_at")),
        _STORE_UPSTREAM,
        package=True,
    ),
    AliasModule(
        "langgraph.store.memory", _take(_STORE, "InMemoryStore"), ("InMemoryStore",), package=True
    ),
    AliasModule(
        "langgraph.runtime",
        _take(_RT, "Runtime")
        + _take("sgdebug.runtime._control", "RunControl")
        + _take("sgdebug.runtime._server_info", "ServerInfo")
        + _take(
            "sgdebug.runtime.engine._runtime", "ExecutionInfo", "get_runtime", "DEFAULT_RUNTIME"
        ),
        ("BaseUser", "ExecutionInfo", "RunControl", "Runtime", "ServerInfo", "get_runtime"),
    ),
)

ALIASES: Final[Mapping[str, AliasModule]] = MappingProxyType({m.name: m for m in _MODULES})
"""Every ``langgraph`` module the alias serves, by name; any other is not provided."""
