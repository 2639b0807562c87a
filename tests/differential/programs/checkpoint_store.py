"""Checkpoint programs for the long-term store (``compile(store=)``, issue 16): what nodes
read and write there across runs and threads, how they reach it (a ``store`` parameter,
``runtime.store``, ``get_store()``), what a subgraph uses, and what an interrupted node
leaves there. Each engine runs with its own ``InMemoryStore``; the store's contents are
observed as plain data (namespace, key, value: timestamps differ between any two runs).
"""

from __future__ import annotations

import asyncio
import operator
from functools import partial
from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from sgdebug.sample_graphs._engines import EngineAPI
from tests.store_embeddings import letters

from ..harness import Case, attempt
from .checkpoint import Rec, Script, ckpt, history, snap, thread

if TYPE_CHECKING:
    from langgraph.store.base import BaseStore


class S(TypedDict):
    """Who runs, and an append log."""

    user: str
    log: Annotated[list[str], operator.add]


def _store_api(g: EngineAPI) -> tuple[Any, Any]:
    """``(InMemoryStore, get_store)`` of the engine."""
    if g.name == "langgraph":
        from langgraph.config import get_store
        from langgraph.store.memory import InMemoryStore
    else:
        from sgdebug.runtime import get_store
        from sgdebug.runtime.store import InMemoryStore  # type: ignore[assignment]
    return InMemoryStore, get_store


def _items(found: list[Any]) -> list[Any]:
    return [(item.namespace, item.key, item.value) for item in found]


def contents(store: BaseStore) -> dict[str, Any]:
    """Everything ``store`` holds: its namespaces and each one's items, in store order."""
    namespaces = store.list_namespaces()
    return {"/".join(ns): _items(store.search(ns, limit=100)) for ns in namespaces}


def _visits(state: S, store: BaseStore) -> dict[str, Any]:
    """Counts the user's visits in the store (a ``store`` parameter) across runs."""
    namespace = ("visits", state["user"])
    seen = store.get(namespace, "count")
    count = 1 if seen is None else seen.value["n"] + 1
    store.put(namespace, "count", {"n": count, "last": state["log"][-1:]})
    return {"log": [f"{state['user']} visit {count}"]}


@ckpt
def store_kept_across_runs_and_threads(g: EngineAPI) -> Case:
    store_cls, _ = _store_api(g)
    store = store_cls()
    store.put(("visits", "ann"), "count", {"n": 10, "last": []})
    b = g.StateGraph(S).add_node("visit", _visits).add_edge(g.START, "visit")
    graph = b.compile(checkpointer=g.InMemorySaver(), store=store)

    def script() -> Script:
        yield "t1 ann", attempt(lambda: graph.invoke({"user": "ann", "log": []}, thread("t1")))
        yield "t1 again", attempt(lambda: graph.invoke({"user": "ann", "log": []}, thread("t1")))
        yield "t2 bob", list(graph.stream({"user": "bob", "log": []}, thread("t2")))
        yield "t3 ann", attempt(lambda: graph.invoke({"user": "ann", "log": []}, thread("t3")))
        yield "store", contents(store)
        yield "graph.store", graph.store is store
        yield "state t1", snap(graph, thread("t1"))

    def spec(r: Rec) -> None:
        assert r["t1 ann"]["log"] == ["ann visit 11"]
        assert r["t1 again"]["log"] == ["ann visit 11", "ann visit 12"]
        assert r["t3 ann"]["log"] == ["ann visit 13"]
        assert r["store"]["visits/bob"] == [(("visits", "bob"), "count", {"n": 1, "last": []})]
        assert r["graph.store"] is True

    return Case(graph, script=script, spec=spec)


