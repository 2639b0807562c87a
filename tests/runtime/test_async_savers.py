"""A saver written LangGraph's way (its own ``aput``/``aput_writes``) under async runs.

The differential programs (``checkpoint_async_savers``) compare what such a saver receives
with LangGraph; these tests pin the parts only sgdebug has: which runs get an
``AsyncFace``, what the face answers before its stores are awaited, and what the base
``aput``/``aput_writes`` accept.
"""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

import pytest

from sgdebug.runtime import StateGraph
from sgdebug.runtime.checkpoint import InMemorySaver
from sgdebug.runtime.checkpoint.base import PendingWrite
from sgdebug.runtime.persist._async_face import AsyncFace, AsyncStores, async_stores, face_of


class S(TypedDict):
    log: Annotated[list[str], operator.add]


class Counting(InMemorySaver):
    """Counts its ``aput`` calls; stores only when ``keep`` is set."""

    def __init__(self, *, keep: bool = True) -> None:
        super().__init__()
        self.calls = 0
        self.keep = keep

    async def aput(
        self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any
    ) -> dict[str, Any]:
        self.calls += 1
        if not self.keep:
            return dict(config)
        return await super().aput(config, checkpoint, metadata, new_versions)


def _graph(saver: InMemorySaver) -> Any:
    b = (
        StateGraph(S)
        .add_node("a", lambda s: {"log": ["a"]})
        .add_node("b", lambda s: {"log": ["b"]})
    )
    b.add_edge("__start__", "a").add_edge("a", "b")
    return b.compile(checkpointer=saver)


CFG: dict[str, Any] = {"configurable": {"thread_id": "t"}}


def test_only_async_runs_of_an_overriding_saver_get_a_face() -> None:
    plain, counting = InMemorySaver(), Counting()
    assert face_of(counting) is counting  # outside an async call

    async def made() -> None:
        with async_stores():
            assert face_of(plain) is plain
            face = face_of(counting)
            assert isinstance(face, AsyncFace) and face.inner is counting
            # a run made in a task of the face's run has a face of its own, reading the
            # parent's first
            nested = face_of(face)
            assert isinstance(nested, AsyncFace) and nested is not face
            assert nested.inner is counting and nested.reads is face
        assert face_of(face) is counting  # a sync run made in its task: the saver's put

    asyncio.run(made())


def test_a_sync_run_stores_through_put_and_an_async_one_through_aput() -> None:
    saver = Counting()
    graph = _graph(saver)
    graph.invoke({"log": []}, CFG)
    assert saver.calls == 0
    assert asyncio.run(graph.ainvoke({"log": []}, {"configurable": {"thread_id": "u"}})) == {
        "log": ["a", "b"]
    }
    assert saver.calls == 4  # the input (-1), after __start__ (0), after a (1), after b (2)
    history = graph.get_state_history({"configurable": {"thread_id": "u"}})
    assert [h.metadata["step"] for h in history] == [2, 1, 0, -1]


def test_an_aput_that_does_not_store_leaves_no_checkpoint() -> None:
    saver = Counting(keep=False)
    graph = _graph(saver)
    asyncio.run(graph.ainvoke({"log": []}, CFG))
    assert saver.calls == 4
    assert graph.get_state(CFG).values == {}
    assert list(graph.get_state_history(CFG)) == []


def test_the_face_answers_for_what_it_holds_until_drained() -> None:
    inner = Counting()
    graph = _graph(inner)
    graph.invoke({"log": []}, CFG)
    stored = inner.get_record("t")
    assert stored is not None
    face = AsyncFace(inner, AsyncStores(asyncio.new_event_loop()))
    held = stored._replace(id="ffffffff-held", parent_id=stored.id, step=stored.step + 1)
    face.put(held, {})
    assert face.get_record("t") == held  # the latest, though not stored yet
    assert face.get_record("t", "ffffffff-held") == held
    assert inner.get_record("t", "ffffffff-held") is None
    face.update_seen("t", "ffffffff-held", "__interrupt__", {"log": 1})
    seen = face.get_record("t", "ffffffff-held")
    assert seen is not None and seen.versions_seen["__interrupt__"] == {"log": 1}
    asyncio.run(face.drain())
    found = inner.get_record("t", "ffffffff-held")
    assert found is not None and found.versions_seen["__interrupt__"] == {"log": 1}
    assert inner.calls == 1


def test_base_aput_refuses_a_checkpoint_dict_it_did_not_make() -> None:
    with pytest.raises(NotImplementedError, match=r"InMemorySaver\.aput"):
        asyncio.run(InMemorySaver().aput(CFG, {"id": "x", "channel_values": {}}, {}, {}))


def test_base_aput_writes_takes_a_plain_list_for_a_pulled_node() -> None:
    saver = InMemorySaver()
    _graph(saver).invoke({"log": []}, CFG)
    record = saver.get_record("t")
    assert record is not None
    config = {"configurable": {"thread_id": "t", "checkpoint_id": record.id}}
    asyncio.run(saver.aput_writes(config, [("log", ["z"])], "task-1", "~__pregel_pull, b"))
    assert saver.get_writes("t", record.id) == [
        PendingWrite("task-1", "b", ("__pregel_pull", "b"), "log", ["z"])
    ]
    with pytest.raises(NotImplementedError, match="__pregel_push"):
        asyncio.run(saver.aput_writes(config, [("log", ["z"])], "task-2", "~__pregel_push, 0"))
    with pytest.raises(ValueError, match="checkpoint_id"):
        asyncio.run(saver.aput_writes(CFG, [("log", ["z"])], "task-3", "~__pregel_pull, b"))


def test_a_store_awaited_at_once_is_refused_on_its_loops_thread() -> None:
    async def on_the_loop() -> None:
        stores = AsyncStores(asyncio.get_running_loop(), at_once=True)
        face = AsyncFace(Counting(), stores)
        write = PendingWrite("task-1", "b", ("__pregel_pull", "b"), "log", ["z"])
        with pytest.raises(RuntimeError, match="loop's thread"):  # (waiting would hang it)
            face.put_writes("t", "some-checkpoint", [write])

    asyncio.run(on_the_loop())


def test_aupdate_state_awaits_each_store_on_the_callers_loop() -> None:
    saver = Counting()
    graph = _graph(saver)
    graph.invoke({"log": []}, CFG)

    async def update() -> Any:
        return await graph.aupdate_state(CFG, {"log": ["u"]}, as_node="a")

    config = asyncio.run(update())
    assert saver.calls == 1
    assert graph.get_state(CFG).config == config
