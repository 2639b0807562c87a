"""Checkpoint programs: history listing, forks, threads, errors, failures and streams.

See ``programs/checkpoint.py`` for how these scripts are observed and compared.
"""

from __future__ import annotations

import asyncio
import operator
import time
from typing import Annotated, Any, TypedDict

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, attempt, err, say, ts
from .checkpoint import (
    CFG,
    Rec,
    S,
    Script,
    chain,
    ckpt,
    events,
    history,
    logs,
    snap,
    steps,
    thread,
)

NEEDS_THREAD = (
    "Checkpointer requires one or more of the following 'configurable' keys: "
    "thread_id, checkpoint_ns, checkpoint_id"
)


def _counting_chain(g: EngineAPI, calls: list[str]) -> Any:
    def node(name: str) -> Any:
        def run(s: Any) -> dict[str, Any]:
            calls.append(name)
            return {"log": [name]}

        return run

    b = g.StateGraph(S)
    for name in ("a", "b", "c"):
        b.add_node(name, node(name))
    b.add_edge(g.START, "a").add_edge("a", "b").add_edge("b", "c")
    return b.compile(checkpointer=g.InMemorySaver())


def _at_step(graph: Any, step: int, config: dict[str, Any] = CFG) -> Any:
    return next(h for h in graph.get_state_history(config) if h.metadata["step"] == step)


@ckpt
def fork_from_an_old_checkpoint(g: EngineAPI) -> Case:
    graph = chain(g)

    def script() -> Script:
        graph.invoke({"x": 1}, CFG)
        old = next(h for h in graph.get_state_history(CFG) if h.next == ("b",))
        yield "replay", attempt(lambda: graph.invoke(None, old.config))
        yield "edit fork", attempt(lambda: graph.update_state(old.config, {"x": 9}))
        yield "edited fork", snap(graph)
        yield "continue fork", attempt(lambda: graph.invoke(None, CFG))
        yield "history", history(graph)
        yield "old is intact", snap(graph, old.config)

    def spec(r: Rec) -> None:
        assert r["replay"] == {"x": 1, "log": ["a", "b", "c"]}
        assert r["edited fork"]["values"] == {"x": 9, "log": ["a"]}
        assert r["continue fork"] == {"x": 9, "log": ["a", "b", "c"]}
        sources = [s[0] for s in steps(r["history"])]
        assert sources.count("fork") == 1 and sources.count("update") == 1

    return Case(graph, script=script, spec=spec)


@ckpt
def replay_reruns_the_nodes_after_the_checkpoint(g: EngineAPI) -> Case:
    calls: list[str] = []
    graph = _counting_chain(g, calls)

    def script() -> Script:
        graph.invoke({"x": 1}, CFG)
        old = _at_step(graph, 1)
        calls.clear()
        yield "replay", events(lambda: graph.stream(None, old.config, stream_mode="values"))
        yield "calls", list(calls)
        yield "latest", snap(graph)
        yield "old", snap(graph, old.config)
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert r["calls"] == ["b", "c"]  # nodes are called again (5.7)
        latest = r["latest"]
        assert latest["metadata"]["step"] == 4  # fork step 2, then b and c
        assert [s[:2] for s in steps(r["history"])][:3] == [("loop", 4), ("loop", 3), ("fork", 2)]
        assert r["old"]["next"] == ("b",)
        assert r["old"]["tasks"][0]["result"] == {"log": ["b"]}  # results recorded at the time

    return Case(graph, script=script, spec=spec)


@ckpt
def update_an_old_checkpoint_then_resume(g: EngineAPI) -> Case:
    graph = chain(g, "abcd")

    def script() -> Script:
        graph.invoke({"x": 1}, CFG)
        old = _at_step(graph, 2)
        yield "update", attempt(lambda: graph.update_state(old.config, {"x": 7}, as_node="a"))
        yield "latest", snap(graph)
        yield "resume", attempt(lambda: graph.invoke(None, CFG))
        yield "history", history(graph)
        yield "old", snap(graph, old.config)

    def spec(r: Rec) -> None:
        assert r["latest"]["metadata"] == {"source": "update", "step": 3, "parents": {}}
        assert r["latest"]["next"] == ("b",)
        assert r["resume"] == {"x": 7, "log": ["a", "b", "b", "c", "d"]}

    return Case(graph, script=script, spec=spec)


