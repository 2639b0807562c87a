"""Node policies: how often a failing node is tried again (:class:`RetryPolicy`) and how long
one attempt may take (:class:`TimeoutPolicy`), with LangGraph's fields and defaults."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Literal, NamedTuple

__all__ = ["RetryPolicy", "TimeoutPolicy", "default_retry_on", "retry_policies", "should_retry"]

_NOT_RETRIED = (
    ValueError, TypeError, ArithmeticError, ImportError, LookupError, NameError, SyntaxError,
    RuntimeError, ReferenceError, StopIteration, StopAsyncIteration, OSError,
)  # fmt: skip
"""Errors of the program itself: trying again gives the same error."""


def default_retry_on(exc: Exception) -> bool:
    """Whether LangGraph's default policy retries ``exc``: connection errors and HTTP 5xx
    answers yes, programming errors (``ValueError``, ``KeyError``, ``OSError`` ...) no,
    anything else yes."""
    if isinstance(exc, ConnectionError):
        return True
    status = _http_status(exc)
    if status is not None:
        return status is True or 500 <= status < 600
    return not isinstance(exc, _NOT_RETRIED)


def _http_status(exc: Exception) -> int | bool | None:
    """An ``httpx`` / ``requests`` HTTP error's status code (``True``: a ``requests`` error
    without a response); ``None`` for any other error. Neither library is imported here: an
    error of one exists only once the program imported it."""
    httpx = sys.modules.get("httpx")
    if httpx is not None and isinstance(exc, httpx.HTTPStatusError):
        return int(exc.response.status_code)
    requests = sys.modules.get("requests")
    if requests is not None and isinstance(exc, requests.HTTPError):
        response = exc.response
        return True if not response else int(response.status_code)
    return None


class RetryPolicy(NamedTuple):
    """How a node that raised is tried again (``add_node(retry_policy=...)``)."""

    initial_interval: float = 0.5
    """Seconds to wait before the first retry."""
    backoff_factor: float = 2.0
    """The wait grows by this factor after each retry."""
    max_interval: float = 128.0
    """The longest wait between two attempts, in seconds."""
    max_attempts: int = 3
    """Attempts in all, the first one included."""
    jitter: bool = True
    """Add up to one random second to each wait."""
    retry_on: type[Exception] | Sequence[type[Exception]] | Callable[[Exception], bool] = (
        default_retry_on
    )
    """The exception classes that are retried, or a predicate on the exception."""


def should_retry(policy: RetryPolicy, exc: Exception) -> bool:
    """Whether ``policy`` retries ``exc``."""
    retry_on: Any = policy.retry_on
    if isinstance(retry_on, Sequence):
        return isinstance(exc, tuple(retry_on))
    if isinstance(retry_on, type) and issubclass(retry_on, Exception):
        return isinstance(exc, retry_on)
    if callable(retry_on):
        return bool(retry_on(exc))
    raise TypeError(
        "retry_on must be an Exception class, a list or tuple of Exception classes, or a callable"
    )


def retry_policies(value: Any, where: str) -> tuple[RetryPolicy, ...]:
    """``retry_policy=`` as given (one policy, a sequence of them, or ``None``) as a tuple."""
    if value is None:
        return ()
    policies = (
        (value,)
        if isinstance(value, RetryPolicy | str) or not isinstance(value, Sequence)
        else tuple(value)
    )
    for policy in policies:
        if not isinstance(policy, RetryPolicy):
            raise TypeError(
                f"{where}(retry_policy=...) expects a RetryPolicy or a sequence of them, got "
                f"{policy!r}"
            )
    return policies


def _seconds(value: float | timedelta | None, field: str) -> float | None:
    if value is None:
        return None
    seconds = value.total_seconds() if isinstance(value, timedelta) else float(value)
    if seconds <= 0:
        raise ValueError(f"{field} must be greater than 0")
    return seconds


@dataclass(frozen=True, slots=True)
class TimeoutPolicy:
    """How long one attempt of an async node may take (``add_node(timeout=...)``)."""

    run_timeout: float | timedelta | None = None
    """Seconds one attempt may run in all."""
    idle_timeout: float | timedelta | None = None
    """Seconds one attempt may go without progress (a stream write, ``runtime.heartbeat()``)."""
    refresh_on: Literal["auto", "heartbeat"] = "auto"
    """What counts as progress: ``"auto"`` any stream write or heartbeat, ``"heartbeat"`` only
    ``runtime.heartbeat()``."""

    @classmethod
    def coerce(cls, value: float | timedelta | TimeoutPolicy | None) -> TimeoutPolicy | None:
        """``timeout=`` as given (seconds, a ``timedelta`` or a policy) as a policy in
        seconds; ``None`` when it sets no limit."""
        if value is None:
            return None
        if not isinstance(value, TimeoutPolicy):
            value = cls(run_timeout=value)
        if value.refresh_on not in ("auto", "heartbeat"):
            raise ValueError("refresh_on must be 'auto' or 'heartbeat'")
        run = _seconds(value.run_timeout, "run_timeout")
        idle = _seconds(value.idle_timeout, "idle_timeout")
        if run is None and idle is None:
            return None
        return cls(run, idle, value.refresh_on)
