"""Programs exercising conditional edges, waiting edges, joins, deferred nodes and loops."""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, TypedDict

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, err, program, say

INVALID_DEST = err("ValueError", "Branch did not return a valid destination")


class S(TypedDict):
    """The usual state: a counter and an append log."""

    n: int
    log: Annotated[list[str], operator.add]


class Seen(TypedDict):
    """A branch input schema adding the private ``note`` channel."""

    note: str
    n: int


def to_b_or_c(state: Any) -> Literal["b", "c"]:
    """Route on parity of ``n``, with the targets given as a Literal annotation."""
    return "b" if state["n"] % 2 == 0 else "c"


def _abc(g: EngineAPI) -> Any:
    b = g.StateGraph(S)
    for name in ("a", "b", "c"):
        b.add_node(name, say(name))
    return b.add_edge(g.START, "a")


@program()
def conditional_dict_map_with_bool_keys(g: EngineAPI) -> Case:
    b = _abc(g).add_conditional_edges("a", lambda s: s["n"] > 1, {True: "b", False: "c"})
    return Case(
        draw=True,
        graph=b.compile(),
        inputs=({"n": 2}, {"n": 0}),
        expect=({"n": 2, "log": ["a", "b"]}, {"n": 0, "log": ["a", "c"]}),
    )


@program()
def conditional_dict_map_to_end(g: EngineAPI) -> Case:
    b = _abc(g).add_conditional_edges(
        "a", lambda s: "stop" if s["n"] else "go", {"go": "b", "stop": g.END}
    )
    return Case(draw=True, graph=b.compile(), inputs=({"n": 0}, {"n": 1}))


@program()
def conditional_list_map(g: EngineAPI) -> Case:
    b = _abc(g).add_conditional_edges("a", lambda s: "c" if s["n"] else "b", ["b", "c"])
    return Case(draw=True, graph=b.compile(), inputs=({"n": 0}, {"n": 1}))


@program()
def conditional_without_map_uses_names(g: EngineAPI) -> Case:
    b = _abc(g).add_conditional_edges("a", lambda s: ["b", "c"][s["n"]])
    return Case(draw=True, graph=b.compile(), inputs=({"n": 0}, {"n": 1}))


@program()
def conditional_literal_annotation(g: EngineAPI) -> Case:
    b = _abc(g).add_conditional_edges("a", to_b_or_c)
    return Case(draw=True, graph=b.compile(), inputs=({"n": 0}, {"n": 1}))


@program()
def conditional_returns_list_with_duplicates(g: EngineAPI) -> Case:
    b = _abc(g).add_conditional_edges("a", lambda s: ["c", "b", "c", g.END])
    b.add_edge("b", "c")
    return Case(b.compile(), expect=({"log": ["a", "b", "c", "c"]},))


@program()
def conditional_returns_tuple(g: EngineAPI) -> Case:
    b = _abc(g).add_conditional_edges("a", lambda s: ("b", "c"))
    return Case(b.compile(), expect=({"log": ["a", "b", "c"]},))


@program()
def conditional_returns_end_or_empty_list(g: EngineAPI) -> Case:
    b = _abc(g).add_conditional_edges("a", lambda s: [[], g.END, [g.END, "b"]][s["n"]])
    return Case(
        b.compile(),
        inputs=({"n": 0}, {"n": 1}, {"n": 2}),
        expect=({"n": 0, "log": ["a"]}, {"n": 1, "log": ["a"]}, {"n": 2, "log": ["a", "b"]}),
    )


@program()
def conditional_returns_none(g: EngineAPI) -> Case:
    b = _abc(g).add_conditional_edges("a", lambda s: None)
    return Case(b.compile(), expect=(INVALID_DEST,))


@program()
def conditional_returns_start(g: EngineAPI) -> Case:
    b = _abc(g).add_conditional_edges("a", lambda s: g.START)
    return Case(b.compile(), expect=(INVALID_DEST,))


