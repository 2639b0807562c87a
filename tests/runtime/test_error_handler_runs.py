"""Error handlers on the debugger's path: a run a hook watches sees the failed task and its
handler's task, and ``retry()`` after a handler failed runs the handler again, never the
node whose failure it handles."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Annotated, Any, TypedDict

from sgdebug.runtime import START, BaseHook, RunView, StateGraph, Task
from sgdebug.runtime.errors import NodeError


class S(TypedDict):
    log: Annotated[list[str], operator.add]


class Keep(BaseHook):
    """Keeps every failed step alive and records what it sees."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    def after_plan(self, run: RunView, tasks: Sequence[Task]) -> bool:
        self.seen.extend(("planned", t.name) for t in tasks)
        return False

    def after_task(self, run: RunView, task: Task) -> bool:
        self.seen.append(("ran", f"{task.name} error={task.error is not None} done={task.done}"))
        return False

    def on_error(self, run: RunView, task: Task, error: BaseException) -> bool:
        self.seen.append(("error", task.name))
        return True


def test_a_failed_handler_is_retried_alone_then_the_step_commits() -> None:
    calls: list[str] = []

    def bad(state: S) -> dict[str, Any]:
        calls.append("bad")
        raise ValueError("boom")

    def handler(state: S, error: NodeError) -> dict[str, Any]:
        calls.append("handler")
        if calls.count("handler") == 1:
            raise RuntimeError("handler broke")
        return {"log": [f"handled {error.node}: {error.error}"]}

    builder = StateGraph(S).add_node("bad", bad, error_handler=handler)
    builder.add_node("ok", lambda s: {"log": ["ok"]}).add_edge(START, "bad").add_edge(START, "ok")
    hook = Keep()
    run = builder.compile().start({"log": []}, hooks=[hook])
    assert run.advance() == "error"
    failed = run.failed
    assert failed is not None and failed.name == "__error_handler__bad"
    assert ("error", "__error_handler__bad") in hook.seen
    assert ("ran", "bad error=True done=True") in hook.seen
    run.retry()
    assert run.advance() == "done"
    assert calls == ["bad", "handler", "handler"]
    assert run.read_values(("log",)) == {"log": ["handled bad: boom", "ok"]}
