"""Programs exercising state schemas: TypedDict, dataclass, pydantic, root, multi-schema."""

from __future__ import annotations

import operator
from dataclasses import dataclass, field, replace
from typing import Annotated, Any, NotRequired, Required, TypedDict

from pydantic import BaseModel

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, err, program, say, typed_dict

CONFLICT = "Channel 'x' already exists with a different type"


class In(TypedDict):
    """Input schema of the multi-schema programs (module level, so hints resolve)."""

    q: str


class Out(TypedDict):
    """Output schema of the multi-schema programs."""

    ans: str


class Overall(TypedDict):
    """State schema of the multi-schema programs."""

    q: str
    ans: str
    scratch: str


class Private(TypedDict):
    """A node's private schema: adds the ``secret`` channel."""

    secret: str


@program()
def typeddict_required_notrequired_no_validation(g: EngineAPI) -> Case:
    class S(TypedDict):
        x: Required[int]
        y: NotRequired[str]
        log: Annotated[list[str], operator.add]

    b = g.StateGraph(S)
    b.add_node("a", lambda s: {"y": s.get("x", "none") * 2, "log": sorted(s)})
    b.add_edge(g.START, "a")
    return Case(
        b.compile(),
        inputs=({"x": "ab"}, {}, {"x": 3, "y": 4}),
        expect=(
            {"x": "ab", "y": "abab", "log": ["log", "x"]},
            {"y": "nonenone", "log": ["log"]},
            {"x": 3, "y": 6, "log": ["log", "x", "y"]},
        ),
    )


@program()
def typeddict_missing_key_raises_keyerror(g: EngineAPI) -> Case:
    class S(TypedDict):
        x: int
        y: int

    b = g.StateGraph(S)
    b.add_node("a", lambda s: {"y": s["x"]})
    b.add_edge(g.START, "a")
    return Case(
        b.compile(), inputs=({"y": 1}, {"x": 2}), expect=(err("KeyError", "'x'"), {"x": 2, "y": 2})
    )


@program()
def dataclass_state_with_defaults(g: EngineAPI) -> Case:
    @dataclass
    class DS:
        x: int
        log: Annotated[list[str], operator.add] = field(default_factory=list)
        name: str = "anon"

    def a(s: Any) -> dict[str, Any]:
        return {"x": s.x + 1, "log": [f"{type(s).__name__}:{s.name}:{s.log}"]}

    b = g.StateGraph(DS)
    b.add_node("a", a).add_node("b", lambda s: {"name": s.name.upper()})
    b.add_edge(g.START, "a").add_edge("a", "b")
    return Case(
        b.compile(),
        inputs=({"x": 1}, {"x": 1, "name": "n", "log": ["i"]}),
        expect=(
            {"x": 2, "log": ["DS:anon:[]"], "name": "ANON"},
            {"x": 2, "log": ["i", "DS:n:['i']"], "name": "N"},
        ),
    )


@program()
def dataclass_missing_required_field(g: EngineAPI) -> Case:
    @dataclass
    class DS:
        x: int
        y: int = 0

    b = g.StateGraph(DS)
    b.add_node("a", lambda s: {"y": s.x})
    b.add_edge(g.START, "a")
    return Case(b.compile(), inputs=({"y": 1},))


@program()
def dataclass_instance_as_input_and_return(g: EngineAPI) -> Case:
    @dataclass
    class DS:
        x: int | None = None
        log: Annotated[list[str], operator.add] = field(default_factory=list)

    def a(s: Any) -> Any:
        return replace(s, log=[*s.log, "new"])

    b = g.StateGraph(DS)
    b.add_node("a", a)
    b.add_edge(g.START, "a")
    return Case(
        b.compile(),
        inputs=(DS(x=1, log=["i"]), DS(), {"log": ["d"]}),
        expect=(
            {"x": 1, "log": ["i", "i", "new"]},
            {"x": None, "log": ["new"]},
            {"x": None, "log": ["d", "d", "new"]},
        ),
    )


@program()
def dataclass_branch_gets_instance(g: EngineAPI) -> Case:
    @dataclass
    class DS:
        n: int = 0
        log: Annotated[list[str], operator.add] = field(default_factory=list)

    def route(s: Any) -> str:
        return "big" if s.n > 1 else "small"

    b = g.StateGraph(DS)
    b.add_node("a", lambda s: {"n": s.n + 1})
    b.add_node("big", say("big")).add_node("small", say("small"))
    b.add_edge(g.START, "a").add_conditional_edges("a", route)
    return Case(b.compile(), inputs=({"n": 0}, {"n": 1}))


