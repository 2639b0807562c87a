"""The TUI on a graph whose node function invokes a subgraph (``sub.invoke(...)``), on the
native engine: the stop at the subgraph's ``interrupt()`` shows its frame, with its graph's
channel table when the graph is found, its snapshot's values and a note when it is not."""

from __future__ import annotations

from typing import Any, TypedDict

from textual.pilot import Pilot

from sgdebug.sample_graphs import api
from sgdebug.tui.app import DebuggerApp
from sgdebug.tui.widgets.breadcrumb import Breadcrumb
from sgdebug.tui.widgets.channels_pane import ChannelsPane
from sgdebug.tui.widgets.diff_pane import DiffPane
from sgdebug.tui.widgets.tasks_pane import TasksPane

from .harness import drive, enter_command, graph_session, press


class Draft(TypedDict):
    draft: str
    verdict: str


class Topic(TypedDict):
    topic: str
    result: str


def _review(name: str) -> Any:
    lg = api("sgdebug")
    inner = lg.StateGraph(Draft)
    inner.add_node("write", lambda s: {"draft": s["draft"] + " (written)"})
    inner.add_node("review", lambda s: {"verdict": str(lg.interrupt({"approve": s["draft"]}))})
    inner.add_edge(lg.START, "write")
    inner.add_edge("write", "review")
    return inner.compile(name=name)


def _calling(first: Any, second: Any = None) -> Any:
    """A graph whose ``call_sub`` node invokes ``first`` (its function names ``second``)."""
    lg = api("sgdebug")

    def call_sub(state: Topic) -> dict[str, Any]:
        sub = first if second is None or state else second
        out = sub.invoke({"draft": state["topic"], "verdict": ""})
        return {"result": out["verdict"]}

    builder = lg.StateGraph(Topic)
    builder.add_node("call_sub", call_sub)
    builder.add_node("finish", lambda s: {"result": s["result"] + "!"})
    builder.add_edge(lg.START, "call_sub")
    builder.add_edge("call_sub", "finish")
    return builder.compile()


def _rows(app: DebuggerApp) -> list[tuple[str, str, Any]]:
    return [(r.name, r.kind, r.value) for r in app.query_one(ChannelsPane).rows_shown]


def test_the_called_subgraphs_frame_shows_its_channels_and_keys_move_up_and_down() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        crumb = app.query_one(Breadcrumb)
        await enter_command(app, pilot, "continue")
        assert crumb.display and crumb.trail == "parent \u203a call_sub"
        assert _rows(app) == [("draft", "LastValue", "t (written)"), ("verdict", "LastValue", "")]
        assert [row.name for row in app.query_one(TasksPane).rows_shown] == ["review"]
        await press(app, pilot, "less_than_sign")
        assert crumb.trail == "parent"
        assert [name for name, _, _ in _rows(app)] == ["topic", "result"]
        assert [row.name for row in app.query_one(TasksPane).rows_shown] == ["call_sub"]
        await press(app, pilot, "greater_than_sign")
        await enter_command(app, pilot, "set draft = 'mine'")
        assert _rows(app)[0] == ("draft", "LastValue", "mine")
        await enter_command(app, pilot, "resume 'yes'")
        assert not crumb.display and app.frame is not None and app.frame.view.status == "done"
        assert app.frame.view.values["result"] == "yes!"

    drive(graph_session(_calling(_review("sub")), "calls", {"topic": "t"}), scenario)


def test_when_two_named_graphs_fit_the_frame_shows_its_values_and_says_why() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await enter_command(app, pilot, "continue")
        crumb = app.query_one(Breadcrumb)
        assert crumb.trail == "parent \u203a call_sub"
        assert "graph not known: see Diff" in str(crumb.render())
        assert _rows(app) == [("draft", "(unknown)", "t (written)"), ("verdict", "(unknown)", "")]
        note = str(app.query_one(DiffPane).query_one("Static").render())
        assert "names 2 compiled graphs that fit it ('first', 'second')" in " ".join(note.split())

    session = graph_session(_calling(_review("first"), _review("second")), "twins", {"topic": "t"})
    drive(session, scenario)


def test_the_graph_pane_and_node_screen_say_which_compiled_graphs_a_node_invokes() -> None:
    from textual.widgets import Static

    from sgdebug.tui.screens.node_screen import NodeScreen
    from sgdebug.tui.widgets.graph_pane import GraphPane

    from .harness import select_node

    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await select_node(app, pilot, "call_sub")
        await press(app, pilot, "enter")
        screen = app.screen
        assert isinstance(screen, NodeScreen)
        shown = str(screen.query_one(Static).render())
        assert "runs: 2 compiled graphs ('first', 'second') its function invokes" in shown
        await press(app, pilot, "escape")
        caption = app.query_one(GraphPane)._describe().plain
        assert caption.startswith("▸ call_sub: idle · calls 'first', 'second'")  # (the pane)
        await select_node(app, pilot, "finish")
        await press(app, pilot, "enter")
        assert "runs:" not in str(app.screen.query_one(Static).render())  # (a plain node)

    graph = _calling(_review("first"), _review("second"))
    drive(graph_session(graph, "twins", {"topic": "t"}), scenario)


def test_a_subgraph_nodes_details_say_its_nodes_are_paths() -> None:
    from sgdebug.inspect.topology import topology
    from sgdebug.sample_graphs import load
    from sgdebug.tui.details import node_details

    graph = load("nested").graph
    details = node_details("research", topology(graph), None, graph)
    assert details.runs == "a subgraph, added as the node (its nodes are paths: research/NODE)"
    assert node_details("plan", topology(graph), None, graph).runs == ""
