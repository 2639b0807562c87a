"""``config["max_concurrency"]`` bounds how many of a step's sync tasks run at once."""

from __future__ import annotations

import operator
import threading
from typing import Annotated, Any, TypedDict

from sgdebug.runtime import START, Send, StateGraph


class S(TypedDict):
    peaks: Annotated[list[int], operator.add]


def test_sync_tasks_never_run_more_than_max_concurrency_at_once() -> None:
    running = 0
    lock = threading.Condition()

    def work(arg: Any) -> dict[str, Any]:
        nonlocal running
        with lock:
            running += 1
            peak = running
            lock.notify_all()
            # Wait for a fourth task to start (one would, unbounded: the pool has more
            # workers than 3); bounded, none does and the wait times out.
            lock.wait_for(lambda: running > 3, timeout=0.2)
            running -= 1
        return {"peaks": [peak]}

    def fan(state: S) -> list[Send]:
        return [Send("work", i) for i in range(8)]

    graph = StateGraph(S).add_node("work", work).add_conditional_edges(START, fan, ["work"])
    result = graph.compile().invoke({"peaks": []}, {"max_concurrency": 3})
    assert len(result["peaks"]) == 8
    assert max(result["peaks"]) <= 3