@program()
def conditional_path_map_miss(g: EngineAPI) -> Case:
    b = _abc(g).add_conditional_edges("a", lambda s: "maybe", {"yes": "b", "no": "c"})
    return Case(b.compile(), expect=(err("KeyError", "'maybe'"),))


@program()
def conditional_list_map_miss(g: EngineAPI) -> Case:
    b = _abc(g).add_conditional_edges("a", lambda s: "zz", ["b", "c"])
    return Case(b.compile(), expect=(err("KeyError", "'zz'"),))


@program()
def conditional_unknown_name_without_map_ends_path(g: EngineAPI) -> Case:
    b = _abc(g).add_conditional_edges("a", lambda s: ["zzz", "b"])
    return Case(b.compile(), expect=({"log": ["a", "b"]},))


@program()
def conditional_sees_own_writes_not_siblings(g: EngineAPI) -> Case:
    class XY(TypedDict):
        x: int
        y: int
        log: Annotated[list[str], operator.add]

    b = g.StateGraph(XY)
    b.add_node("a", lambda s: {"x": 5}).add_node("s", lambda s: {"y": 7})
    for name in ("x5y0", "x5y7", "x0y0"):
        b.add_node(name, say(name))
    b.add_edge(g.START, "a").add_edge(g.START, "s")
    b.add_conditional_edges("a", lambda s: f"x{s['x']}y{s['y']}")
    return Case(
        b.compile(), inputs=({"x": 0, "y": 0},), expect=({"x": 5, "y": 7, "log": ["x5y0"]},)
    )


@program()
def conditional_sees_extra_returned_keys(g: EngineAPI) -> Case:
    b = g.StateGraph(S)
    b.add_node("a", lambda s: {"n": 1, "extra": "passthrough"})
    b.add_node("passthrough", say("passthrough")).add_node("none", say("none"))
    b.add_edge(g.START, "a").add_conditional_edges("a", lambda s: s.get("extra", "none"))
    return Case(b.compile(), expect=({"n": 1, "log": ["passthrough"]},))


@program()
def conditional_entry_point_sees_raw_input(g: EngineAPI) -> Case:
    b = g.StateGraph(S)
    b.add_node("has_junk", say("has_junk")).add_node("no_junk", say("no_junk"))
    b.set_conditional_entry_point(lambda s: "has_junk" if "junk" in s else "no_junk")
    return Case(
        b.compile(),
        inputs=({"n": 1, "junk": 2}, {"n": 1}),
        expect=({"n": 1, "log": ["has_junk"]}, {"n": 1, "log": ["no_junk"]}),
    )


@program()
def conditional_with_input_schema_annotation(g: EngineAPI) -> Case:
    def route(s: Seen) -> str:
        return "b" if s.get("note") == "go" else "c"

    b = _abc(g)
    b.add_node("w", lambda s: {"note": "go"}).add_edge("a", "w")
    b.add_conditional_edges("w", route)
    return Case(b.compile(), expect=({"log": ["a", "b"]},))


@program()
def static_edge_branch_and_command_all_fire(g: EngineAPI) -> Case:
    b = g.StateGraph(S)
    b.add_node("a", lambda s: g.Command(goto="d", update={"log": ["a"]}))
    for name in ("b", "c", "d"):
        b.add_node(name, say(name))
    b.add_edge(g.START, "a").add_edge("a", "b").add_conditional_edges("a", lambda s: "c")
    return Case(b.compile(), expect=({"log": ["a", "b", "c", "d"]},))


def _diamond(g: EngineAPI, join: bool) -> Any:
    b = g.StateGraph(S)
    for name in ("a", "b", "c", "d", "e"):
        b.add_node(name, say(name))
    b.add_edge(g.START, "a").add_edge("a", "b").add_edge("a", "c").add_edge("c", "d")
    if join:
        return b.add_edge(["b", "d"], "e")
    return b.add_edge("b", "e").add_edge("d", "e")


@program()
def fan_in_uneven_branches_runs_target_twice(g: EngineAPI) -> Case:
    return Case(
        _diamond(g, join=False).compile(), expect=({"log": ["a", "b", "c", "d", "e", "e"]},)
    )


