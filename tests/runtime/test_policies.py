"""Node policies: which errors a retry policy retries, how long it waits, how policies are
given, and how a time limit is written."""

from __future__ import annotations

import operator
from datetime import timedelta
from typing import Annotated, Any, TypedDict
from unittest.mock import patch

import pytest

from sgdebug.runtime import START, Runtime, StateGraph
from sgdebug.runtime._policies import default_retry_on, retry_policies, should_retry
from sgdebug.runtime.engine._retry import retry_wait
from sgdebug.runtime.types import RetryPolicy, TimeoutPolicy


class S(TypedDict):
    log: Annotated[list[Any], operator.add]


def test_the_default_policy_retries_connection_errors_and_not_programming_errors() -> None:
    assert default_retry_on(ConnectionError("refused"))
    assert default_retry_on(Exception("anything else"))
    for exc in (
        ValueError(),
        KeyError(),
        TypeError(),
        OSError(),
        RuntimeError(),
        ZeroDivisionError(),
    ):
        assert not default_retry_on(exc), exc


def test_retry_on_takes_a_class_a_sequence_or_a_predicate() -> None:
    assert should_retry(RetryPolicy(retry_on=ValueError), UnicodeError())
    assert not should_retry(RetryPolicy(retry_on=ValueError), KeyError())
    assert should_retry(RetryPolicy(retry_on=(KeyError, ValueError)), KeyError())
    assert not should_retry(RetryPolicy(retry_on=()), KeyError())
    assert should_retry(RetryPolicy(retry_on=lambda e: "again" in str(e)), KeyError("again"))
    with pytest.raises(TypeError, match="retry_on must be an Exception class"):
        should_retry(RetryPolicy(retry_on=3), KeyError())  # type: ignore[arg-type]


def test_the_wait_backs_off_up_to_the_maximum_and_adds_jitter() -> None:
    policy = RetryPolicy(initial_interval=1.0, backoff_factor=3.0, max_interval=5.0, jitter=False,
                         max_attempts=5)  # fmt: skip
    assert [retry_wait((policy,), Exception(), n) for n in (1, 2, 3, 4, 5)] == [
        1.0, 3.0, 5.0, 5.0, None
    ]  # fmt: skip
    with patch("random.uniform", return_value=0.25) as uniform:
        assert retry_wait((policy._replace(jitter=True),), Exception(), 1) == 1.25
    uniform.assert_called_once_with(0, 1)
    assert retry_wait((RetryPolicy(retry_on=KeyError),), ValueError(), 1) is None


def test_a_graph_waits_between_attempts_through_time_sleep() -> None:
    def node(state: S, runtime: Runtime) -> dict[str, Any]:
        info = runtime.execution_info
        if info.node_attempt < 3:
            raise ConnectionError("down")
        return {"log": [info.node_attempt, info.node_first_attempt_time is not None]}

    policy = RetryPolicy(initial_interval=0.5, jitter=False)
    graph = StateGraph(S).add_node("n", node, retry_policy=policy).add_edge(START, "n").compile()
    with patch("time.sleep") as sleep:
        assert graph.invoke({"log": []}) == {"log": [3, True]}
    assert [call.args[0] for call in sleep.call_args_list] == [0.5, 1.0]


def test_an_interrupt_is_never_retried() -> None:
    from sgdebug.runtime import interrupt
    from sgdebug.runtime.checkpoint import InMemorySaver

    calls: list[int] = []

    def node(state: S) -> dict[str, Any]:
        calls.append(1)
        return {"log": [interrupt("ask")]}

    policy = RetryPolicy(retry_on=Exception)
    graph = StateGraph(S).add_node("n", node, retry_policy=policy).add_edge(START, "n")
    compiled = graph.compile(checkpointer=InMemorySaver())
    out = compiled.invoke({"log": []}, {"configurable": {"thread_id": "t"}})
    assert "__interrupt__" in out and calls == [1]


def test_retry_policy_is_one_policy_a_sequence_or_none() -> None:
    one = RetryPolicy()
    assert retry_policies(None, "add_node") == ()
    assert retry_policies(one, "add_node") == (one,)
    assert retry_policies([one, one], "add_node") == (one, one)
    with pytest.raises(TypeError, match=r"^add_node\(retry_policy=...\) expects a RetryPolicy"):
        retry_policies(3, "add_node")
    with pytest.raises(TypeError, match="expects a RetryPolicy"):
        StateGraph(S).add_node("n", lambda s: {}, retry_policy=[one, "x"])


def test_a_timeout_is_seconds_a_timedelta_or_a_policy() -> None:
    assert TimeoutPolicy.coerce(None) is None
    assert TimeoutPolicy.coerce(2) == TimeoutPolicy(run_timeout=2.0)
    assert TimeoutPolicy.coerce(timedelta(milliseconds=500)) == TimeoutPolicy(run_timeout=0.5)
    idle = TimeoutPolicy(idle_timeout=timedelta(seconds=1), refresh_on="heartbeat")
    assert TimeoutPolicy.coerce(idle) == TimeoutPolicy(None, 1.0, "heartbeat")
    assert TimeoutPolicy.coerce(TimeoutPolicy()) is None
    with pytest.raises(ValueError, match="run_timeout must be greater than 0"):
        TimeoutPolicy.coerce(0)
    with pytest.raises(ValueError, match="refresh_on must be 'auto' or 'heartbeat'"):
        TimeoutPolicy.coerce(TimeoutPolicy(1, refresh_on="never"))  # type: ignore[arg-type]


def test_a_time_limit_on_a_sync_node_is_refused_at_compile() -> None:
    builder = StateGraph(S).add_node("n", lambda s: {}, timeout=1.0).add_edge(START, "n")
    with pytest.raises(ValueError, match=r"only supported for async nodes.*Node 'n' is sync"):
        builder.compile()
