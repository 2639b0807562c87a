"""Terminal drawings of graphs: every sample, two bigger programs, and generated graphs.

Every drawing must keep its promises (boxes apart, each edge one connected line from its
source's box to its target's box, within the area, the same every time) or be the list
view. The drawings of the samples and of two larger programs are also compared with
golden files that were checked by eye; set ``SGDEBUG_UPDATE_GOLDEN=1`` to rewrite them
after a deliberate change, and look at the diff before committing it.
"""

from __future__ import annotations

import os
from collections import Counter
from itertools import pairwise
from pathlib import Path
from typing import Any, Literal, TypedDict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sgdebug.inspect.drawing import Box, Drawing, DrawnEdge, draw, draw_list, legend_for
from sgdebug.inspect.topology import (
    END,
    START,
    EdgeKind,
    NodeKind,
    Topology,
    TopologyBranch,
    TopologyEdge,
    TopologyJoin,
    TopologyNode,
    topology,
)
from sgdebug.sample_graphs import SAMPLES, api, load

GOLDEN = Path(__file__).parent / "golden"
LINE_CHARS = set("─│┄┆╭╮╰╯├┤┬┴┼▼▲◆↻")
DOTTED = set("┄┆")


# -- what every drawing must satisfy --------------------------------------------------------


def cell(drawing: Drawing, x: int, y: int) -> str:
    line = drawing.lines[y]
    return line[x] if x < len(line) else " "


