"""A graph run inside another graph's task knows its parent and its checkpoint namespace."""

from __future__ import annotations

from typing import Any, TypedDict

from sgdebug.runtime import END, START, StateGraph
from sgdebug.runtime.engine._nesting import checkpoint_ns, current_parent


class State(TypedDict):
    seen: list[Any]


def test_a_root_run_has_no_parent_and_an_empty_namespace() -> None:
    assert current_parent() is None
    assert checkpoint_ns(()) == ""
    assert checkpoint_ns(("a:1", "b:2")) == "a:1|b:2"


def test_a_graph_invoked_in_a_node_sees_the_task_as_its_parent() -> None:
    found: list[Any] = []

    def inner_node(state: State) -> dict[str, Any]:
        parent = current_parent()
        assert parent is not None
        found.append((parent.task.name, parent.namespace, parent.run.namespace))
        return {}

    inner = StateGraph(State)
    inner.add_node("inner_node", inner_node)
    inner.add_edge(START, "inner_node")
    inner.add_edge("inner_node", END)
    child = inner.compile()

    def outer_node(state: State) -> dict[str, Any]:
        parent = current_parent()
        assert parent is not None
        found.append((parent.task.name, parent.namespace, parent.run.namespace))
        out: dict[str, Any] = child.invoke(state)
        return out

    outer = StateGraph(State)
    outer.add_node("outer_node", outer_node)
    outer.add_edge(START, "outer_node")
    outer.add_edge("outer_node", END)
    outer.compile().invoke({"seen": []})

    (outer_name, outer_ns, root_ns), (inner_name, inner_ns, child_ns) = found
    assert (outer_name, root_ns) == ("outer_node", ())
    assert outer_ns[0].startswith("outer_node:") and len(outer_ns) == 1
    # The child run's namespace is the outer task's; its own task adds one level.
    assert (inner_name, child_ns) == ("inner_node", outer_ns)
    assert inner_ns[:1] == outer_ns and inner_ns[1].startswith("inner_node:")