@ckpt
def history_filter_before_and_limit(g: EngineAPI) -> Case:
    graph = chain(g, interrupt_before=["c"])

    def script() -> Script:
        graph.invoke({"x": 1}, CFG)
        graph.update_state(CFG, {"x": 2})
        graph.invoke(None, CFG)
        mid = _at_step(graph, 1)
        yield "all", history(graph)
        yield "input only", history(graph, filter={"source": "input"})
        yield "update only", history(graph, filter={"source": "update"})
        yield "step 1", history(graph, filter={"step": 1})
        yield "no match", history(graph, filter={"source": "nope"})
        yield "limit 2", history(graph, limit=2)
        yield "before step 1", history(graph, before=mid.config)
        yield "before + limit", history(graph, before=mid.config, limit=1)
        yield "from old config", history(graph, mid.config)
        yield "unknown thread", history(graph, thread("nobody"))

    def spec(r: Rec) -> None:
        assert [s[1] for s in steps(r["input only"])] == [-1]
        assert [s[:2] for s in steps(r["update only"])] == [("update", 3)]
        assert len(r["limit 2"]) == 2 and r["limit 2"] == r["all"][:2]
        assert r["before step 1"] == r["all"][-2:]
        assert r["no match"] == [] and r["unknown thread"] == []

    return Case(graph, script=script, spec=spec)


@ckpt
def get_state_of_an_unknown_thread(g: EngineAPI) -> Case:
    graph = chain(g)

    def script() -> Script:
        yield "unknown", snap(graph, {"configurable": {"thread_id": "nobody", "extra": 1}})
        graph.invoke({"x": 1}, CFG)
        yield "other thread", snap(graph, thread("t2"))
        yield "known", snap(graph)

    def spec(r: Rec) -> None:
        unknown = r["unknown"]
        assert unknown["values"] == {} and unknown["next"] == () and unknown["tasks"] == []
        assert unknown["config"] == {"configurable": {"thread_id": "nobody", "extra": 1}}
        assert unknown["metadata"] is None and unknown["parent_config"] is None

    return Case(graph, script=script, spec=spec)


@ckpt
def checkpointer_errors(g: EngineAPI) -> Case:
    graph = chain(g)
    no_saver = g.StateGraph(S).add_node("a", say("a")).add_edge(g.START, "a").compile()

    def script() -> Script:
        yield "invoke without thread", attempt(lambda: graph.invoke({"x": 1}))
        yield "stream without thread", events(lambda: graph.stream({"x": 1}, {}))
        yield "none on fresh thread", attempt(lambda: graph.invoke(None, CFG))
        yield "stream none on fresh", events(lambda: graph.stream(None, CFG))
        yield "get_state", attempt(lambda: no_saver.get_state(CFG))
        yield "get_state_history", attempt(lambda: list(no_saver.get_state_history(CFG)))
        yield "update_state", attempt(lambda: no_saver.update_state(CFG, {"x": 1}))
        yield "resume", attempt(lambda: no_saver.invoke(g.Command(resume=1)))
        yield "after errors", history(graph)

    def spec(r: Rec) -> None:
        assert r["invoke without thread"] == err("ValueError", NEEDS_THREAD)
        no_input = err("EmptyInputError", "Received no input for __start__")
        assert r["none on fresh thread"] == no_input
        for key in ("get_state", "get_state_history", "update_state"):
            assert r[key] == err("ValueError", "No checkpointer set")

    return Case(graph, script=script, spec=spec)


