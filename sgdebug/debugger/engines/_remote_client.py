"""The remote engine's link to a LangGraph server: where it is, and every call made to it.

:class:`Server` names a server (its URL, the graph to debug, the API key); it is what a
session's target holds when it is attached to a server, so that choosing the engine needs
no import. :class:`Link` makes the calls through ``langgraph-sdk`` (imported on first use)
and turns every failure into :class:`ServerFault`, an :class:`EngineRefused` whose message
says what went wrong in one sentence (the server is down, a call timed out, the thread is
gone, the key was refused, ...): the session refuses the command and stays open, and the
same command can be tried again once the server is back.

The API key is never part of a message, a ``repr`` or a label.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sgdebug.debugger.engine import EngineRefused

__all__ = ["KEY_VARIABLES", "Link", "Server", "ServerFault", "api_key_from"]

KEY_VARIABLES = ("LANGGRAPH_API_KEY", "LANGSMITH_API_KEY")
"""Where an API key is read from when ``--api-key`` is not given, in this order."""
DEFAULT_TIMEOUT = 30.0
"""Seconds a call to the server may take before it is reported as timed out."""

T = TypeVar("T")


def api_key_from(given: str | None) -> str | None:
    """The API key: ``given``, else the first of :data:`KEY_VARIABLES` that is set."""
    if given:
        return given
    return next((os.environ[v] for v in KEY_VARIABLES if os.environ.get(v)), None)


@dataclass(frozen=True, slots=True)
class Server:
    """A LangGraph server and the graph of it to debug."""

    url: str
    """The server's base URL (``http://127.0.0.1:2024``)."""
    graph: str | None = None
    """The graph id or assistant id (``None``: the server's only graph)."""
    api_key: str | None = field(default=None, repr=False, compare=False)
    """Sent as ``x-api-key``; never shown, logged or stored."""
    timeout: float = DEFAULT_TIMEOUT
    """Seconds before a call is reported as timed out."""

    @property
    def label(self) -> str:
        """How the user names it: ``URL`` or ``URL graph NAME`` (never the key)."""
        return self.url if self.graph is None else f"{self.url} graph {self.graph}"


class ServerFault(EngineRefused):
    """A call to the server failed; ``str()`` says why, and that it can be tried again."""


class Link:
    """Calls to one server through langgraph-sdk's synchronous client."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self._client: Any = None
        self.fault: str | None = None
        """Why the last call failed (``None`` once a call works again)."""
        self.down = False
        """The last call did not reach the server (refused, timed out, broken)."""

    @property
    def client(self) -> Any:
        """The SDK client (made on first use: ``langgraph_sdk`` is imported then). Its
        connection is tried once per call (the SDK's own client retries for seconds, and a
        status line must say at once that the server is down)."""
        if self._client is None:
            try:
                import httpx
                from langgraph_sdk.client import SyncLangGraphClient
            except ImportError as exc:
                raise ServerFault(
                    "attaching to a LangGraph server needs langgraph-sdk: "
                    "pip install 'sgdebug[server]'"
                ) from exc
            headers = {"x-api-key": self.server.api_key} if self.server.api_key else {}
            http = httpx.Client(
                base_url=self.server.url,
                transport=httpx.HTTPTransport(retries=0),
                timeout=httpx.Timeout(self.server.timeout, connect=min(5.0, self.server.timeout)),
                headers=headers,
            )
            self._client = SyncLangGraphClient(http)
        return self._client

    def call(self, what: str, action: Callable[[Any], T]) -> T:
        """``action(client)``; any failure becomes a :class:`ServerFault` about ``what``."""
        try:
            found = action(self.client)
        except ServerFault:
            raise
        except Exception as exc:
            raise self._failed(exc, what) from None
        self.fault, self.down = None, False
        return found

    def stream(self, what: str, action: Callable[[Any], Iterator[Any]]) -> Iterator[Any]:
        """The parts of a streamed call; a failure midway is a :class:`ServerFault` too."""
        try:
            yield from action(self.client)
        except ServerFault:
            raise
        except Exception as exc:
            raise self._failed(exc, what) from None
        self.fault, self.down = None, False

    def _failed(self, exc: Exception, what: str) -> ServerFault:
        self.fault = describe_fault(exc, what, self.server)
        self.down = getattr(exc, "status_code", None) is None and not isinstance(exc, KeyError)
        return ServerFault(self.fault)


def describe_fault(exc: BaseException, what: str, server: Server) -> str:
    """One sentence for the status line, the fault first: what went wrong, while doing
    what, and what to do."""
    status = getattr(exc, "status_code", None)
    if status is None:
        status = getattr(getattr(exc, "response", None), "status_code", None)
    if isinstance(status, int):
        return _status_text(status, exc, what)
    name = type(exc).__name__
    at = f"{what} at {server.url}"
    if "Timeout" in name:
        return f"server timed out (no answer within {server.timeout:g}s): {at}; try again"
    if "Connect" in name or isinstance(exc, ConnectionError | OSError):
        return f"server not reachable ({_reason(exc)}): {at}; start it, then try again"
    if "Protocol" in name or "ReadError" in name:
        return f"connection to the server broke ({_reason(exc)}): {at}; try again"
    return f"server call failed ({name}: {_reason(exc)}): {at}; try again"


def _status_text(status: int, exc: BaseException, what: str) -> str:
    detail = _detail(exc)
    if status in (401, 403):
        return (
            f"server refused the API key (HTTP {status}{detail}): {what}; give one with "
            f"--api-key or {' / '.join(KEY_VARIABLES)}"
        )
    if status == 404:
        return f"not found on the server (HTTP 404{detail}): {what}; it may have been deleted"
    if status == 409:
        return f"server busy with this thread (HTTP 409{detail}): {what}; try again"
    if 400 <= status < 500:
        return f"server refused it (HTTP {status}{detail}): {what}"
    return f"server error (HTTP {status}{detail}): {what}; try again"


def _detail(exc: BaseException) -> str:
    body = getattr(exc, "body", None)
    text = ""
    if isinstance(body, dict):
        text = str(body.get("detail") or body.get("message") or "")
    elif isinstance(body, str):
        text = body
    text = " ".join(text.split())
    return f": {text[:160]}" if text else ""


def _reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:160] or type(exc).__name__