@ckpt
def store_reached_by_parameter_runtime_and_get_store(g: EngineAPI) -> Case:
    store_cls, get_store = _store_api(g)
    store = store_cls()

    def by_param(state: S, store: BaseStore) -> dict[str, Any]:
        store.put(("notes",), "param", {"by": "param"})
        return {"log": ["param"]}

    def by_runtime(state: S, runtime: Any) -> dict[str, Any]:
        runtime.store.put(("notes",), "runtime", {"by": "runtime"})
        return {"log": [f"runtime sees {sorted(i.key for i in runtime.store.search(('notes',)))}"]}

    def by_get_store(state: S) -> dict[str, Any]:
        found = get_store().search(("notes",), filter={"by": "runtime"})
        get_store().delete(("notes",), "param")
        return {"log": [f"get_store found {[i.key for i in found]}"]}

    b = g.StateGraph(S).add_node("by_param", by_param).add_node("by_runtime", by_runtime)
    b.add_node("by_get_store", by_get_store).add_edge(g.START, "by_param")
    b.add_edge("by_param", "by_runtime").add_edge("by_runtime", "by_get_store")
    graph = b.compile(checkpointer=g.InMemorySaver(), store=store)

    def script() -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"user": "ann", "log": []}, thread("t1")))
        yield "store", contents(store)
        yield "history", history(graph, thread("t1"))

    def spec(r: Rec) -> None:
        assert r["invoke"]["log"] == [
            "param",
            "runtime sees ['param', 'runtime']",
            "get_store found ['runtime']",
        ]
        assert r["store"] == {"notes": [(("notes",), "runtime", {"by": "runtime"})]}

    return Case(graph, script=script, spec=spec)


@ckpt
def store_async_nodes(g: EngineAPI) -> Case:
    store_cls, get_store = _store_api(g)
    store = store_cls()

    async def writes(state: S, store: BaseStore) -> dict[str, Any]:
        await store.aput(("a", state["user"]), "k", {"v": 1})
        await store.aput(("a", "other"), "k", {"v": 2})
        return {"log": ["wrote"]}

    async def reads(state: S) -> dict[str, Any]:
        found = await get_store().asearch(("a",), filter={"v": {"$gte": 2}})
        names = await get_store().alist_namespaces(prefix=("a",))
        item = await get_store().aget(("a", state["user"]), "k")
        await get_store().adelete(("a", "other"), "k")
        return {"log": [f"{_items(found)} {names} {item.value}"]}

    b = g.StateGraph(S).add_node("writes", writes).add_node("reads", reads)
    b.add_edge(g.START, "writes").add_edge("writes", "reads")
    graph = b.compile(checkpointer=g.InMemorySaver(), store=store)

    def script() -> Script:
        call = graph.ainvoke({"user": "ann", "log": []}, thread("t1"))
        yield "ainvoke", attempt(lambda: asyncio.run(call))
        yield "store", contents(store)

    def spec(r: Rec) -> None:
        assert r["ainvoke"]["log"][1].startswith("[(('a', 'other'), 'k', {'v': 2})]")
        assert r["store"]["a/other"] == []

    return Case(graph, script=script, spec=spec)


@ckpt
def store_of_a_subgraph_is_its_parents(g: EngineAPI) -> Case:
    store_cls, get_store = _store_api(g)
    parent_store, child_store = store_cls(), store_cls()

    def inner(state: S, store: BaseStore) -> dict[str, Any]:
        store.put(("seen",), "inner", {"by": "store"})
        get_store().put(("seen",), "inner-get", {"by": "get_store"})
        return {"log": ["inner"]}

    sub = g.StateGraph(S).add_node("inner", inner).add_edge(g.START, "inner")
    child = sub.compile(store=child_store)
    b = g.StateGraph(S).add_node("child", child)
    b.add_node("calls", lambda state: child.invoke(state))
    b.add_edge(g.START, "child").add_edge("child", "calls")
    graph = b.compile(checkpointer=g.InMemorySaver(), store=parent_store)
    alone = sub.compile(store=child_store)

    def script() -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"user": "ann", "log": []}, thread("t1")))
        yield "parent store", contents(parent_store)
        yield "child store", contents(child_store)
        yield "history", history(graph, thread("t1"))
        yield "alone", attempt(lambda: alone.invoke({"user": "bob", "log": []}))
        yield "child store after", contents(child_store)

    def spec(r: Rec) -> None:
        assert r["invoke"]["log"] == ["inner", "inner", "inner"]  # (the second returns all)
        assert list(r["parent store"]) == ["seen"]
        assert r["child store"] == {}
        assert list(r["child store after"]) == ["seen"]

    return Case(graph, script=script, spec=spec)