@program()
def pydantic_state_coerces_input(g: EngineAPI) -> Case:
    class PS(BaseModel):
        x: int
        log: Annotated[list[str], operator.add] = []

    def a(s: Any) -> dict[str, Any]:
        return {"log": [f"{type(s).__name__}:{s.x!r}"], "x": s.x + 1}

    b = g.StateGraph(PS)
    b.add_node("a", a).add_node("b", lambda s: {"log": [repr(s.x)]})
    b.add_edge(g.START, "a").add_edge("a", "b")
    return Case(b.compile(), inputs=({"x": "5"}, {"x": 2.0}), modes=("debug",))


@program()
def pydantic_state_validation_errors(g: EngineAPI) -> Case:
    class PS(BaseModel):
        x: int
        y: str = "d"

    b = g.StateGraph(PS)
    b.add_node("a", lambda s: {"y": str(s.x)})
    b.add_edge(g.START, "a")
    return Case(b.compile(), inputs=({"x": "abc"}, {"y": "only"}))


@program()
def pydantic_updates_not_validated(g: EngineAPI) -> Case:
    class PS(BaseModel):
        x: int = 0
        log: Annotated[list[str], operator.add] = []

    b = g.StateGraph(PS)
    b.add_node("a", lambda s: {"x": "bad", "log": ["a"]})
    b.add_edge(g.START, "a")
    return Case(b.compile(), inputs=({"x": 1},), expect=({"x": "bad", "log": ["a"]},))


@program()
def pydantic_instance_as_input(g: EngineAPI) -> Case:
    class PS(BaseModel):
        x: int | None = None
        y: int = 3
        z: str | None = None
        log: Annotated[list[str], operator.add] = []

    b = g.StateGraph(PS)
    b.add_node("a", lambda s: {"log": [f"{s.x}-{s.y}-{s.z}"]})
    b.add_edge(g.START, "a")
    return Case(b.compile(), inputs=(PS(x=1), PS(z=None), PS(y=5, log=["i"])))


@program()
def root_int_schema(g: EngineAPI) -> Case:
    b = g.StateGraph(int)
    b.add_node("a", lambda s: s + 1).add_node("b", lambda s: s * 10)
    b.add_edge(g.START, "a").add_edge("a", "b")
    return Case(
        draw=True,
        graph=b.compile(),
        inputs=(1,),
        expect=(20,),
        expect_updates=[{"a": 2}, {"b": 20}],
    )


@program()
def root_reducer_schema(g: EngineAPI) -> Case:
    b = g.StateGraph(Annotated[list, operator.add])
    b.add_node("a", lambda s: ["a"]).add_node("b", lambda s: ["b"])
    b.add_node("c", lambda s: None)
    b.add_edge(g.START, "a").add_edge(g.START, "b").add_edge("b", "c")
    return Case(b.compile(), inputs=(["i"],), expect=(["i", "a", "b"],))


@program()
def input_output_and_private_schemas(g: EngineAPI) -> Case:
    def a(s: In) -> dict[str, Any]:
        return {"scratch": s["q"] + "!", "ignored": 1}

    def b_(s: Overall) -> dict[str, Any]:
        return {"secret": s["scratch"] * 2}

    def c(s: Private) -> Out:
        return {"ans": s["secret"] + str(sorted(s))}

    b = g.StateGraph(Overall, input_schema=In, output_schema=Out)
    b.add_node("a", a).add_node("b", b_).add_node("c", c)
    b.add_edge(g.START, "a").add_edge("a", "b").add_edge("b", "c")
    ans = "hi!hi!['secret']"
    return Case(
        draw=True,
        graph=b.compile(),
        inputs=({"q": "hi", "ans": "x", "junk": 1},),
        expect=({"ans": ans},),
    )


@program()
def node_input_schema_argument(g: EngineAPI) -> Case:
    class S(TypedDict):
        a: int
        b: int
        log: Annotated[list[str], operator.add]

    class Narrow(TypedDict):
        a: int
        p: int

    b = g.StateGraph(S)
    b.add_node("w", lambda s: {"p": s["a"] * 2, "a": 6}, input_schema=Narrow)
    b.add_node("r", lambda s: {"log": [str(sorted(s.items()))]}, input_schema=Narrow)
    b.add_node("plain", lambda s: {"log": [str(sorted(s))]})
    b.add_edge(g.START, "w").add_edge("w", "r").add_edge("r", "plain")
    return Case(b.compile(), inputs=({"a": 1, "b": 2},))


