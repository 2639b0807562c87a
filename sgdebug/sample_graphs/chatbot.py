"""A tool-calling chat agent on ``MessagesState``, with a fake model: no network, no LLM.

``START -> agent``; the path function ``route`` sends the run to ``tools`` when the
agent's last message asks for tool calls, else to ``END``; ``tools -> agent`` closes the
loop, as in a real ReAct agent. The "model" is a few rules: it finds the requests in the
latest user message (the weather in a city, an arithmetic question), calls one tool per
turn until each has a result, then answers from the tool results. Every message gets a
deterministic id, so two runs give identical histories.

Things to look at in the debugger: ``messages`` is an ``add_messages`` reducer, so each
step's diff shows messages appended (or replaced by id); the branch after ``agent`` flips
from ``tools`` to ``END`` on the last turn; break before ``tools`` and edit the pending
tool call's arguments to change the answer.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from sgdebug.sample_graphs import lazy_graph
from sgdebug.sample_graphs._engines import Engine, api

__all__ = ["EXAMPLE_INPUT", "build", "plan_tool_calls", "run_tool"]

EXAMPLE_INPUT: Final[dict[str, Any]] = {
    "messages": [
        {
            "role": "user",
            "content": "What's the weather in Paris, and what is 6 * 7?",
            "id": "user-1",
        }
    ]
}
"""One user turn that needs two tool calls."""

_WEATHER: Final = {"paris": "18°C and sunny", "london": "12°C with drizzle", "tokyo": "24°C"}
_WEATHER_ASK: Final = re.compile(r"weather in ([A-Za-z][A-Za-z ]*?)(?=[?,.!]|\s+and\b|$)", re.I)
_ARITHMETIC: Final = re.compile(r"(-?\d+)\s*([-+*/x])\s*(-?\d+)")
_OPERATORS: Final[dict[str, Callable[[int, int], float]]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "x": operator.mul,
    "/": operator.truediv,
}
_HELP: Final = "I can tell you the weather in a city or do arithmetic, e.g. 'what is 6 * 7?'"


def _field(message: Any, name: str) -> Any:
    """A message field, whether messages are LangChain objects or plain dicts."""
    if isinstance(message, Mapping):
        return message.get(name)
    return getattr(message, name, None)


def _role(message: Any) -> str:
    role = _field(message, "type") or _field(message, "role")
    return {"user": "human", "assistant": "ai"}.get(str(role), str(role))


def plan_tool_calls(question: str) -> list[tuple[str, dict[str, str]]]:
    """The tool calls (name, arguments) the fake model makes for ``question``."""
    calls = [("get_weather", {"city": city}) for city in _WEATHER_ASK.findall(question)]
    calls += [("calculator", {"expression": " ".join(m)}) for m in _ARITHMETIC.findall(question)]
    return calls


def run_tool(name: str, args: Mapping[str, str]) -> str:
    """Execute one fake tool."""
    if name == "get_weather":
        city = args["city"]
        return f"{city}: {_WEATHER.get(city.lower(), '20°C and cloudy')}"
    left, symbol, right = args["expression"].split()
    try:
        value = _OPERATORS[symbol](int(left), int(right))
    except ZeroDivisionError:
        return f"{args['expression']} is undefined"
    shown = int(value) if float(value).is_integer() else round(value, 4)
    return f"{args['expression']} = {shown}"


def _respond(messages: list[Any]) -> dict[str, Any]:
    """The fake model's next message, given the conversation so far."""
    turn = max(i for i, message in enumerate(messages) if _role(message) == "human")
    results = {
        _field(message, "tool_call_id"): str(_field(message, "content"))
        for message in messages[turn + 1 :]
        if _role(message) == "tool"
    }
    planned = plan_tool_calls(str(_field(messages[turn], "content")))
    reply: dict[str, Any] = {"role": "assistant", "id": f"ai-{len(messages)}"}
    for index, (name, args) in enumerate(planned):
        call_id = f"call-{turn}-{index}"
        if call_id not in results:
            call = {"id": call_id, "name": name, "args": args}
            return {**reply, "content": f"Calling {name}.", "tool_calls": [call]}
    answers = [results[f"call-{turn}-{index}"] for index in range(len(planned))]
    found = " ".join(f"{answer}." for answer in answers)
    return {**reply, "content": f"Here is what I found: {found}" if answers else _HELP}


def build(engine: Engine = "sgdebug") -> Any:
    """``agent`` <-> ``tools`` on ``MessagesState`` with a rule-based model, on ``engine``."""
    lg = api(engine)

    def agent(state: dict[str, Any]) -> dict[str, Any]:
        """The fake model's turn: call a tool or answer."""
        return {"messages": [_respond(list(state["messages"]))]}

    def tools(state: dict[str, Any]) -> dict[str, Any]:
        """Run every tool call of the agent's last message."""
        calls = _field(state["messages"][-1], "tool_calls") or []
        results = [
            {
                "role": "tool",
                "content": run_tool(call["name"], call["args"]),
                "tool_call_id": call["id"],
                "name": call["name"],
                "id": f"result-{call['id']}",
            }
            for call in calls
        ]
        return {"messages": results}

    def route(state: dict[str, Any]) -> str:
        """To ``tools`` while the agent asks for tool calls, else finish."""
        return "tools" if _field(state["messages"][-1], "tool_calls") else lg.END

    builder = lg.StateGraph(lg.MessagesState)
    builder.add_node("agent", agent)
    builder.add_node("tools", tools)
    builder.add_edge(lg.START, "agent")
    builder.add_conditional_edges("agent", route, ["tools", lg.END])
    builder.add_edge("tools", "agent")
    return builder


def __getattr__(name: str) -> Any:
    return lazy_graph(__name__, name, build)