def check(topo: Topology, drawing: Drawing, width: int, height: int) -> None:
    """The promises of :func:`draw`, for any topology and area."""
    assert [n.name for n in drawing.nodes] == list(topo.names)
    assert drawing.height == len(drawing.lines)
    assert drawing.width == max((len(line) for line in drawing.lines), default=0)
    assert all(line == line.rstrip() for line in drawing.lines)
    pairs = {(e.source, e.target) for e in topo.edges}
    ends = END in topo.names
    to_end = {(b.source, END) for b in topo.branches if b.dynamic and ends} - pairs
    assert len(drawing.edges) == len(pairs) + sum(b.dynamic for b in topo.branches) + len(to_end)
    if drawing.mode == "list":
        assert drawing.width <= max(width, 8)
        for node in drawing.nodes:
            assert drawing.lines[node.box.y].startswith(node.label[: node.box.w])
        return
    assert drawing.width <= width and drawing.height <= height
    boxes = [n.box for n in drawing.nodes]
    for i, a in enumerate(boxes):
        assert not any(a.overlaps(b) for b in boxes[i + 1 :]), "boxes overlap"
    for node in drawing.nodes:
        row = drawing.lines[node.box.y + node.box.h // 2]
        assert node.label in row[node.box.x : node.box.x + node.box.w]
    by_name = {n.name: n.box for n in drawing.nodes}
    for edge in drawing.edges:
        check_edge(drawing, edge, by_name, boxes)


def check_edge(
    drawing: Drawing, edge: DrawnEdge, by_name: dict[str, Box], boxes: list[Box]
) -> None:
    cells = edge.cells
    assert cells, f"{edge} is not drawn"
    for x, y in cells:
        assert 0 <= y < drawing.height and 0 <= x < drawing.width
        assert cell(drawing, x, y) in LINE_CHARS, f"{edge}: {cell(drawing, x, y)!r} at {x},{y}"
        assert not any(b.contains(x, y) for b in boxes)
    for (x1, y1), (x2, y2) in pairwise(cells):
        assert abs(x1 - x2) + abs(y1 - y2) == 1, f"{edge} is broken at {x1},{y1}"
    assert by_name[edge.source].touches(*cells[0]), f"{edge} does not leave its source"
    if edge.source == edge.target and drawing.mode == "compact":
        assert len(cells) == 2 and cell(drawing, *cells[-1]) == "↻"
        return
    if edge.kind == "dynamic":
        assert edge.label_at is not None and edge.label is not None
        stub = Box(*edge.label_at, len(edge.label), 1)
        assert stub.touches(*cells[-1])
    else:
        assert by_name[edge.target].touches(*cells[-1]), f"{edge} does not reach its target"
    assert cell(drawing, *cells[-1]) in "▼▲"
    if edge.label_at is not None and edge.label is not None:
        x, y = edge.label_at
        assert drawing.lines[y][x : x + len(edge.label)] == edge.label


def drawn(topo: Topology, width: int = 100, height: int = 40) -> Drawing:
    drawing = draw(topo, width, height)
    check(topo, drawing, width, height)
    assert draw(topo, width, height) == drawing, "not deterministic"
    return drawing


def golden(name: str, drawing: Drawing) -> None:
    path = GOLDEN / f"{name}.txt"
    text = f"mode: {drawing.mode}\n" + drawing.text + "\n"
    if os.environ.get("SGDEBUG_UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


# -- larger programs ------------------------------------------------------------------------


class State(TypedDict):
    """A one-key state for the test programs."""

    x: int


def step(state: State) -> dict[str, Any]:
    """A node that changes nothing."""
    return {}


def rag_agent() -> Any:
    """A subgraph, a deferred node, a join, labels, a dynamic branch, Command destinations."""
    lg = api("sgdebug")
    inner = lg.StateGraph(State)
    inner.add_node("inner", step)
    inner.add_edge(lg.START, "inner")

    def route(state: State) -> Literal["retrieve", "answer"]:
        return "answer"

    def router(state: State) -> Any:
        return lg.Command(goto="answer")

    router.__annotations__["return"] = lg.Command[Literal["answer", "plan"]]
    g = lg.StateGraph(State)
    for name in ("plan", "retrieve", "rewrite", "answer", "check"):
        g.add_node(name, step)
    g.add_node("research", inner.compile())
    g.add_node("router", router)
    g.add_node("summarize", step, defer=True)
    g.add_edge(lg.START, "plan")
    g.add_conditional_edges("plan", route)
    g.add_edge("retrieve", "research")
    g.add_conditional_edges(
        "research", lambda s: "good", {"bad": "rewrite", "good": "answer", "stop": lg.END}
    )
    g.add_edge("rewrite", "retrieve")
    g.add_edge(["answer", "research"], "check")
    g.add_conditional_edges("check", lambda s: "x")
    g.add_edge("check", "summarize")
    g.add_edge("summarize", "router")
    g.add_edge("summarize", lg.END)
    return g.compile()


def support_desk() -> Any:
    """Thirty nodes: a classifier, parallel searches with a join, several loops."""
    lg = api("sgdebug")
    g = lg.StateGraph(State)
    names = [
        *("intake", "classify", "faq", "guard", "plan", "search_web", "search_docs"),
        *("search_code", "merge", "draft", "critique", "support", "lookup", "policy"),
        *("refund", "replace", "explain", "reply", "escalate", "notify", "approve"),
        *("apologize", "agent", "tools", "answer", "log", "archive", "cache", "metrics"),
        "audit",
    ]
    for name in names:
        g.add_node(name, step)
    g.add_edge(lg.START, "intake")
    for target in ("classify", "guard", "cache"):
        g.add_edge("intake", target)
    g.add_conditional_edges(
        "classify", lambda s: "faq", ["faq", "plan", "support", "escalate", "agent"]
    )
    for source, target in [
        ("faq", "answer"),
        ("guard", "log"),
        ("merge", "draft"),
        ("draft", "critique"),
        ("support", "lookup"),
        ("lookup", "policy"),
        ("reply", "answer"),
        ("escalate", "notify"),
        ("notify", "approve"),
        ("apologize", "answer"),
        ("tools", "agent"),
        ("answer", "audit"),
        ("log", "metrics"),
        ("cache", "metrics"),
        ("metrics", "audit"),
        ("audit", "archive"),
        ("archive", lg.END),
    ]:
        g.add_edge(source, target)
    searches = ["search_web", "search_docs", "search_code"]
    for target in searches:
        g.add_edge("plan", target)
    g.add_edge(searches, "merge")
    g.add_conditional_edges(
        "critique", lambda s: "ok", {"revise": "draft", "ok": "answer", "more": "plan"}
    )
    g.add_conditional_edges("policy", lambda s: "refund", ["refund", "replace", "explain"])
    for source in ("refund", "replace", "explain"):
        g.add_edge(source, "reply")
    g.add_conditional_edges(
        "approve", lambda s: "yes", {"yes": "reply", "no": "apologize", "wait": "approve"}
    )
    g.add_conditional_edges("agent", lambda s: "tools", ["tools", "answer"])
    return g.compile()


# -- samples and programs: golden drawings --------------------------------------------------


@pytest.mark.parametrize("name", list(SAMPLES))
def test_sample_drawing_matches_its_golden_file(name: str) -> None:
    drawing = drawn(topology(load(name).graph))
    assert drawing.mode == "boxes"
    golden(name, drawing)


@pytest.mark.parametrize(
    ("name", "symbols"),
    [
        ("linear", []),
        ("fanout", ["─◆─"]),
        ("loop", ["┄┄▶"]),
        ("approval", ["┄┄▶", "▲"]),
    ],
)
def test_the_legend_lists_the_marks_a_drawing_uses(name: str, symbols: list[str]) -> None:
    drawing = drawn(topology(load(name).graph))
    assert [symbol for symbol, _ in legend_for(drawing)] == symbols
    assert legend_for(draw(topology(load(name).graph), width=8, height=3)) == ()  # a list


def test_rag_agent_drawing_matches_its_golden_file() -> None:
    drawing = drawn(topology(rag_agent()), 100, 60)
    assert drawing.mode == "boxes"
    golden("rag_agent", drawing)


def test_thirty_nodes_with_loops_fit_110_by_40() -> None:
    topo = topology(support_desk())
    assert len(topo.nodes) == 32  # thirty nodes, START and END
    drawing = drawn(topo, 110, 40)  # compact boxes keep a cell each side for marks
    assert drawing.mode == "compact"
    golden("support_desk", drawing)


# -- what the drawing shows -----------------------------------------------------------------


def edge(drawing: Drawing, source: str, target: str) -> DrawnEdge:
    return next(e for e in drawing.edges if (e.source, e.target) == (source, target))


def chars(drawing: Drawing, drawn_edge: DrawnEdge) -> set[str]:
    return {cell(drawing, x, y) for x, y in drawn_edge.cells}


def test_conditional_edges_are_dotted_and_plain_ones_solid() -> None:
    drawing = drawn(topology(load("chatbot").graph))
    assert chars(drawing, edge(drawing, "agent", "tools")) & DOTTED
    assert chars(drawing, edge(drawing, "agent", END)) & DOTTED
    assert not chars(drawing, edge(drawing, "tools", "agent")) & DOTTED
    assert not chars(drawing, edge(drawing, START, "agent")) & DOTTED


def test_an_edge_closing_a_loop_points_up_into_its_target() -> None:
    drawing = drawn(topology(load("chatbot").graph))
    back = edge(drawing, "tools", "agent")
    assert back.back and not edge(drawing, "agent", "tools").back
    assert cell(drawing, *back.cells[-1]) == "▲"
    agent = drawing.node("agent").box
    assert back.cells[-1] == (back.cells[-1][0], agent.y + agent.h)


def test_a_self_loop_leaves_by_the_side_and_enters_from_the_top() -> None:
    drawing = drawn(topology(load("loop").graph))
    loop = edge(drawing, "attempt", "attempt")
    box = drawing.node("attempt").box
    assert loop.back
    assert loop.cells[0] == (box.x + box.w, box.y + 1)
    assert loop.cells[-1][1] == box.y - 1 and cell(drawing, *loop.cells[-1]) == "▼"


def test_a_compact_self_loop_is_a_mark_beside_its_box() -> None:
    drawing = drawn(topology(load("loop").graph), 22, 12)
    assert drawing.mode == "compact"
    loop = edge(drawing, "attempt", "attempt")
    box = drawing.node("attempt").box
    assert loop.back
    assert loop.cells == ((box.x + box.w, box.y), (box.x + box.w + 1, box.y))
    assert drawing.lines[box.y].strip() == "[ attempt ]┄↻"
    assert drawing.lines[box.y - 1].strip() == "▼"  # one arrow in: START's


def test_compact_boxes_leave_a_space_inside_each_bracket() -> None:
    drawing = drawn(topology(rag_agent()), 70, 30)
    assert drawing.mode == "compact"
    for node in drawing.nodes:
        text = drawing.lines[node.box.y][node.box.x : node.box.x + node.box.w]
        if node.label.startswith("?"):
            continue
        inner = text.strip("[](){}")
        assert inner.startswith(" ") and inner.endswith(" "), text


def test_the_sources_of_a_join_meet_in_one_dot_before_one_arrow() -> None:
    drawing = drawn(topology(load("fanout").graph))
    first, second = edge(drawing, "b_2", "d"), edge(drawing, "c", "d")
    assert first.kind == second.kind == "join"
    shared = set(first.cells) & set(second.cells)
    assert any(cell(drawing, x, y) == "◆" for x, y in shared)
    assert first.cells[-1] == second.cells[-1]
    assert drawing.text.count("◆") == 1


def test_path_map_keys_are_written_beside_their_arrows() -> None:
    drawing = drawn(topology(rag_agent()), 100, 60)
    good = edge(drawing, "research", "answer")
    assert good.label == "good" and good.label_at is not None


def test_a_dynamic_branch_ends_in_a_question_mark_with_its_name() -> None:
    drawing = drawn(topology(rag_agent()), 100, 60)
    (dynamic,) = [e for e in drawing.edges if e.kind == "dynamic"]
    assert (dynamic.source, dynamic.target, dynamic.label) == ("check", "", "? condition")


def test_a_router_without_a_path_map_draws_its_way_to_end_beside_the_question_mark() -> None:
    lg = api("sgdebug")
    g = lg.StateGraph(State)
    g.add_node("step", step)
    g.add_edge(lg.START, "step")
    g.add_conditional_edges("step", lambda s: lg.END)
    drawing = drawn(topology(g.compile()))
    kinds = sorted((e.source, e.target, e.kind) for e in drawing.edges)
    assert kinds == [("__start__", "step", "plain"), ("step", "", "dynamic"),
                     ("step", "__end__", "conditional")]  # fmt: skip
    assert "? condition" in drawing.text and "END" in drawing.text


def test_a_pair_joined_both_plainly_and_conditionally_is_drawn_once_solid() -> None:
    lg = api("sgdebug")
    g = lg.StateGraph(State)
    for name in ("a", "b", "c"):
        g.add_node(name, step)
    g.add_edge(lg.START, "a")
    g.add_edge("a", "b")
    g.add_conditional_edges("a", lambda s: "b", ["b", "c"])
    drawing = drawn(topology(g.compile()))
    assert [e.kind for e in drawing.edges if e.source == "a"] == ["plain", "conditional"]
    assert not chars(drawing, edge(drawing, "a", "b")) & DOTTED
    assert chars(drawing, edge(drawing, "a", "c")) & DOTTED


def test_node_boxes_show_the_node_kind() -> None:
    drawing = drawn(topology(rag_agent()), 100, 60)
    research, summarize = drawing.node("research").box, drawing.node("summarize").box
    assert cell(drawing, research.x, research.y) == "╔"
    assert cell(drawing, summarize.x + 1, summarize.y) == "╌"
    start = drawing.node(START)
    assert start.label == "START" and cell(drawing, start.box.x, start.box.y) == "╭"


def test_a_node_that_calls_a_compiled_graph_has_single_rules_on_double_sides() -> None:
    lg = api("sgdebug")
    inner = lg.StateGraph(State)
    inner.add_node("inner", step).add_edge(lg.START, "inner")
    sub = inner.compile(name="sub")

    def call(state: State) -> Any:
        return sub.invoke(state)

    outer = lg.StateGraph(State)
    outer.add_node("call", call).add_node("after", step, defer=True)
    outer.add_edge(lg.START, "call").add_edge("call", "after")
    drawing = drawn(topology(outer.compile()))

    box = drawing.node("call").box
    assert cell(drawing, box.x, box.y) + cell(drawing, box.x + 1, box.y) == "╓─"
    assert cell(drawing, box.x, box.y + 1) == "║"
    assert ("╓─╖", "calls a subgraph") in legend_for(drawing)
    assert "call  [calls a subgraph] ──▶ after" in draw_list(topology(outer.compile())).text


def test_node_at_finds_the_box_under_a_cell() -> None:
    drawing = drawn(topology(load("linear").graph))
    box = drawing.node("node_1").box
    found = drawing.node_at(box.x + 1, box.y + 1)
    assert found is not None and found.name == "node_1"
    assert drawing.node_at(drawing.width + 5, 0) is None


# -- the list view --------------------------------------------------------------------------


def test_a_graph_too_big_for_the_area_becomes_the_list_view() -> None:
    topo = topology(load("chatbot").graph)
    drawing = drawn(topo, 40, 6)
    assert drawing.mode == "list"
    assert drawing.lines == (
        "START ──▶ agent",
        "agent ┄┄▶ tools, END (route)",
        "tools ──▶ agent",
        "END",
    )
    tools = edge(drawing, "agent", "tools")
    assert [drawing.lines[y][x] for x, y in tools.cells] == list("tools")


def test_the_list_view_notes_joins_labels_and_node_kinds() -> None:
    text = draw_list(topology(rag_agent())).text
    assert "research  [subgraph] ┄┄▶ bad→rewrite, good→answer, stop→END" in text
    assert "─◆▶ check (waits for answer + research)" in text
    assert "summarize [deferred] ──▶ router, END" in text
    assert "┄┄▶ ? condition" in text


@pytest.mark.parametrize("width", [8, 12, 20, 33])
def test_list_view_lines_never_exceed_the_width(width: int) -> None:
    drawing = draw_list(topology(support_desk()), width)
    assert drawing.mode == "list"
    assert all(len(line) <= width for line in drawing.lines)
    assert len(drawing.nodes) == 32


# -- generated graphs -----------------------------------------------------------------------


PLAIN_OR_CONDITIONAL: list[EdgeKind] = ["plain", "conditional"]


@st.composite
def topologies(draw: st.DrawFn) -> Topology:
    """Random DAGs from START plus back edges, conditional edges, joins, dynamic branches."""
    count = draw(st.integers(1, 12))
    name = st.text("abcdefghij_", min_size=1, max_size=12)
    names = draw(st.lists(name, min_size=count, max_size=count, unique=True))
    choices: list[tuple[NodeKind, bool]] = [
        ("function", False),
        ("subgraph", False),
        ("function", True),
    ]
    kinds = st.sampled_from(choices)
    nodes = [TopologyNode(START, "start")]
    for node_name in names:
        kind, deferred = draw(kinds)
        nodes.append(TopologyNode(node_name, kind, deferred))
    edges: set[TopologyEdge] = set()
    plain_or_cond = st.sampled_from(PLAIN_OR_CONDITIONAL)
    for i, target in enumerate(names):
        sources = [START, *names[:i]]
        for source in draw(st.lists(st.sampled_from(sources), min_size=1, max_size=2)):
            edges.add(TopologyEdge(source, target, draw(plain_or_cond)))
    for _ in range(draw(st.integers(0, 3))):  # back edges and self-loops
        i = draw(st.integers(0, count - 1))
        j = draw(st.integers(0, i))
        edges.add(TopologyEdge(names[i], names[j], draw(plain_or_cond)))
    joins: list[TopologyJoin] = []
    if count >= 3 and draw(st.booleans()):
        target = names[-1]
        waited = tuple(
            draw(st.lists(st.sampled_from(names[:-1]), min_size=2, max_size=3, unique=True))
        )
        joins.append(TopologyJoin(waited, target))
        edges |= {TopologyEdge(s, target, "join", join=waited) for s in waited}
    ends = draw(st.lists(st.sampled_from(names), max_size=3, unique=True))
    edges |= {
        TopologyEdge(s, END, draw(plain_or_cond), label=draw(st.sampled_from([None, "done"])))
        for s in ends
    }
    branches = [
        TopologyBranch(source, f"route_{k}", ())
        for k, source in enumerate(draw(st.lists(st.sampled_from(names), max_size=2, unique=True)))
    ]
    if ends:
        nodes.append(TopologyNode(END, "end"))
    order = {n.name: i for i, n in enumerate(nodes)}
    ordered = sorted(edges, key=lambda e: (order[e.source], order[e.target], e.kind, e.label or ""))
    return Topology(tuple(nodes), tuple(ordered), tuple(branches), tuple(joins))


@settings(max_examples=200, deadline=None)
@given(topologies(), st.integers(20, 160), st.integers(8, 80))
def test_generated_graphs_draw_cleanly_or_become_the_list_view(
    topo: Topology, width: int, height: int
) -> None:
    drawn(topo, width, height)


@settings(max_examples=100, deadline=None)
@given(topologies())
def test_generated_graphs_are_drawn_when_the_area_is_large(topo: Topology) -> None:
    drawing = drawn(topo, 1000, 1000)
    assert drawing.mode == "boxes"


def test_thirty_random_nodes_draw_in_boxes() -> None:
    # How fast (under 1 s) is a goal of benchmarks/inspect_views.py, which draws this graph.
    import random

    rng = random.Random(7)
    names = [f"n{i}" for i in range(30)]
    edges = {TopologyEdge(START, "n0", "plain")}
    for i in range(1, 30):
        edges.add(TopologyEdge(names[rng.randrange(max(0, i - 4), i)], names[i], "plain"))
        if rng.random() < 0.25:
            edges.add(TopologyEdge(names[i], names[rng.randrange(0, i)], "conditional"))
    edges.add(TopologyEdge("n29", END, "plain"))
    nodes = [TopologyNode(START, "start"), *(TopologyNode(n, "function") for n in names)]
    topo = Topology((*nodes, TopologyNode(END, "end")), tuple(sorted(edges, key=str)))
    drawing = drawn(topo, 200, 200)
    assert Counter(n.box.h for n in drawing.nodes) == Counter({3: 32})