@program()
def node_first_param_dict_sees_state_schema(g: EngineAPI) -> Case:
    def w(s: Private) -> dict[str, Any]:
        return {"secret": "s", "q": "q2"}

    def r(s: dict) -> dict[str, Any]:  # type: ignore[type-arg]
        return {"ans": str(sorted(s))}

    b = g.StateGraph(Overall)
    b.add_node("w", w).add_node("r", r)
    b.add_edge(g.START, "w").add_edge("w", "r")
    return Case(
        b.compile(),
        inputs=({"q": "q"},),
        expect=({"q": "q2", "ans": "['q']"},),
    )


@program(raises=err("ValueError", CONFLICT))
def schema_conflict_plain_then_reducer(g: EngineAPI) -> Case:
    class S(TypedDict):
        x: int

    class I2(TypedDict):
        x: Annotated[int, operator.add]

    return Case(g.StateGraph(S, input_schema=I2).add_node("a", say("a")).compile())


@program(raises=err("ValueError", CONFLICT))
def schema_conflict_reducer_then_ephemeral(g: EngineAPI) -> Case:
    class S(TypedDict):
        x: Annotated[int, operator.add]

    I2 = typed_dict("I2", {"x": Annotated[int, g.EphemeralValue]})
    return Case(g.StateGraph(S, input_schema=I2).add_node("a", say("a")).compile())


@program()
def schema_conflict_plain_ignored_after_reducer(g: EngineAPI) -> Case:
    class S(TypedDict):
        x: Annotated[int, operator.add]

    class I2(TypedDict):
        x: int

    b = g.StateGraph(S, input_schema=I2)
    b.add_node("a", lambda s: {"x": 5}).add_node("b", lambda s: {"x": 7})
    b.add_edge(g.START, "a").add_edge(g.START, "b")
    return Case(b.compile(), inputs=({"x": 1},), expect=({"x": 13},))


@program(raises=err("ValueError", CONFLICT))
def schema_conflict_two_reducer_functions(g: EngineAPI) -> Case:
    class S(TypedDict):
        x: Annotated[int, operator.add]

    class I2(TypedDict):
        x: Annotated[int, operator.mul]

    return Case(g.StateGraph(S, input_schema=I2).add_node("a", say("a")).compile())


@program()
def schema_conflict_lambda_reducer_accepted(g: EngineAPI) -> Case:
    class S(TypedDict):
        x: Annotated[int, operator.add]

    class I2(TypedDict):
        x: Annotated[int, lambda a, b: a - b]

    b = g.StateGraph(S, input_schema=I2).add_node("a", lambda s: {"x": 2})
    return Case(b.add_edge(g.START, "a").compile(), inputs=({"x": 3},), expect=({"x": 5},))


@program(
    raises=err(
        "ValueError",
        "Invalid managed channels detected in In2: rem. Managed channels are not permitted "
        "in Input/Output schema.",
    )
)
def managed_value_in_input_schema(g: EngineAPI) -> Case:
    class S(TypedDict):
        x: int

    In2 = typed_dict("In2", {"x": int, "rem": g.RemainingSteps})
    b = g.StateGraph(S, input_schema=In2).add_node("a", say("a")).add_edge(g.START, "a")
    return Case(b.compile())


@program()
def output_key_order_is_registration_order(g: EngineAPI) -> Case:
    class S(TypedDict):
        b: int
        a: int
        log: Annotated[list[str], operator.add]

    class Extra(TypedDict):
        z: int
        c: int

    b = g.StateGraph(S)
    b.add_node("n", lambda s: {"c": 3, "log": ["n"], "a": 1, "z": 0, "b": 2}, input_schema=Extra)
    b.add_edge(g.START, "n")
    return Case(b.compile(), expect=({"b": 2, "a": 1, "log": ["n"]},))


@program()
def node_mutates_input_list_in_place(g: EngineAPI) -> Case:
    class S(TypedDict):
        items: list[str]
        log: Annotated[list[str], operator.add]

    def a(s: S) -> dict[str, Any]:
        s["items"].append("mut")
        s["log"].append("mut")
        return {"log": ["a"]}

    b = g.StateGraph(S)
    b.add_node("a", a).add_node("b", lambda s: {"log": [str(s["items"])]})
    b.add_edge(g.START, "a").add_edge("a", "b")
    return Case(b.compile(), inputs=({"items": ["i"], "log": ["i"]},))