@ckpt
def failing_task_keeps_sibling_writes(g: EngineAPI) -> Case:
    calls: list[str] = []

    def flaky(s: Any) -> dict[str, Any]:
        calls.append("flaky")
        if calls.count("flaky") == 1:
            time.sleep(0.05)  # let the sibling's writes be saved first (else LangGraph races)
            raise ValueError("boom")
        return {"log": ["flaky"]}

    def ok(s: Any) -> dict[str, Any]:
        calls.append("ok")
        return {"log": ["ok"]}

    b = g.StateGraph(S).add_node("ok", ok).add_node("flaky", flaky).add_node("end", say("end"))
    b.add_edge(g.START, "ok").add_edge(g.START, "flaky").add_edge(["ok", "flaky"], "end")
    graph = b.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        yield "first", attempt(lambda: graph.invoke({"x": 1}, CFG))
        yield "failed state", snap(graph)
        yield "failed history", history(graph)
        yield "retry", attempt(lambda: graph.invoke(None, CFG))
        yield "calls", sorted(calls)
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert r["first"] == err("ValueError", "boom")
        failed = r["failed state"]
        assert failed["next"] == ("flaky",) and failed["values"]["log"] == ["ok"]
        errors = {t["name"]: t["error"] for t in failed["tasks"]}
        assert errors == {"ok": None, "flaky": "ValueError('boom')"}  # a str after saving
        assert r["retry"]["log"] == ["flaky", "ok", "end"]  # pending writes apply by name
        assert r["calls"] == ["flaky", "flaky", "ok"]  # only the failed task re-runs (3.8)

    return Case(graph, script=script, spec=spec)


@ckpt
def second_run_on_a_thread_starts_at_last_step(g: EngineAPI) -> Case:
    graph = chain(g)

    def script() -> Script:
        yield "first", graph.invoke({"x": 1}, CFG)
        yield "second run", events(lambda: graph.stream({"x": 2}, CFG, stream_mode="debug"))
        yield "none on finished", graph.invoke(None, CFG)
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert r["none on finished"] == {"x": 2, "log": ["a", "b", "c"] * 2}
        second_run = [s[:2] for s in steps(r["history"])][:6]
        assert second_run == [
            ("loop", 8),
            ("loop", 7),
            ("loop", 6),
            ("loop", 5),
            ("input", 4),
            ("loop", 3),
        ]  # the second run's input checkpoint is step 4 (3.2)

    return Case(graph, script=script, spec=spec)


@ckpt
def recursion_limit_is_counted_per_run(g: EngineAPI) -> Case:
    def inc(s: Any) -> dict[str, Any]:
        return {"x": s["x"] + 1, "log": ["inc"]}

    b = g.StateGraph(S).add_node("inc", inc).add_edge(g.START, "inc")
    b.add_conditional_edges("inc", lambda s: "inc" if s["x"] % 3 else g.END)
    graph = b.compile(checkpointer=g.InMemorySaver())
    limited = {**CFG, "recursion_limit": 3}
    message = (
        "Recursion limit of 3 reached without hitting a stop condition. You can increase the "
        "limit by setting the `recursion_limit` config key." + ts("GRAPH_RECURSION_LIMIT")
    )

    def script() -> Script:
        yield "run 1", attempt(lambda: graph.invoke({"x": 1}, limited))
        yield "run 2", attempt(lambda: graph.invoke({"x": 4}, limited))
        yield "run 3", attempt(lambda: graph.invoke({"x": 0}, limited))
        yield "after limit", snap(graph)
        yield "history", [s[:2] for s in steps(history(graph))]

    def spec(r: Rec) -> None:
        assert r["run 1"] == {"x": 3, "log": ["inc", "inc"]}
        assert r["run 2"]["x"] == 6  # the limit restarts with every run (3.7)
        assert r["run 3"] == err("GraphRecursionError", message)

    return Case(graph, script=script, spec=spec)


@ckpt
def checkpoints_stream_on_pause_and_resume(g: EngineAPI) -> Case:
    graph = chain(g, interrupt_before=["b"])

    def script() -> Script:
        yield "run", events(lambda: graph.stream({"x": 1}, CFG, stream_mode="checkpoints"))
        yield "resume", events(lambda: graph.stream(None, CFG, stream_mode="checkpoints"))
        no_saver = g.StateGraph(S).add_node("a", say("a")).add_edge(g.START, "a").compile()
        yield "no saver", events(lambda: no_saver.stream({"x": 1}, stream_mode="checkpoints"))

    def spec(r: Rec) -> None:
        assert [e["metadata"]["step"] for e in r["run"]] == [-1, 0, 1]
        resumed_from, paused_at = r["resume"][0], r["run"][-1]
        assert resumed_from["config"]["configurable"] == paused_at["config"]["configurable"]
        assert resumed_from["next"] == paused_at["next"] == ["b"]  # re-emitted on resume
        assert r["no saver"] == []

    return Case(graph, script=script, spec=spec)