@ckpt
def store_without_one_and_unannotated_defaults(g: EngineAPI) -> Case:
    _, get_store = _store_api(g)

    def sees(state: S, store: Any = "default") -> dict[str, Any]:  # annotated: not injected
        return {"log": [f"param {store!r} get_store {get_store()!r}"]}

    def bare(state: S, store) -> dict[str, Any]:  # type: ignore[no-untyped-def]
        return {"log": [f"bare {store!r}"]}

    b = g.StateGraph(S).add_node("sees", sees).add_node("bare", bare)
    b.add_edge(g.START, "sees").add_edge("sees", "bare")
    graph = b.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"user": "ann", "log": []}, thread("t1")))
        yield "graph.store", graph.store
        yield "outside a run", attempt(get_store)

    def spec(r: Rec) -> None:
        assert r["invoke"]["log"] == ["param 'default' get_store None", "bare None"]
        assert r["graph.store"] is None

    return Case(graph, script=script, spec=spec)


@ckpt
def store_writes_survive_an_interrupt(g: EngineAPI) -> Case:
    store_cls, _ = _store_api(g)
    store = store_cls()

    def asks(state: S, store: BaseStore) -> dict[str, Any]:
        runs = store.get(("runs",), "asks")
        store.put(("runs",), "asks", {"n": 1 if runs is None else runs.value["n"] + 1})
        answer = g.interrupt("name?")
        store.put(("answers",), state["user"], {"answer": answer})
        return {"log": [f"answer {answer}"]}

    b = g.StateGraph(S).add_node("asks", asks).add_edge(g.START, "asks")
    graph = b.compile(checkpointer=g.InMemorySaver(), store=store)

    def script() -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"user": "ann", "log": []}, thread("t1")))
        yield "store paused", contents(store)
        yield "resume", attempt(lambda: graph.invoke(g.Command(resume="Ann"), thread("t1")))
        yield "store done", contents(store)
        yield "state", snap(graph, thread("t1"))

    def spec(r: Rec) -> None:
        assert r["store paused"] == {"runs": [(("runs",), "asks", {"n": 1})]}
        assert r["store done"]["runs"] == [(("runs",), "asks", {"n": 2})]
        assert r["resume"]["log"] == ["answer Ann"]

    return Case(graph, script=script, spec=spec)


@ckpt
def store_semantic_search_in_a_node(g: EngineAPI) -> Case:
    store_cls, _ = _store_api(g)
    store = store_cls(index={"dims": 6, "embed": letters, "fields": ["text"]})

    def remember(state: S, store: BaseStore) -> dict[str, Any]:
        store.put(("memories", state["user"]), str(len(state["log"])), {"text": state["log"][-1]})
        return {}

    def recall(state: S, store: BaseStore) -> dict[str, Any]:
        found = store.search(("memories", state["user"]), query="pasta and cooking", limit=2)
        return {"log": [f"{i.key}:{i.value['text']}:{round(i.score or 0.0, 6)}" for i in found]}

    b = g.StateGraph(S).add_node("remember", remember).add_node("recall", recall)
    b.add_edge(g.START, "remember").add_edge("remember", "recall")
    graph = b.compile(checkpointer=g.InMemorySaver(), store=store)

    def script() -> Script:
        for said in ("I like pasta", "my cat is grey", "cooking at home", "zebras"):
            yield said, attempt(partial(graph.invoke, {"user": "ann", "log": [said]}, thread("t1")))
        yield "store", contents(store)

    def spec(r: Rec) -> None:
        assert [line.split(":")[1] for line in r["zebras"]["log"][-2:]] == [
            "cooking at home",
            "I like pasta",
        ]

    return Case(graph, script=script, spec=spec)
