"""``compile(store=)`` on sgdebug's runtime: which ``store`` parameters get the store (by
LangGraph's annotation rule), that any object with the store API is taken (real
LangGraph's ``InMemoryStore`` too), that copies keep it, and that a LangGraph program
using the store runs under the import alias with LangGraph's results."""

from __future__ import annotations

import importlib.util
import operator
import textwrap
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any, Optional, TypedDict

import pytest
from langgraph.store.base import BaseStore as LangGraphBaseStore
from langgraph.store.memory import InMemoryStore as LangGraphInMemoryStore

from sgdebug import compat
from sgdebug.runtime import START, StateGraph, get_store
from sgdebug.runtime.graph._node import inspect_action
from sgdebug.runtime.store import BaseStore, InMemoryStore


class S(TypedDict):
    log: Annotated[list[Any], operator.add]


def _p_bare(state: S, store):  # type: ignore[no-untyped-def]
    return {}


def _p_base(state: S, store: BaseStore) -> dict[str, Any]:
    return {}


def _p_optional(state: S, store: Optional[BaseStore]) -> dict[str, Any]:  # noqa: UP045
    return {}


def _p_or_none(state: S, store: BaseStore | None) -> dict[str, Any]:
    return {}


def _p_langgraphs(state: S, store: LangGraphBaseStore) -> dict[str, Any]:
    return {}


def _p_any(state: S, store: Any = None) -> dict[str, Any]:
    return {}


def _p_concrete(state: S, store: InMemoryStore | None = None) -> dict[str, Any]:
    return {}


def _p_int(state: S, store: int = 0) -> dict[str, Any]:
    return {}


@pytest.mark.parametrize(
    ("action", "injected"),
    [
        (_p_bare, True),
        (_p_base, True),  # (the string "BaseStore": this module has future annotations)
        (_p_optional, True),  # "Optional[BaseStore]"
        (_p_or_none, False),  # "BaseStore | None" as a string: LangGraph does not match it
        (_p_langgraphs, False),  # "LangGraphBaseStore"
        (_p_any, False),
        (_p_concrete, False),
        (_p_int, False),
    ],
)
def test_a_store_parameter_is_injected_by_langgraphs_annotation_rule(
    action: Any, injected: bool
) -> None:
    assert ("store" in inspect_action(action).names) is injected


def test_evaluated_annotations_naming_base_store_are_injected() -> None:
    def optional(state: S, store: Optional[BaseStore]) -> None: ...  # noqa: UP045
    def union(state: S, store: BaseStore | None) -> None: ...
    def theirs(state: S, store: LangGraphBaseStore) -> None: ...
    def concrete(state: S, store: InMemoryStore) -> None: ...

    for action, annotation in [
        (optional, Optional[BaseStore]),  # noqa: UP045
        (union, BaseStore | None),
        (theirs, LangGraphBaseStore),
        (concrete, InMemoryStore),
    ]:
        action.__annotations__["store"] = annotation  # as without future annotations

    assert "store" in inspect_action(optional).names
    assert "store" in inspect_action(union).names
    assert "store" in inspect_action(theirs).names  # LangGraph's own class, named BaseStore
    assert "store" not in inspect_action(concrete).names


def _graph(store: Any) -> Any:
    def remember(state: S, store: BaseStore) -> dict[str, Any]:
        store.put(("seen",), str(len(state["log"])), {"log": state["log"]})
        return {"log": [sorted(i.key for i in get_store().search(("seen",)))]}

    builder = StateGraph(S).add_node("remember", remember).add_edge(START, "remember")
    return builder.compile(store=store)


def test_real_langgraphs_in_memory_store_works_on_the_runtime() -> None:
    store = LangGraphInMemoryStore()
    graph = _graph(store)

    assert graph.invoke({"log": []}) == {"log": [["0"]]}
    assert graph.invoke({"log": ["x"]}) == {"log": ["x", ["0", "1"]]}
    assert graph.store is store
    item = store.get(("seen",), "1")
    assert item is not None and item.value == {"log": ["x"]}


def test_copies_keep_the_store_and_copy_can_replace_it() -> None:
    store = InMemoryStore()
    graph = _graph(store)

    assert graph.with_config(tags=["t"]).store is store
    assert graph.copy().store is store
    other = InMemoryStore()
    assert graph.copy(update={"store": other}).invoke({"log": []}) == {"log": [["0"]]}
    assert other.list_namespaces() == [("seen",)]
    assert store.list_namespaces() == []


def test_get_store_outside_a_run_raises_as_langgraphs_does() -> None:
    with pytest.raises(RuntimeError, match="outside of a runnable context"):
        get_store()


PROGRAM = """\
    import operator
    from typing import Annotated, TypedDict

    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.config import get_store
    from langgraph.graph import START, StateGraph
    from langgraph.runtime import Runtime
    from langgraph.store.base import BaseStore
    from langgraph.store.memory import InMemoryStore


    class State(TypedDict):
        user: str
        log: Annotated[list[str], operator.add]


    def greet(state: State, store: BaseStore) -> dict:
        seen = store.get(("users", state["user"]), "visits")
        count = 1 if seen is None else seen.value["n"] + 1
        store.put(("users", state["user"]), "visits", {"n": count})
        return {"log": [f"{state['user']} #{count}"]}


    def report(state: State, runtime: Runtime) -> dict:
        users = runtime.store.list_namespaces(prefix=("users",))
        busy = get_store().search(("users",), filter={"n": {"$gt": 1}})
        return {"log": [f"{users} busy={[i.namespace[1] for i in busy]}"]}


    store = InMemoryStore()
    builder = StateGraph(State).add_node("greet", greet).add_node("report", report)
    builder.add_edge(START, "greet").add_edge("greet", "report")
    graph = builder.compile(checkpointer=InMemorySaver(), store=store)
    """


def _import_file(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _drive(program: ModuleType) -> list[Any]:
    runs = [("t1", "ann"), ("t1", "ann"), ("t2", "bob"), ("t3", "ann")]
    return [
        program.graph.invoke({"user": user, "log": []}, {"configurable": {"thread_id": thread}})
        for thread, user in runs
    ]


def test_a_langgraph_program_using_the_store_runs_under_the_alias(tmp_path: Path) -> None:
    path = tmp_path / "lg_store_program.py"
    path.write_text(textwrap.dedent(PROGRAM))
    on_langgraph = _import_file(path, "lg_store_program_real")
    with compat.alias():
        aliased = _import_file(path, "lg_store_program_alias")
        assert isinstance(aliased.store, InMemoryStore)
        ours = _drive(aliased)

    assert ours == _drive(on_langgraph)
    assert ours[-1]["log"] == ["ann #3", "[('users', 'ann'), ('users', 'bob')] busy=['ann']"]