@ckpt
def debug_stream_with_a_dynamic_interrupt(g: EngineAPI) -> Case:
    def ask(s: Any) -> dict[str, Any]:
        return {"log": [str(g.interrupt("q"))]}

    b = g.StateGraph(S).add_node("a", say("a")).add_node("ask", ask)
    b.add_edge(g.START, "a").add_edge("a", "ask")
    graph = b.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        yield "run", events(lambda: graph.stream({"x": 1}, CFG, stream_mode="debug"))
        resume = g.Command(resume="r")
        yield "resume", events(lambda: graph.stream(resume, CFG, stream_mode=["debug", "values"]))

    def spec(r: Rec) -> None:
        kinds = [e["type"] for e in r["run"]]
        assert kinds[:2] == ["checkpoint", "checkpoint"]
        assert kinds.count("task_result") == 2

    return Case(graph, script=script, spec=spec)


@ckpt
def config_metadata_reaches_checkpoints(g: EngineAPI) -> Case:
    graph = chain(g, interrupt_after=["a"])
    config = {**CFG, "metadata": {"user": "ann"}}

    def script() -> Script:
        graph.invoke({"x": 1}, config)
        yield "paused", snap(graph)
        yield "resumed", attempt(lambda: graph.invoke(None, {**CFG, "metadata": {"k": 2}}))
        yield "updated", attempt(lambda: graph.update_state(config, {"x": 3}))
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert r["paused"]["metadata"]["user"] == "ann"

    return Case(graph, script=script, spec=spec)


class _Pair(TypedDict):
    pair: tuple[int, int]
    log: Annotated[list[str], operator.add]


@ckpt
def tuples_become_lists_after_saving(g: EngineAPI) -> Case:
    b = g.StateGraph(_Pair)
    b.add_node("a", lambda s: {"pair": (1, 2)})
    b.add_node("b", lambda s: {"log": [type(s["pair"]).__name__]})
    b.add_edge(g.START, "a").add_edge("a", "b")
    graph = b.compile(checkpointer=g.InMemorySaver(), interrupt_before=["b"])

    def script() -> Script:
        yield "first", graph.invoke({"log": []}, CFG)
        yield "first type", type(graph.invoke({"log": []}, thread("t2"))["pair"]).__name__
        yield "resumed", graph.invoke(None, CFG)
        yield "state", snap(graph)
        yield "history logs", logs(history(graph))

    def spec(r: Rec) -> None:
        assert r["first type"] == "tuple"  # the producing run returns the original object
        assert r["resumed"] == {"pair": [1, 2], "log": ["list"]}  # 5.1

    return Case(graph, script=script, spec=spec)


@ckpt
def commit_error_keeps_the_step_task_writes(g: EngineAPI) -> Case:
    # Two parallel writes to a plain key fail at commit, after both tasks finished: their
    # writes are already saved against the checkpoint, so the history lists both results
    # (and get_state, which applies them to show the latest state, fails the same way).
    b = g.StateGraph(S)
    b.add_node("a", lambda s: {"x": 1, "log": ["a"]}).add_node("b", lambda s: {"x": 2})
    b.add_edge(g.START, "a").add_edge(g.START, "b")
    graph = b.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"x": 0}, CFG))
        yield "state", snap(graph)
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert r["invoke"].name == "InvalidUpdateError"
        assert r["state"].name == "InvalidUpdateError"  # the latest state applies them again
        latest = r["history"][0]
        assert latest["next"] == ("a", "b")
        results = {t["name"]: t["result"] for t in latest["tasks"]}
        assert results == {"a": {"x": 1, "log": ["a"]}, "b": {"x": 2}}

    return Case(graph, script=script, spec=spec)


def picky(old: list[str], new: list[str]) -> list[str]:
    """A reducer that refuses the item ``"bad"``."""
    if "bad" in new:
        raise ValueError("no bad items")
    return old + new