@program()
def waiting_edge_joins_uneven_branches(g: EngineAPI) -> Case:
    return Case(
        draw=True,
        graph=_diamond(g, join=True).compile(),
        modes=("debug",),
        expect=({"log": ["a", "b", "c", "d", "e"]},),
    )


@program()
def waiting_edge_never_fires_if_a_source_never_runs(g: EngineAPI) -> Case:
    b = _abc(g).add_node("never", say("never")).add_node("e", say("e"))
    b.add_edge("a", "b").add_edge(["b", "never"], "e")
    return Case(b.compile(), expect=({"log": ["a", "b"]},))


@program()
def waiting_edge_in_a_loop(g: EngineAPI) -> Case:
    b = g.StateGraph(S)
    b.add_node("a", lambda s: {"n": s["n"] + 1, "log": ["a"]})
    b.add_node("b", say("b")).add_node("c", say("c")).add_node("j", say("j"))
    b.add_edge(g.START, "a").add_edge("a", "b").add_edge("a", "c").add_edge(["b", "c"], "j")
    b.add_conditional_edges("j", lambda s: "a" if s["n"] < 3 else g.END)
    return Case(b.compile(), inputs=({"n": 0},))


@program()
def waiting_edge_to_end_triggers_nothing(g: EngineAPI) -> Case:
    """``add_edge([a, b], END)`` is accepted; the run neither waits on it nor stops at it."""
    b = _abc(g).add_edge(g.START, "b").add_edge("a", "c").add_edge(["a", "b"], g.END)
    return Case(
        draw=True,
        graph=b.compile(),
        modes=("debug",),
        expect=({"n": 0, "log": ["a", "b", "c"]},),
        inputs=({"n": 0},),
    )


@program()
def same_step_join_runs_once(g: EngineAPI) -> Case:
    b = g.StateGraph(S)
    for name in ("a", "b", "c"):
        b.add_node(name, say(name))
    b.add_edge(g.START, "a").add_edge(g.START, "b").add_edge("a", "c").add_edge("b", "c")
    return Case(b.compile(), modes=("debug",), expect=({"log": ["a", "b", "c"]},))


@program()
def deferred_node_runs_last(g: EngineAPI) -> Case:
    b = g.StateGraph(S)
    for name in ("a", "b", "c", "post"):
        b.add_node(name, say(name))
    b.add_node("d", say("d"), defer=True)
    b.add_edge(g.START, "a").add_edge(g.START, "d").add_edge("a", "b").add_edge("b", "c")
    b.add_edge("d", "post")
    return Case(
        draw=True,
        graph=b.compile(),
        modes=("debug",),
        expect=({"log": ["a", "b", "c", "d", "post"]},),
    )


@program()
def deferred_node_triggered_many_times_runs_once(g: EngineAPI) -> Case:
    b = g.StateGraph(S)
    for name in ("a", "b", "c"):
        b.add_node(name, say(name))
    b.add_node("d", say("d"), defer=True)
    b.add_edge(g.START, "a").add_edge("a", "b").add_edge("b", "c")
    b.add_edge("a", "d").add_edge("b", "d").add_edge("c", "d")
    return Case(b.compile(), expect=({"log": ["a", "b", "c", "d"]},))


@program()
def conditional_loop_until_counter(g: EngineAPI) -> Case:
    b = g.StateGraph(S)
    b.add_node("inc", lambda s: {"n": s["n"] + 1, "log": [f"inc{s['n']}"]})
    b.add_node("done", say("done"))
    b.add_edge(g.START, "inc")
    b.add_conditional_edges("inc", lambda s: "inc" if s["n"] < 4 else "done")
    return Case(
        b.compile(),
        inputs=({"n": 0}, {"n": 9}),
        expect=(
            {"n": 4, "log": ["inc0", "inc1", "inc2", "inc3", "done"]},
            {"n": 10, "log": ["inc9", "done"]},
        ),
    )
