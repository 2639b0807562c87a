"""Programs exercising Send (map-reduce) and Command (goto/update/PARENT, Command as input)."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from pydantic import BaseModel

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, err, program, say


class S(TypedDict):
    """Items to map over, results reduced, an append log and a plain key."""

    items: list[int]
    results: Annotated[list[Any], operator.add]
    log: Annotated[list[str], operator.add]
    x: int


def _worker(state: Any) -> dict[str, Any]:
    return {"results": [state if not isinstance(state, dict) else state.get("item")]}


def _map_reduce(g: EngineAPI, fan: Any) -> Any:
    b = g.StateGraph(S)
    b.add_node("split", say("split")).add_node("w", _worker).add_node("after", say("after"))
    b.add_edge(g.START, "split").add_conditional_edges("split", fan).add_edge("w", "after")
    return b


@program()
def send_map_reduce(g: EngineAPI) -> Case:
    def fan(s: Any) -> Any:
        return [g.Send("w", {"item": i}) for i in s["items"]]

    return Case(
        draw=True,
        graph=_map_reduce(g, fan).compile(),
        inputs=({"items": [3, 1, 2]}, {"items": []}),
        modes=("debug",),
        expect=(
            {"items": [3, 1, 2], "results": [3, 1, 2], "log": ["split", "after"]},
            {"items": [], "results": [], "log": ["split"]},
        ),
    )


@program()
def send_non_dict_argument(g: EngineAPI) -> Case:
    def fan(s: Any) -> Any:
        return [g.Send("w", 7), g.Send("w", [1, 2]), g.Send("w", None)]

    return Case(
        _map_reduce(g, fan).compile(),
        expect=({"results": [7, [1, 2], None], "log": ["split", "after"]},),
    )


@program()
def send_to_end_fails(g: EngineAPI) -> Case:
    def fan(s: Any) -> Any:
        return [g.Send(g.END, {})]

    msg = "Cannot send a packet to the END node"
    return Case(_map_reduce(g, fan).compile(), expect=(err("InvalidUpdateError", msg),))


@program()
def send_to_unknown_node_is_dropped(g: EngineAPI) -> Case:
    def fan(s: Any) -> Any:
        return [g.Send("nope", {}), g.Send("w", {"item": 1})]

    return Case(
        _map_reduce(g, fan).compile(), expect=({"results": [1], "log": ["split", "after"]},)
    )


@program()
def send_mixed_with_node_names(g: EngineAPI) -> Case:
    def fan(s: Any) -> Any:
        return ["after", g.Send("w", {"item": 1}), g.END]

    return Case(_map_reduce(g, fan).compile())


@program()
def send_queue_order_follows_task_order(g: EngineAPI) -> Case:
    b = g.StateGraph(S)
    b.add_node("zeta", say("zeta")).add_node("alpha", say("alpha")).add_node("w", _worker)
    b.add_edge(g.START, "zeta").add_edge(g.START, "alpha")
    b.add_conditional_edges("zeta", lambda s: [g.Send("w", f"z{i}") for i in (1, 2)])
    b.add_conditional_edges("alpha", lambda s: [g.Send("w", f"a{i}") for i in (1, 2)])
    expected = {"results": ["a1", "a2", "z1", "z2"], "log": ["alpha", "zeta"]}
    return Case(b.compile(), expect=(expected,))


@program()
def send_returned_directly_by_node(g: EngineAPI) -> Case:
    b = g.StateGraph(S)
    b.add_node("a", lambda s: g.Send("w", {"item": 5})).add_node("w", _worker)
    b.add_edge(g.START, "a")
    return Case(b.compile())


@program()
def send_bypasses_pydantic_schema(g: EngineAPI) -> Case:
    class PS(BaseModel):
        log: Annotated[list[str], operator.add] = []

    b = g.StateGraph(PS)
    b.add_node("a", say("a")).add_node("w", lambda s: {"log": [type(s).__name__]})
    b.add_edge(g.START, "a").add_conditional_edges("a", lambda s: [g.Send("w", {"log": []})])
    return Case(b.compile(), expect=({"log": ["a", "dict"]},))


@program()
def send_tasks_then_pull_reduce_order(g: EngineAPI) -> Case:
    b = g.StateGraph(S)
    b.add_node("a", lambda s: g.Command(goto=[g.Send("b", {}), "c"]))
    b.add_node("b", say("b")).add_node("c", say("c"))
    b.add_edge(g.START, "a")
    return Case(b.compile(), modes=("debug",), expect=({"results": [], "log": ["c", "b"]},))


@program()
def command_goto_and_update(g: EngineAPI) -> Case:
    b = g.StateGraph(S)
    b.add_node("a", lambda s: g.Command(update={"x": 1, "log": ["a"], "junk": 0}, goto="b"))
    b.add_node("b", say("b")).add_node("c", say("c"))
    b.add_edge(g.START, "a")
    return Case(b.compile(), expect=({"results": [], "log": ["a", "b"], "x": 1},))


@program()
def command_goto_list_with_end_and_send(g: EngineAPI) -> Case:
    b = g.StateGraph(S)

    def goto(s: Any) -> Any:
        return g.Command(goto=["b", g.END, g.Send("w", 9), "c"])

    b.add_node("a", goto).add_node("b", say("b")).add_node("c", say("c")).add_node("w", _worker)
    b.add_edge(g.START, "a")
    return Case(b.compile(), expect=({"results": [9], "log": ["b", "c"]},))


@program()
def command_update_as_list_of_pairs(g: EngineAPI) -> Case:
    b = g.StateGraph(S)
    b.add_node("a", lambda s: g.Command(update=[("log", ["a"]), ("log", ["b"]), ("x", 3)]))
    b.add_edge(g.START, "a")
    return Case(b.compile(), expect=({"results": [], "log": ["a", "b"], "x": 3},))


@program()
def node_returns_list_of_commands(g: EngineAPI) -> Case:
    b = g.StateGraph(S)

    def cmds(s: Any) -> Any:
        return [g.Command(update={"log": ["c1"]}, goto="b"), g.Command(update={"log": ["c2"]})]

    b.add_node("a", cmds).add_node("b", say("b"))
    b.add_edge(g.START, "a")
    return Case(
        b.compile(),
        expect=({"results": [], "log": ["c1", "c2", "b"]},),
        expect_updates=[{"a": [{"log": ["c1"]}, {"log": ["c2"]}]}, {"b": {"log": ["b"]}}],
    )


@program()
def list_of_commands_writing_one_key_twice(g: EngineAPI) -> Case:
    b = g.StateGraph(S)
    b.add_node("a", lambda s: [g.Command(update={"x": 1}), g.Command(update={"x": 2})])
    b.add_edge(g.START, "a")
    return Case(b.compile())


@program()
def command_goto_unknown_node_is_dropped(g: EngineAPI) -> Case:
    b = g.StateGraph(S)
    b.add_node("a", lambda s: g.Command(goto=["zz", "b"], update={"log": ["a"]}))
    b.add_node("b", say("b"))
    b.add_edge(g.START, "a")
    return Case(b.compile(), expect=({"results": [], "log": ["a", "b"]},))


@program()
def command_goto_not_iterable(g: EngineAPI) -> Case:
    b = g.StateGraph(S)
    b.add_node("a", lambda s: g.Command(goto=5)).add_edge(g.START, "a")
    return Case(b.compile(), expect=(err("TypeError", "'int' object is not iterable"),))


@program()
def command_parent_at_root(g: EngineAPI) -> Case:
    b = g.StateGraph(S)
    b.add_node("a", lambda s: g.Command(graph=g.Command.PARENT, goto="b"))
    b.add_node("b", say("b")).add_edge(g.START, "a")
    return Case(b.compile(), expect=(err("ParentCommand", "Command(goto='b')"),))


@program()
def command_as_input_without_checkpointer(g: EngineAPI) -> Case:
    b = g.StateGraph(S)
    b.add_node("a", say("a")).add_node("b", say("b")).add_edge(g.START, "a")
    return Case(
        b.compile(),
        inputs=(g.Command(goto="b", update={"x": 1}), g.Command(update={"log": ["u"]})),
        # LangGraph quirk (not in the semantics doc): a Command's update given as input is
        # applied twice to a reducer key (['u', 'u', 'a']).
        expect=(
            {"results": [], "log": ["a", "b"], "x": 1},
            {"results": [], "log": ["u", "u", "a"]},
        ),
    )


@program()
def command_parent_as_input(g: EngineAPI) -> Case:
    b = g.StateGraph(S)
    b.add_node("a", say("a")).add_edge(g.START, "a")
    return Case(
        b.compile(),
        inputs=(g.Command(graph=g.Command.PARENT, goto="a"),),
        expect=(err("InvalidUpdateError", "There is no parent graph"),),
    )


@program()
def command_resume_without_checkpointer(g: EngineAPI) -> Case:
    b = g.StateGraph(S)
    b.add_node("a", say("a")).add_edge(g.START, "a")
    msg = "Cannot use Command(resume=...) without checkpointer"
    return Case(b.compile(), inputs=(g.Command(resume=1),), expect=(err("RuntimeError", msg),))


@program()
def command_with_destinations_and_static_edge(g: EngineAPI) -> Case:
    b = g.StateGraph(S)

    def route(s: Any) -> Any:
        return g.Command(goto="c" if s["x"] else "b", update={"log": ["a"]})

    b.add_node("a", route, destinations=("b", "c"))
    b.add_node("b", say("b")).add_node("c", say("c")).add_node("d", say("d"))
    b.add_edge(g.START, "a").add_edge("a", "d")
    return Case(draw=True, graph=b.compile(), inputs=({"x": 0}, {"x": 1}))


@program()
def root_state_node_returning_several_commands(g: EngineAPI) -> Case:
    def node_a(state: Any) -> Any:
        return [g.Command(update="a1"), g.Command(update="a2")]

    def node_b(state: Any) -> str:
        return "b"

    b = g.StateGraph(Annotated[str, operator.add]).add_sequence([node_a, node_b])
    return Case(b.add_edge(g.START, "node_a").compile(), inputs=("",))