class Picky(TypedDict):
    """A plain key and a log whose reducer can fail."""

    x: int
    log: Annotated[list[str], picky]


@ckpt
def reducer_error_keeps_the_lone_task_writes(g: EngineAPI) -> Case:
    b = g.StateGraph(Picky)
    b.add_node("a", lambda s: {"log": ["ok"]}).add_node("b", lambda s: {"x": 5, "log": ["bad"]})
    b.add_edge(g.START, "a").add_edge("a", "b")
    graph = b.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"x": 0, "log": []}, CFG))
        yield "state", snap(graph)
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert r["invoke"] == err("ValueError", "no bad items")
        assert r["state"] == err("ValueError", "no bad items")
        state = r["history"][0]
        assert state["next"] == ("b",) and state["values"] == {"x": 0, "log": ["ok"]}
        assert [t["result"] for t in state["tasks"]] == [{"x": 5, "log": ["bad"]}]

    return Case(graph, script=script, spec=spec)


@ckpt
def async_failing_task_keeps_sibling_writes(g: EngineAPI) -> Case:
    calls: list[str] = []

    async def flaky(s: Any) -> dict[str, Any]:
        calls.append("flaky")
        if calls.count("flaky") == 1:
            await asyncio.sleep(0.05)  # let the sibling finish first (else LangGraph races)
            raise ValueError("boom")
        return {"log": ["flaky"]}

    async def ok(s: Any) -> dict[str, Any]:
        calls.append("ok")
        return {"log": ["ok"]}

    b = g.StateGraph(S).add_node("ok", ok).add_node("flaky", flaky)
    b.add_edge(g.START, "ok").add_edge(g.START, "flaky")
    graph = b.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        yield "first", attempt(lambda: asyncio.run(graph.ainvoke({"x": 1}, CFG)))
        yield "failed state", snap(graph)
        yield "retry", attempt(lambda: asyncio.run(graph.ainvoke(None, CFG)))
        yield "calls", sorted(calls)
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert r["first"] == err("ValueError", "boom")
        errors = {t["name"]: t["error"] for t in r["failed state"]["tasks"]}
        assert errors == {"ok": None, "flaky": "ValueError('boom')"}
        assert r["retry"]["log"] == ["flaky", "ok"]
        assert r["calls"] == ["flaky", "flaky", "ok"]  # ok's writes were kept, it did not rerun

    return Case(graph, script=script, spec=spec)


@ckpt
def checkpoint_metadata_keeps_the_users_configurable_and_metadata(g: EngineAPI) -> Case:
    """Every checkpoint's metadata gets the run's plain config values (str/int/float/bool,
    not ``__``-prefixed, not LangGraph's own keys); a user's ``source``/``step`` do not
    replace the checkpoint's; in a subgraph too, and an update takes its own config's."""
    sub = g.StateGraph(S).add_node("inner", say("inner")).add_edge(g.START, "inner").compile()
    b = g.StateGraph(S).add_node("sub", sub).add_node("after", say("after"))
    graph = b.add_edge(g.START, "sub").add_edge("sub", "after").compile(g.InMemorySaver())
    config = {
        "configurable": {
            "thread_id": "t1", "user_id": "u\x001", "n": 3, "ratio": 0.5, "flag": True,
            "run_id": "r1", "items": [1], "none": None, "__private": "p", "checkpoint_ns": "",
        },
        "metadata": {"tag": "m", "source": "mine", "step": 99, "nested": {"a": 1}},
    }  # fmt: skip

    def script() -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"x": 1}, config))
        yield "history", history(graph, thread("t1"))
        yield "subgraph", [h.metadata for h in graph.checkpointer.list(None)]
        updated = {"configurable": {"thread_id": "t1", "editor": "e"}}
        yield (
            "update",
            attempt(lambda: graph.update_state(updated, {"log": ["u"]}, as_node="after")),
        )
        yield "after update", snap(graph, thread("t1"))["metadata"]

    def spec(r: Rec) -> None:
        first = r["history"][0]["metadata"]
        assert first["source"] == "loop" and first["user_id"] == "u1" and "items" not in first
        assert r["after update"]["editor"] == "e" and "user_id" not in r["after update"]

    return Case(graph, script=script, spec=spec)
