"""``add_messages`` and ``MessagesState``: a chat-history reducer that merges by message id.

With langchain-core importable, messages are langchain-core message objects, coerced the way
LangGraph coerces them, so results compare equal to LangGraph's. Without it, messages are
plain dicts in a normalised form (``{'role': ..., 'content': ..., ..., 'id': ...}``) merged
by the same rules. The choice is made at call time; langchain-core is imported lazily, once.
"""

from __future__ import annotations

import functools
import uuid
import warnings
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Final, Literal, NamedTuple, TypedDict, overload

__all__ = [
    "REMOVE_ALL_MESSAGES",
    "MessagesState",
    "add_messages",
    "message_backend",
    "set_message_backend",
]

REMOVE_ALL_MESSAGES: Final = "__remove_all__"
"""Id of a removal that drops every message before it (in the state and in the update)."""

MessageFormat = Literal["langchain-openai"]
Backend = Literal["auto", "langchain", "dict"]
Reducer = Callable[[Any, Any], list[Any]]

_LC_SUFFIX: Final = (
    "\nFor troubleshooting, visit: "
    "https://docs.langchain.com/oss/python/langchain/errors/MESSAGE_COERCION_FAILURE "
)
_ROLE_ALIASES: Final[dict[str, str]] = {
    "human": "user",
    "user": "user",
    "ai": "assistant",
    "assistant": "assistant",
    "system": "system",
    "developer": "developer",
    "tool": "tool",
    "function": "function",
    "remove": "remove",
}
_ROLES: Final = frozenset(_ROLE_ALIASES.values())
_NO_FORMATTER: Final = (
    "Must have langchain-core>=0.3.11 installed to use automatic message formatting "
    "(format='langchain-openai'). Please update your langchain-core version or remove the "
    "'format' flag. Returning un-formatted messages."
)


class _LangChain(NamedTuple):
    """The few langchain-core names the reducer needs, imported on first use."""

    message: type
    chunk: type
    remove: type
    convert: Callable[[Sequence[Any]], list[Any]]
    unchunk: Callable[[Any], Any]


@functools.cache
def _import_langchain() -> _LangChain | None:
    try:
        from langchain_core.messages import (
            BaseMessage,
            BaseMessageChunk,
            RemoveMessage,
            convert_to_messages,
            message_chunk_to_message,
        )
    except ImportError:
        return None
    return _LangChain(
        BaseMessage, BaseMessageChunk, RemoveMessage, convert_to_messages, message_chunk_to_message
    )


_backend: Backend = "auto"


def set_message_backend(backend: Backend) -> None:
    """Choose the message representation: ``'auto'`` (default), ``'langchain'`` or ``'dict'``.

    ``'auto'`` uses langchain-core when it can be imported; ``'dict'`` always uses plain dicts
    (tests use it to exercise the fallback); ``'langchain'`` fails at call time without it.
    """
    global _backend
    if backend not in ("auto", "langchain", "dict"):
        raise ValueError(f"Unknown message backend {backend!r}; use 'auto', 'langchain' or 'dict'.")
    _backend = backend


def _langchain() -> _LangChain | None:
    if _backend == "dict":
        return None
    lc = _import_langchain()
    if lc is None and _backend == "langchain":
        raise ImportError("The 'langchain' message backend needs langchain-core installed.")
    return lc


def message_backend() -> Literal["langchain", "dict"]:
    """Which representation ``add_messages`` would use if called now."""
    return "dict" if _langchain() is None else "langchain"


@overload
def add_messages(
    left: None = None, right: None = None, *, format: MessageFormat | None = None
) -> Reducer: ...
@overload
def add_messages(left: Any, right: Any, *, format: MessageFormat | None = None) -> list[Any]: ...
def add_messages(
    left: Any = None, right: Any = None, *, format: MessageFormat | None = None
) -> list[Any] | Reducer:
    """Merge ``right`` into ``left`` by message id; with no sides, return a configured reducer.

    Both sides may be one message-like value or a list of them. A message of ``right`` whose
    id is already present replaces it in place, others are appended, removals delete by id.
    ``add_messages(format="langchain-openai")`` returns a reducer whose result is converted
    to OpenAI-style langchain messages.
    """
    if left is None and right is None:
        if format is None:
            return functools.partial(_merge_messages)
        return functools.partial(_merge_messages, format=format)
    if left is None or right is None:
        given = "left" if left else "right"  # LangGraph's wording, falsy left included
        raise ValueError(
            "Must specify non-null arguments for both 'left' and 'right'. "
            f"Only received: '{given}'."
        )
    return _merge_messages(left, right, format=format)


def _merge_messages(left: Any, right: Any, *, format: MessageFormat | None = None) -> list[Any]:
    lc = _langchain()
    old = _coerce(_as_list(left), lc)
    new = _coerce(_as_list(right), lc)
    _fill_ids(old)
    _fill_ids(new)
    cut = _after_remove_all(new, lc)
    if cut is not None:
        return new[cut:]
    merged = _apply(old, new, lc)
    if format == "langchain-openai":
        return _to_openai(merged, lc)
    if format:
        raise ValueError(
            f"Unrecognized format={format!r}. Expected one of 'langchain-openai', None."
        )
    return merged


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _get_id(message: Any) -> Any:
    return message.get("id") if isinstance(message, dict) else message.id


