"""``get_input_jsonschema`` / ``get_output_jsonschema`` / ``get_context_jsonschema`` give
LangGraph's JSON text (key order included) for every kind of schema."""

from __future__ import annotations

import json
import operator
import typing
from dataclasses import dataclass, field
from typing import Annotated, Any, NotRequired, Optional, Required

import pytest
from langgraph.graph import StateGraph as LgStateGraph
from langgraph.managed import RemainingSteps as LgRemainingSteps
from pydantic import BaseModel
from typing_extensions import TypedDict  # pydantic needs it before Python 3.12

from sgdebug.runtime import START, StateGraph
from sgdebug.runtime.managed import RemainingSteps


class Parent(TypedDict):
    p: str


class Partial(Parent, total=False):
    """Some keys optional."""

    a: int
    b: Annotated[list[str], operator.add]
    c: Required[Optional[str]]  # noqa: UP045 - the spelling users write
    d: Annotated[NotRequired[str], "meta"]


@dataclass
class Data:
    x: int
    maybe: int | None
    noted: Annotated[float | None, "meta"]
    old: Optional[str]  # noqa: UP045 - the spelling users write
    y: str = "foo"
    z: list[int] = field(default_factory=lambda: [1, 2])
    w: Annotated[int, "meta"] = 4
    v: str = field(default=...)  # type: ignore[assignment]


class Model(BaseModel):
    """A pydantic state."""

    m: int
    n: str = "d"
    o: Annotated[list[int], operator.add] = []


class Ctx(TypedDict):
    model: str


class In(TypedDict):
    q: str


class ManagedTD(TypedDict):
    a: int
    r: RemainingSteps


class LgManagedTD(TypedDict):
    a: int
    r: LgRemainingSteps


@dataclass
class ManagedData:
    a: int
    r: RemainingSteps = 0


@dataclass
class LgManagedData:
    a: int
    r: LgRemainingSteps = 0


def _managed(remaining: Any) -> tuple[Any, Any]:
    if remaining is RemainingSteps:
        return ManagedTD, ManagedData
    return LgManagedTD, LgManagedData


class PlainTD(typing.TypedDict):
    a: int
    b: NotRequired[str]


class ModernTD(TypedDict):
    a: int
    b: NotRequired[str]


CASES: dict[str, Any] = {
    "typeddict": lambda sg, rs: sg(Partial),
    "dataclass": lambda sg, rs: sg(Data, context_schema=Data),
    "pydantic": lambda sg, rs: sg(Model, context_schema=Model),
    "context typeddict": lambda sg, rs: sg(In, context_schema=Ctx),
    "input output": lambda sg, rs: sg(Partial, input_schema=In, output_schema=Parent),
    "root": lambda sg, rs: sg(Annotated[list, operator.add]),
    "managed typeddict": lambda sg, rs: sg(_managed(rs)[0]),
    "managed dataclass": lambda sg, rs: sg(_managed(rs)[1]),
}


def _schemas(graph_cls: Any, remaining: Any, case: str) -> list[str]:
    builder = CASES[case](graph_cls, remaining)
    builder.add_node("n", lambda s: None).add_edge(START, "n")
    graph = builder.compile()
    found = [graph.get_input_jsonschema(), graph.get_output_jsonschema()]
    return [json.dumps(s) for s in (*found, graph.get_context_jsonschema())]


@pytest.mark.parametrize("case", list(CASES))
def test_json_schemas_are_langgraphs(case: str) -> None:
    ours = _schemas(StateGraph, RemainingSteps, case)
    theirs = _schemas(LgStateGraph, LgRemainingSteps, case)
    assert ours == [t.replace('"title": "Lg', '"title": "') for t in theirs]


def test_a_typing_typeddict_is_described_where_langgraph_needs_typing_extensions() -> None:
    # LangGraph (through pydantic) refuses a typing.TypedDict before Python 3.12; sgdebug
    # describes it as the same typing_extensions.TypedDict would be.
    found = []
    for schema in (PlainTD, ModernTD):
        builder = StateGraph(schema)
        builder.add_node("n", lambda s: None).add_edge(START, "n")
        found.append(builder.compile().get_input_jsonschema())
    assert found[0] == {**found[1], "title": "PlainTD"}
    assert found[0]["required"] == ["a"]
