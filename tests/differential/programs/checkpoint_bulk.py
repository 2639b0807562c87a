"""Checkpoint programs: ``bulk_update_state`` with several updates in one superstep, and
``update_state(task_id=...)``.

A superstep of updates is applied as one commit of its nodes' tasks and stored as one
``update`` checkpoint; each update is kept as the result of the next planned task of its
node (so a fan-out of ``Send`` tasks can be replayed by updates, one per task). See
``programs/checkpoint.py`` for how these scripts are observed and compared.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, Raised, attempt, say
from .checkpoint import CFG, Rec, S, Script, chain, ckpt, events, history, snap, thread


class Fan(TypedDict):
    """A key a mapper sets and the results its Send tasks add."""

    foo: str
    tasks: Annotated[list[int], operator.add]


def _fan_out(g: EngineAPI) -> Any:
    def agent(state: Fan) -> dict[str, Any]:
        return {"foo": "agent"}

    def mapper(state: Fan) -> Any:
        sends = [g.Send("task", {"index": i}) for i in range(3)]
        return g.Command(goto=sends, update={"foo": "map"})

    def task(state: dict[str, Any]) -> dict[str, Any]:
        return {"tasks": [state["index"]]}

    b = g.StateGraph(Fan)
    b.add_node("agent", agent).add_node("map", mapper).add_node("task", task)
    b.add_edge(g.START, "agent").add_edge("agent", "map")
    return b.compile(checkpointer=g.InMemorySaver())


@ckpt
def bulk_update_state_replays_a_fan_out(g: EngineAPI) -> Case:
    graph = _fan_out(g)
    up = g.StateUpdate
    sends = [g.Send("task", {"index": i}) for i in range(3)]
    replay = [
        [up({"foo": "input"}, "__input__")],
        [up({"foo": "input"}, "__start__")],
        [up({"foo": "agent", "tasks": []}, "agent")],
        [up(g.Command(goto=sends, update={"foo": "map"}), "map")],
        [up({"tasks": [0]}, "task"), up({"tasks": [1]}, "task"), up({"tasks": [2]}, "task")],
    ]

    def script() -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"foo": "input"}, thread("ran")))
        yield "ran", history(graph, thread("ran"))
        yield "replay", attempt(lambda: graph.bulk_update_state(CFG, replay))
        yield "after", snap(graph)
        yield "replayed", history(graph)

    def spec(r: Rec) -> None:
        assert r["after"]["values"] == {"foo": "map", "tasks": [0, 1, 2]}
        assert [h["metadata"]["step"] for h in r["replayed"]] == [3, 2, 1, 0, -1]
        assert [t["name"] for t in r["replayed"][1]["tasks"]] == ["task"] * 3
        assert [t["result"] for t in r["replayed"][1]["tasks"]] == [
            {"tasks": [0]},
            {"tasks": [1]},
            {"tasks": [2]},
        ]

    return Case(graph, script=script, spec=spec)


@ckpt
def bulk_update_state_several_nodes_in_one_superstep(g: EngineAPI) -> Case:
    graph = chain(g, "ab")
    up = g.StateUpdate

    def script() -> Script:
        first = [[up({"x": 1}, "a")]]
        yield "first", attempt(lambda: graph.bulk_update_state(CFG, first))
        both = [[up({"x": 2, "log": ["ua"]}, "a"), up({"log": ["ub"]}, "b")]]
        yield "both", attempt(lambda: graph.bulk_update_state(CFG, both))
        yield "after", snap(graph)
        yield "history", history(graph)
        two = [[up({"x": 1}, "a")], [up({"x": 3}, "a"), up({"log": ["ub"]}, "b")]]
        yield "two steps", attempt(lambda: graph.bulk_update_state(thread("t2"), two))
        yield "two steps history", history(graph, thread("t2"))
        yield "resume", attempt(lambda: graph.invoke(None, CFG))

    def spec(r: Rec) -> None:
        assert r["after"]["values"] == {"x": 2, "log": ["ua", "ub"]}
        assert len(r["history"]) == 2
        assert len(r["two steps history"]) == 2
        assert r["after"]["metadata"]["source"] == "update"

    return Case(graph, script=script, spec=spec)


@ckpt
def bulk_update_state_refuses_what_cannot_share_a_superstep(g: EngineAPI) -> Case:
    graph = chain(g, "ab")
    up = g.StateUpdate

    def bulk(*updates: Any) -> Any:
        return attempt(lambda: graph.bulk_update_state(CFG, [list(updates)]))

    def script() -> Script:
        graph.invoke({"x": 1}, CFG)
        yield "no as_node", bulk(up({"x": 2}), up({"x": 3}))
        yield "end and copy", bulk(up(None, g.END), up(None, "__copy__"))
        yield "input", bulk(up({"x": 2}, "__input__"), up({"x": 3}, "a"))
        yield "copy", bulk(up(None, "__copy__"), up({"x": 3}, "a"))
        yield "unknown", bulk(up({"x": 2}, "a"), up({"x": 3}, "zz"))
        yield "empty", attempt(lambda: graph.bulk_update_state(CFG, [[], []]))
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        for label in ("no as_node", "end and copy", "input", "copy", "unknown"):
            assert isinstance(r[label], Raised) and r[label].name == "InvalidUpdateError"
        assert r["empty"] == Raised("ValueError", "No updates provided")
        assert len(r["history"]) == 4

    return Case(graph, script=script, spec=spec)


@ckpt
def update_state_with_a_task_id(g: EngineAPI) -> Case:
    b = g.StateGraph(S)
    for name in ("a", "b", "c"):
        b.add_node(name, say(name))
    b.add_edge(g.START, "a").add_edge(g.START, "b").add_edge("a", "c").add_edge("b", "c")
    graph = b.compile(checkpointer=g.InMemorySaver(), interrupt_before=["a", "b"])

    def script() -> Script:
        graph.invoke({"x": 1}, CFG)
        tasks = graph.get_state(CFG).tasks
        task_b = next(t.id for t in tasks if t.name == "b")
        yield "as b by id", attempt(lambda: graph.update_state(CFG, {"log": ["ub"]}, "b", task_b))
        yield "after", snap(graph)
        yield "history", history(graph)
        yield "resume", attempt(lambda: graph.invoke(None, CFG))

    def spec(r: Rec) -> None:
        assert r["after"]["values"]["log"] == ["ub"]
        assert r["history"][1]["tasks"][1]["result"] == {"log": ["ub"]}

    return Case(graph, script=script, spec=spec)


@ckpt
def update_state_with_no_values_reruns_a_step(g: EngineAPI) -> Case:
    graph = chain(g, "ab")

    def script() -> Script:
        graph.invoke({"x": 1}, CFG)
        first = list(graph.get_state_history(CFG))[-2].config  # the loop step before a
        yield "rerun", attempt(lambda: graph.update_state(first, None))
        rerun = graph.get_state(CFG).config
        yield "after", snap(graph)
        yield "debug", events(lambda: graph.stream(None, rerun, stream_mode="debug"))
        yield "as a", attempt(lambda: graph.update_state(first, None, as_node="a"))
        yield "after as a", snap(graph)
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert r["after"]["next"] == ("a",)
        assert r["after"]["metadata"]["source"] == "update"
        assert r["after as a"]["next"] == ("b",)

    return Case(graph, script=script, spec=spec)


@ckpt
def update_state_copy_then_update_a_fan_out(g: EngineAPI) -> Case:
    class Names(TypedDict):
        name: Annotated[str, lambda a, b: " > ".join([a, b]) if a else b]

    def one(state: Names) -> Any:
        return g.Command(goto=[g.Send("two", {})], update={"name": "one"})

    b = g.StateGraph(Names).add_node("one", one).add_node("two", lambda s: {"name": "two"})
    b.add_node("three", lambda s: {"name": "three"})
    b.add_edge(g.START, "one").add_edge("one", "two").add_edge("two", "three")
    graph = b.compile(checkpointer=g.InMemorySaver())
    up = g.StateUpdate

    def script() -> Script:
        graph.invoke({"name": "start"}, CFG)
        ran = list(graph.get_state_history(CFG))
        start = [up({"name": "start*"}, "__start__")]
        copy = attempt(lambda: graph.update_state(ran[4].config, start, as_node="__copy__"))
        yield "copy start", copy
        yield "resume", attempt(lambda: graph.invoke(None, copy))
        twos = [up({"name": "2a"}, "two"), up({"name": "2b"}, "two")]
        copied = attempt(lambda: graph.update_state(ran[2].config, twos, as_node="__copy__"))
        yield "copy twos", copied
        yield "after", snap(graph, copied)
        yield "bad item", attempt(lambda: graph.update_state(ran[2].config, [1], "__copy__"))
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert r["resume"]["name"] == "start* > one > two > two > three"
        assert [t["result"] for t in r["after"]["tasks"]] == [None]
        assert r["bad item"].name == "InvalidUpdateError"

    return Case(graph, script=script, spec=spec)