def _is_removal(message: Any, lc: _LangChain | None) -> bool:
    if lc is None:
        return bool(message["role"] == "remove")
    return isinstance(message, lc.remove)


def _fill_ids(messages: list[Any]) -> None:
    """Give every message without an id a fresh ``str(uuid4())`` (in place, like LangGraph)."""
    for message in messages:
        if _get_id(message) is None:
            if isinstance(message, dict):
                message["id"] = str(uuid.uuid4())
            else:
                message.id = str(uuid.uuid4())


def _after_remove_all(messages: list[Any], lc: _LangChain | None) -> int | None:
    """Index just past the last ``REMOVE_ALL_MESSAGES`` removal, or ``None`` if there is none."""
    cut = None
    for index, message in enumerate(messages):
        if _is_removal(message, lc) and _get_id(message) == REMOVE_ALL_MESSAGES:
            cut = index + 1
    return cut


def _apply(old: list[Any], new: list[Any], lc: _LangChain | None) -> list[Any]:
    """Replace-by-id, append, then drop the ids removed (and not re-added) by ``new``."""
    merged = list(old)
    position = {_get_id(message): index for index, message in enumerate(merged)}
    removed: set[Any] = set()
    for message in new:
        key = _get_id(message)
        index = position.get(key)
        removal = _is_removal(message, lc)
        if index is None:
            if removal:
                raise ValueError(
                    f"Attempting to delete a message with an ID that doesn't exist ('{key}')"
                )
            position[key] = len(merged)
            merged.append(message)
        elif removal:
            removed.add(key)
        else:
            removed.discard(key)
            merged[index] = message
    if removed:
        merged = [message for message in merged if _get_id(message) not in removed]
    return merged


def _to_openai(messages: list[Any], lc: _LangChain | None) -> list[Any]:
    if lc is None:
        warnings.warn(_NO_FORMATTER, stacklevel=4)
        return messages
    try:
        from langchain_core.messages import convert_to_openai_messages
    except ImportError:
        warnings.warn(_NO_FORMATTER, stacklevel=4)
        return messages
    return lc.convert(convert_to_openai_messages(messages))


def _coerce(items: list[Any], lc: _LangChain | None) -> list[Any]:
    if lc is None:
        return [_coerce_to_dict(item) for item in items]
    return [
        item
        if isinstance(item, lc.message) and not isinstance(item, lc.chunk)
        else lc.unchunk(lc.convert([item])[0])
        for item in items
    ]


def _coerce_to_dict(item: Any) -> dict[str, Any]:
    """One message-like value as a normalised message dict (a new dict unless already one)."""
    if isinstance(item, dict):
        return item if _is_normalised(item) else _dict_from_mapping(item)
    if isinstance(item, str):
        return {"role": "user", "content": item, "id": None}
    if isinstance(item, Sequence):
        try:
            role, content = item
        except ValueError as exc:
            raise NotImplementedError(
                "Message as a sequence must be (role string, template)"
            ) from exc
        return _normalised_dict(role, content, {})
    raise NotImplementedError(f"Unsupported message type: {type(item)}{_LC_SUFFIX}")


def _is_normalised(message: dict[str, Any]) -> bool:
    role = message.get("role")
    if not (isinstance(role, str) and role in _ROLES and "content" in message):
        return False
    content = message["content"]
    return message.get("id") is not None and (isinstance(content, str) or bool(content))


def _dict_from_mapping(message: dict[str, Any]) -> dict[str, Any]:
    extras = dict(message)
    try:
        role = extras.pop("role") if "role" in extras else extras.pop("type")
        content = extras.pop("content") or ""
    except KeyError as exc:
        raise ValueError(
            f"Message dict must contain 'role' and 'content' keys, got {message}{_LC_SUFFIX}"
        ) from exc
    return _normalised_dict(role, content, extras)


def _normalised_dict(role: Any, content: Any, extras: dict[str, Any]) -> dict[str, Any]:
    canonical = _ROLE_ALIASES.get(role) if isinstance(role, str) else None
    if canonical is None:
        raise ValueError(
            f"Unexpected message type: '{role}'. Use one of 'human', 'user', 'ai', 'assistant',"
            f" 'function', 'tool', 'system', or 'developer'.{_LC_SUFFIX}"
        )
    message_id = extras.pop("id", None)
    if canonical == "remove":
        if message_id is None:
            raise TypeError("RemoveMessage.__init__() missing 1 required positional argument: 'id'")
        content = ""
    return {"role": canonical, "content": content, **extras, "id": message_id}


class MessagesState(TypedDict):
    """A ready-made state schema: one ``messages`` key reduced by :func:`add_messages`."""

    messages: Annotated[list[Any], add_messages]
