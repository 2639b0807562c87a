"""Persistence's parts on their own: what a save stores per channel (Blobs), finding values
changed in place (MutationCheck), and the buffer of finished tasks' writes (PendingWrites)."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from sgdebug.runtime.channels import BinaryOperatorAggregate, LastValue
from sgdebug.runtime.checkpoint import InMemorySaver, SqliteSaver
from sgdebug.runtime.checkpoint.base import GONE, Blob, PendingWrite, task_id
from sgdebug.runtime.checkpoint.memory import Prefix
from sgdebug.runtime.persist._blobs import Blobs
from sgdebug.runtime.persist._mutations import MutationCheck
from sgdebug.runtime.persist._pending import PendingWrites

THREAD = "t"


def _channels(**values: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in values.items():
        channel = LastValue(Any, key=key)
        channel.value = value
        out[key] = channel
    return out


def test_a_number_is_stored_once_while_it_stays_the_same_object() -> None:
    blobs = Blobs(InMemorySaver())
    channels = _channels(n=12345)
    assert blobs.changes(channels, ["n"], "c1", first=True) == [("n", 12345)]
    assert blobs.changes(channels, ["n"], "c2", first=False) == []  # same object: no blob
    channels["n"].value = 7
    assert blobs.changes(channels, ["n"], "c3", first=False) == [("n", 7)]


def test_an_emptied_channel_is_stored_as_gone_after_the_first_save() -> None:
    from sgdebug.runtime.channels import MISSING

    blobs = Blobs(InMemorySaver())
    channels = _channels(s=MISSING)
    assert blobs.changes(channels, ["s"], "c1", first=True) == []
    assert blobs.changes(channels, ["s"], "c2", first=False) == [("s", GONE)]


def test_an_append_only_list_of_scalars_is_one_list_shared_by_every_version() -> None:
    blobs = Blobs(InMemorySaver())
    channels = _channels(log=["a"])
    [(_, first)] = blobs.changes(channels, ["log"], "c1", first=True)
    channels["log"].value = ["a", "b"]
    [(_, second)] = blobs.changes(channels, ["log"], "c2", first=False)
    assert isinstance(first, Prefix) and isinstance(second, Prefix)
    assert first.items is second.items  # one copy...
    assert (first.items[: first.length], second.items[: second.length]) == (["a"], ["a", "b"])


def test_a_growing_list_is_stored_as_a_delta_on_the_blob_before_it(tmp_path: Path) -> None:
    saver = SqliteSaver.from_path(tmp_path / "s.db")  # stores bytes: no shared lists
    try:
        blobs = Blobs(saver)
        channels = _channels(log=[{"k": 1}])
        [(_, whole)] = blobs.changes(channels, ["log"], "c1", first=True)
        channels["log"].value = [{"k": 1}, {"k": 2}]
        [(_, delta)] = blobs.changes(channels, ["log"], "c2", first=False)
        assert not isinstance(whole, Blob)
        assert isinstance(delta, Blob) and delta.kind == "list" and delta.depth == 1
        assert delta.base == "c1:log" and saver.decode(delta.data) == [{"k": 2}]
        channels["log"].value = [{"k": 9}]  # not an append: stored whole again
        [(_, again)] = blobs.changes(channels, ["log"], "c3", first=False)
        assert not isinstance(again, Blob)
    finally:
        saver.close()


def _run(channels: dict[str, Any], updated: set[str] | None = None, step: int = 3) -> Any:
    return SimpleNamespace(channels=channels, updated=updated, step=step)


def _task(name: str, reads: tuple[str, ...]) -> Any:
    node = SimpleNamespace(reader=SimpleNamespace(keys=reads))
    return SimpleNamespace(name=name, node=node, send=False)


def test_a_list_changed_in_place_is_reported_once_and_stored_again() -> None:
    blobs = Blobs(InMemorySaver())
    check = MutationCheck(blobs)
    items = [{"n": 1}]
    channels = _channels(items=items)
    blobs.changes(channels, ["items"], "c1", first=True)
    tasks = [_task("reader", ("items",)), _task("other", ("x",))]
    check.check(_run(channels), tasks)
    assert check.mutations == []  # nothing changed yet
    items[0]["n"] = 2  # a node mutates the value it was given
    check.check(_run(channels), tasks)
    check.check(_run(channels), tasks)
    [found] = check.mutations
    assert (found.step, found.channel, found.tasks, found.written) == (
        3,
        "items",
        ("reader",),
        False,
    )
    assert check.mutated == {"items"}  # the next save stores it again


def test_a_reducer_list_folded_from_its_stored_object_is_checked_for_a_prior_change() -> None:
    blobs = Blobs(InMemorySaver())
    check = MutationCheck(blobs)
    log = BinaryOperatorAggregate(list, operator.add, key="log")
    log.update([[{"n": 1}]])
    channels: dict[str, Any] = {"log": log}
    blobs.changes(channels, ["log"], "c1", first=True)
    log.value[0]["n"] = 5  # changed in place, then appended to by the commit
    log.update([[{"n": 2}]])
    check.check(_run(channels, updated={"log"}), [_task("w", ("log",))])
    [found] = check.mutations
    assert (found.channel, found.written) == ("log", True)


def test_pending_writes_wait_encoded_and_flush_against_their_checkpoint() -> None:
    class Recording(InMemorySaver):
        def __init__(self) -> None:
            super().__init__()
            self.stored: list[tuple[str, str, Sequence[PendingWrite]]] = []

        def put_writes(
            self,
            thread_id: str,
            checkpoint_id: str,
            writes: Sequence[PendingWrite] = (),
            task_path: str = "",
        ) -> None:
            self.stored.append((thread_id, checkpoint_id, writes))

    saver = Recording()
    pending = PendingWrites(saver, THREAD)
    done: Any = SimpleNamespace(
        name="a", path=("__pregel_pull", "a"), writes=[("x", 1), ("y", [2])]
    )
    quiet: Any = SimpleNamespace(name="b", path=("__pregel_pull", "b"), writes=[])
    pending.add(done)
    pending.add(quiet)
    assert [w.task_name for w in pending.items] == ["a", "b"]
    assert pending.items[1].writes == [("__no_writes__", None)]
    taken = pending.take()
    assert len(taken) == 2 and pending.items == []
    pending.add(done)
    pending.flush(None)  # no checkpoint to store them against: dropped
    assert pending.items == [] and saver.stored == []
    pending.add(done)
    pending.flush("c9")
    [(thread, checkpoint, writes)] = saver.stored
    assert (thread, checkpoint) == (THREAD, "c9")
    assert [(w.task_id, w.channel, w.value) for w in writes] == [
        (task_id("c9", done.path), "x", 1),
        (task_id("c9", done.path), "y", [2]),
    ]


def test_checkpoint_metadata_is_worked_out_once_a_run_while_its_config_stays(
    monkeypatch: Any,
) -> None:
    """The user's metadata goes into every checkpoint; it is made again only when the
    config's ``metadata``/``configurable`` change (a config without ``metadata`` made it
    again at every save: a per-step cost on the history path)."""
    from typing import TypedDict

    from sgdebug.runtime import START, StateGraph
    from sgdebug.runtime.persist import _persist

    made: list[Any] = []
    original = getattr(_persist, "user_metadata")  # noqa: B009 (the module's own import)

    def counted(config: Any) -> Any:
        made.append(config)
        return original(config)

    class S(TypedDict):
        n: int

    def bump(state: S) -> dict[str, int]:
        return {"n": state["n"] + 1}

    def again(state: S) -> str:
        return "bump" if state["n"] < 20 else "__end__"

    graph = StateGraph(S).add_node("bump", bump).add_edge(START, "bump")
    graph.add_conditional_edges("bump", again)
    compiled = graph.compile(checkpointer=InMemorySaver())
    monkeypatch.setattr(_persist, "user_metadata", counted)
    config = {"configurable": {"thread_id": THREAD, "user_id": "ann"}}
    assert compiled.invoke({"n": 0}, config) == {"n": 20}
    history = list(compiled.get_state_history(config))
    assert len(history) == 22 and all((s.metadata or {})["user_id"] == "ann" for s in history)
    assert len(made) == 1
