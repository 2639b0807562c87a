"""Programs exercising MessagesState and add_messages with langchain-core messages.

Message ids that ``add_messages`` generates are uuid4 strings; the harness normalises them
to ``<idN>`` (first-appearance order), so ids must be assigned to the same messages in the
same order on both engines.
"""

from __future__ import annotations

from typing import Annotated, Any

from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, SystemMessage

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, err, program, typed_dict

COERCION = (
    "\nFor troubleshooting, visit: "
    "https://docs.langchain.com/oss/python/langchain/errors/MESSAGE_COERCION_FAILURE "
)


def _echo(state: Any) -> dict[str, Any]:
    """A deterministic fake chat model."""
    last = state["messages"][-1]
    return {"messages": [AIMessage(content=f"echo: {last.content}")]}


def _chat(g: EngineAPI, node: Any = _echo) -> Any:
    b = g.StateGraph(g.MessagesState).add_node("model", node).add_edge(g.START, "model")
    return b.compile()


@program()
def messages_state_chatbot(g: EngineAPI) -> Case:
    return Case(
        _chat(g),
        inputs=(
            {"messages": [("user", "hi")]},
            {"messages": "plain string"},
            {"messages": [{"role": "user", "content": "dict", "id": "d1"}]},
            {"messages": [HumanMessage(content="obj", id="h1"), ("ai", "prev"), ("system", "s")]},
        ),
    )


@program()
def add_messages_replaces_by_id_in_place(g: EngineAPI) -> Case:
    def edit(s: Any) -> dict[str, Any]:
        return {"messages": [HumanMessage(content="edited", id="1"), AIMessage("new", id="3")]}

    history = [HumanMessage("one", id="1"), AIMessage("two", id="2")]
    return Case(_chat(g, edit), inputs=({"messages": history},))


@program()
def add_messages_remove_message(g: EngineAPI) -> Case:
    def remove(s: Any) -> dict[str, Any]:
        return {"messages": [RemoveMessage(id="1"), AIMessage("after", id="9")]}

    history = [HumanMessage("one", id="1"), AIMessage("two", id="2")]
    return Case(_chat(g, remove), inputs=({"messages": history},))


@program()
def add_messages_remove_all(g: EngineAPI) -> Case:
    def reset(s: Any) -> dict[str, Any]:
        return {
            "messages": [
                SystemMessage("keep", id="k"),
                RemoveMessage(id="__remove_all__"),
                ("ai", "fresh"),
            ]
        }

    history = [HumanMessage("one", id="1"), AIMessage("two", id="2")]
    return Case(_chat(g, reset), inputs=({"messages": history},))


@program()
def add_messages_remove_unknown_id(g: EngineAPI) -> Case:
    def remove(s: Any) -> dict[str, Any]:
        return {"messages": [RemoveMessage(id="9")]}

    msg = "Attempting to delete a message with an ID that doesn't exist ('9')"
    return Case(
        _chat(g, remove),
        inputs=({"messages": [HumanMessage("one", id="1")]},),
        expect=(err("ValueError", msg),),
    )


@program()
def add_messages_coercion_errors(g: EngineAPI) -> Case:
    bad: list[Any] = [{"role": "badrole", "content": "x"}, {"content": "no role"}, 5]
    return Case(
        _chat(g, lambda s: {"messages": [bad[len(s["messages"]) - 1]]}),
        inputs=(
            {"messages": ["m1"]},
            {"messages": ["m1", "m2"]},
            {"messages": ["m1", "m2", "m3"]},
        ),
        expect=(
            err(
                "ValueError",
                "Unexpected message type: 'badrole'. Use one of 'human', 'user', 'ai', "
                "'assistant', 'function', 'tool', 'system', or 'developer'." + COERCION,
            ),
            err(
                "ValueError",
                "Message dict must contain 'role' and 'content' keys, got {'content': 'no role'}"
                + COERCION,
            ),
            err("NotImplementedError", "Unsupported message type: <class 'int'>" + COERCION),
        ),
    )


@program()
def add_messages_on_custom_state_with_parallel_nodes(g: EngineAPI) -> Case:
    S = typed_dict("S", {"messages": Annotated[list, g.add_messages], "turns": int})
    b = g.StateGraph(S)
    b.add_node("a", lambda s: {"messages": [AIMessage("from a", id="a")], "turns": s["turns"] + 1})
    b.add_node("b", lambda s: {"messages": AIMessage("from b", id="b")})
    b.add_node("c", lambda s: {"messages": [("ai", f"c saw {len(s['messages'])}")]})
    b.add_edge(g.START, "a").add_edge(g.START, "b").add_edge(["a", "b"], "c")
    return Case(b.compile(), inputs=({"messages": [("user", "go")], "turns": 0},))
