"""Checkpoint programs: ``interrupt(value, response_schema=...)``.

The pending interrupt shows the schema as JSON Schema; the answer comes back validated
(built into the model, dataclass or TypedDict; unchanged for a dict schema), and an answer
that does not match fails the resume with pydantic's ``ValidationError`` while the
interrupt stays pending, to be answered again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from typing_extensions import TypedDict  # pydantic needs it on Python < 3.12

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, Raised, attempt, typed_dict
from .checkpoint import CFG, Rec, Script, ckpt, snap


class Decision(BaseModel):
    """A pydantic answer."""

    approved: bool
    note: str | None = None


@dataclass
class DecisionData:
    """A dataclass answer."""

    approved: bool


class DecisionDict(TypedDict):
    """A TypedDict answer."""

    approved: bool


RAW = {"type": "object", "properties": {"approved": {"type": "boolean"}}}
SCHEMAS: dict[str, Any] = {
    "none": None,
    "raw": RAW,
    "model": Decision,
    "dataclass": DecisionData,
    "typeddict": DecisionDict,
}


def _asking(g: EngineAPI, schema: Any) -> Any:
    def ask(state: Any) -> dict[str, Any]:
        first = g.interrupt("first")
        return {"answer": [first, g.interrupt({"q": "ok?"}, response_schema=schema)]}

    b = g.StateGraph(typed_dict("A", {"answer": Any}))
    b.add_node("ask", ask).add_edge(g.START, "ask")
    return b.compile(checkpointer=g.InMemorySaver())


def _pending(graph: Any) -> Any:
    return attempt(lambda: [(i.value, i.response_schema) for i in graph.get_state(CFG).interrupts])


def _answers(graph: Any, command: Any) -> Script:
    """Start, answer the first interrupt, then the schema'd one badly, then well."""

    def call(value: Any) -> Any:
        return attempt(lambda: graph.invoke(value, CFG))

    yield "start", call({"answer": None})
    yield "first", call(command(resume="yes"))
    yield "pending", _pending(graph)
    yield "bad", call(command(resume={"approved": "nope"}))
    yield "after bad", snap(graph)
    yield "good", call(command(resume={"approved": True, "extra": 1}))


@ckpt
def interrupt_response_schema_validates_answers(g: EngineAPI) -> Case:
    graphs = {name: _asking(g, schema) for name, schema in SCHEMAS.items()}

    def script() -> Script:
        for name, graph in graphs.items():
            for label, seen in _answers(graph, g.Command):
                yield f"{name} {label}", seen

    def spec(r: Rec) -> None:
        assert r["raw pending"] == [({"q": "ok?"}, RAW)]
        assert r["model pending"] == [({"q": "ok?"}, Decision.model_json_schema())]
        assert r["typeddict good"] == {"answer": ["yes", {"approved": True}]}
        for name in ("model", "dataclass", "typeddict"):
            assert isinstance(r[f"{name} bad"], Raised)
            assert r[f"{name} bad"].name == "ValidationError"
        for name in ("none", "raw"):  # no validation: the answer ends the run as it is
            assert r[f"{name} bad"]["answer"] == ["yes", {"approved": "nope"}]

    return Case(graphs["none"], script=script, spec=spec)
