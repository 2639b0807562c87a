"""A saver written against LangGraph's ``BaseCheckpointSaver`` API on sgdebug's runtime.

The differential programs (``checkpoint_sync_savers``, ``checkpoint_async_saves``) compare
what such a saver receives with LangGraph; these tests pin the parts only sgdebug has:
which savers get a ``LangGraphFace`` (told apart by the first parameter of ``put`` /
``put_writes``), that sgdebug's savers take both calls of those names, and that a saver
of LangGraph's own is refused by name.
"""

from __future__ import annotations

import asyncio
import operator
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest

from sgdebug.runtime import StateGraph
from sgdebug.runtime.checkpoint import InMemorySaver, SqliteSaver
from sgdebug.runtime.checkpoint._tuples import CheckpointTuple
from sgdebug.runtime.checkpoint.base import BaseCheckpointSaver, PendingWrite
from sgdebug.runtime.persist._async_face import face_of
from sgdebug.runtime.persist._sync_face import LangGraphFace, langgraph_style


class S(TypedDict):
    log: Annotated[list[str], operator.add]


def _graph(saver: BaseCheckpointSaver) -> Any:
    b = (
        StateGraph(S)
        .add_node("a", lambda s: {"log": ["a"]})
        .add_node("b", lambda s: {"log": ["b"]})
    )
    b.add_edge("__start__", "a").add_edge("a", "b")
    return b.compile(checkpointer=saver)


CFG: dict[str, Any] = {"configurable": {"thread_id": "t"}}


class Puts(InMemorySaver):
    """Counts LangGraph-style ``put`` calls, remembering what each returned."""

    def __init__(self) -> None:
        super().__init__()
        self.returned: list[Any] = []

    def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:  # type: ignore[override]
        stored = super().put(config, checkpoint, metadata, new_versions)
        self.returned.append(stored)
        return stored


class Ours(InMemorySaver):
    """Overrides ``put_writes`` with sgdebug's parameters."""

    def put_writes(
        self,
        thread_id: str,
        checkpoint_id: str,
        writes: Any = (),
        task_path: str = "",
    ) -> None:
        super().put_writes(thread_id, checkpoint_id, writes)


def test_a_langgraph_style_override_is_told_apart_by_its_first_parameter() -> None:
    assert not langgraph_style(InMemorySaver())
    assert not langgraph_style(Ours())
    assert langgraph_style(Puts())
    assert isinstance(face_of(Puts()), LangGraphFace)
    plain = InMemorySaver()
    assert face_of(plain) is plain


def test_its_put_is_called_for_every_checkpoint_and_returns_the_config_naming_it() -> None:
    saver = Puts()
    graph = _graph(saver)
    assert graph.invoke({"log": []}, CFG) == {"log": ["a", "b"]}
    ids = [h.config["configurable"]["checkpoint_id"] for h in graph.get_state_history(CFG)]
    assert [r["configurable"]["checkpoint_id"] for r in saver.returned] == ids[::-1]
    assert saver.journal == []  # (a face's saver does not journal: put saw every one)


def test_an_async_run_stores_through_it_too() -> None:
    saver = Puts()
    graph = _graph(saver)
    assert asyncio.run(graph.ainvoke({"log": []}, CFG)) == {"log": ["a", "b"]}
    assert len(saver.returned) == 4


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_sgdebug_savers_take_langgraphs_put_writes_call(kind: str, tmp_path: Path) -> None:
    saver: BaseCheckpointSaver = (
        InMemorySaver() if kind == "memory" else SqliteSaver.from_path(tmp_path / "s.db")
    )
    _graph(saver).invoke({"log": []}, CFG)
    record = saver.get_record("t")
    assert record is not None
    config = {"configurable": {"thread_id": "t", "checkpoint_ns": "", "checkpoint_id": record.id}}
    put_writes: Any = saver.put_writes
    put_writes(config, [("log", ["z"])], "task-1", "~__pregel_pull, b")
    assert saver.get_writes("t", record.id) == [
        PendingWrite("task-1", "b", ("__pregel_pull", "b"), "log", ["z"])
    ]


def test_a_checkpoint_dict_sgdebug_did_not_make_is_refused_by_name() -> None:
    put: Any = InMemorySaver().put
    with pytest.raises(NotImplementedError, match=r"InMemorySaver\.aput"):
        put(CFG, {"id": "x", "channel_values": {}}, {}, {})


def test_langgraphs_own_saver_is_refused_naming_what_to_use() -> None:
    from langgraph.checkpoint.memory import InMemorySaver as TheirSaver

    builder = StateGraph(S).add_node("a", lambda s: {"log": ["a"]}).add_edge("__start__", "a")
    with pytest.raises(
        TypeError, match=r"LangGraph's InMemorySaver .*sgdebug\.runtime\.InMemorySaver"
    ):
        builder.compile(checkpointer=TheirSaver())


class Narrowing(InMemorySaver):
    """A ``get_tuple`` override that rebuilds the tuple without its pending writes."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def get_tuple(self, config: Any) -> Any:
        self.reads += 1
        found = super().get_tuple(config)
        return None if found is None else CheckpointTuple(found.config, found.checkpoint, {})


class Foreign(InMemorySaver):
    """A ``get_tuple`` override returning a checkpoint dict of its own."""

    def get_tuple(self, config: Any) -> Any:
        found = super().get_tuple(config)
        return None if found is None else found._replace(checkpoint=dict(found.checkpoint))


def test_a_run_get_state_and_update_state_read_through_its_get_tuple() -> None:
    saver = Narrowing()
    graph = _graph(saver)
    graph.invoke({"log": []}, CFG)
    graph.invoke({"log": ["again"]}, CFG)
    assert saver.reads == 2  # once where each run starts, as LangGraph's
    assert graph.get_state(CFG).values == {"log": ["a", "b", "again", "a", "b"]}
    graph.update_state(CFG, {"log": ["edit"]}, as_node="b")
    assert saver.reads == 4


def test_a_tuple_it_built_itself_is_refused_by_name() -> None:
    graph = _graph(Foreign())
    graph.invoke({"log": []}, CFG)
    with pytest.raises(NotImplementedError, match=r"Foreign\.get_tuple"):
        graph.get_state(CFG)


class AsyncOnly(Narrowing):
    """Its sync read refuses an event loop's thread; its async one is its own."""

    def get_tuple(self, config: Any) -> Any:
        import asyncio

        if asyncio._get_running_loop() is not None:
            raise RuntimeError("sync get_tuple on the event loop's thread")
        return super().get_tuple(config)

    async def aget_tuple(self, config: Any) -> Any:
        return super().get_tuple(config)


def test_on_an_event_loop_a_saver_with_its_own_aget_tuple_is_not_read_through_get_tuple() -> None:
    saver = AsyncOnly()
    graph = _graph(saver)
    assert asyncio.run(graph.ainvoke({"log": []}, CFG)) == {"log": ["a", "b"]}
    assert asyncio.run(graph.aget_state(CFG)).values == {"log": ["a", "b"]}
    assert saver.reads == 0
    assert graph.get_state(CFG).values == {"log": ["a", "b"]}  # (off the loop: through it)
    assert saver.reads == 1
