"""The checkpoint value serialiser: exact round-trips, safe loading, clear errors."""

from __future__ import annotations

import contextlib
import datetime as dt
import enum
import json
import math
import socket
import subprocess
import sys
import textwrap
import time
import types
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, NamedTuple
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, RootModel, field_validator

from sgdebug.runtime.checkpoint import _serde_decode, _serde_lookup
from sgdebug.runtime.checkpoint.serde import (
    DeserializationError,
    SerializationError,
    Unresolved,
    dumps,
    loads,
    register,
)
from sgdebug.runtime.types import Command, Interrupt, Overwrite, Send


class Color(enum.Enum):
    RED = "red"
    BLUE = 2


class Perm(enum.Flag):
    R = 1
    W = 2


class Level(enum.IntEnum):
    LOW = 1


class Point(NamedTuple):
    x: Any
    y: Any = None


@dataclass
class Box:
    item: Any
    tags: list[Any] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Frozen:
    a: Any
    b: Any = 0


class Model(BaseModel):
    name: Any
    items: list[Any] = []


class Aliased(BaseModel):
    model_config = ConfigDict(extra="allow")
    value: int = Field(alias="v")
    _secret: int = PrivateAttr(default=7)


class Numbers(RootModel[list[int]]):
    pass


GOTO: list[Send | str] = [Send("n", {"k": (1,)}), "b"]


def roundtrip(value: Any) -> Any:
    """Encode, decode, and check re-encoding gives the same bytes (type-exact round trip)."""
    data = dumps(value)
    back = loads(data)
    assert dumps(back) == data
    return back


# -- hypothesis: nested values of every supported type round-trip --------------------------

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(),
    st.binary(),
    st.decimals(allow_nan=False),
    st.uuids(),
    st.dates(),
    st.timedeltas(),
    st.datetimes(timezones=st.none() | st.timezones()),
    st.times(timezones=st.none() | st.just(dt.UTC)),
    st.sampled_from([Color.RED, Color.BLUE, Perm.R, Perm.R | Perm.W, Level.LOW]),
)
hashables = st.recursive(
    scalars, lambda inner: st.tuples(inner, inner) | st.frozensets(inner, max_size=3), max_leaves=6
)
messages = st.one_of(
    st.builds(lambda c, i: HumanMessage(c, id=i), st.text(), st.none() | st.text()),
    st.builds(
        lambda c, i, calls: AIMessage(c, id=i, tool_calls=calls),
        st.text(),
        st.text(),
        st.lists(
            st.fixed_dictionaries(
                {
                    "name": st.text(),
                    "args": st.dictionaries(st.text(), st.integers()),
                    "id": st.text(),
                }
            ),
            max_size=2,
        ),
    ),
    st.builds(
        lambda c, i, a: ToolMessage(c, tool_call_id=i, artifact=a),
        st.text(),
        st.text(),
        st.integers(),
    ),
    st.builds(lambda i: RemoveMessage(id=i), st.text()),
)


def _containers(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    pairs = st.tuples(inner, inner)
    return st.one_of(
        st.lists(inner, max_size=4),
        pairs.map(tuple),
        st.dictionaries(st.text() | st.just("$"), inner, max_size=4),
        st.dictionaries(hashables, inner, max_size=3),
        st.sets(hashables, max_size=4),
        st.frozensets(hashables, max_size=3),
        pairs.map(lambda p: Box(p[0], [p[1]])),
        pairs.map(lambda p: Frozen(*p)),
        pairs.map(lambda p: Point(*p)),
        pairs.map(lambda p: Model(name=p[0], items=[p[1]])),
        pairs.map(lambda p: Send("node", p)),
        inner.map(Overwrite),
        inner.map(lambda v: Interrupt(v, id="i")),
        pairs.map(lambda p: Command(update=p[0], resume=p[1], goto=GOTO)),
    )


values = st.recursive(scalars | hashables | messages, _containers, max_leaves=25)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values)
def test_nested_values_roundtrip_exactly(value: Any) -> None:
    assert roundtrip(value) == value


@given(values)
@settings(deadline=None)
def test_equal_values_give_identical_bytes(value: Any) -> None:
    assert dumps(value) == dumps(loads(dumps(value)))


@given(st.binary())
def test_random_bytes_load_or_raise_deserialization_error(data: bytes) -> None:
    with contextlib.suppress(DeserializationError):
        loads(data)


json_trees = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["$", "v", "c", "n", "fs", "tz", "x"]), inner, max_size=4)
        | st.builds(
            lambda tag, rest: {"$": tag, **rest},
            st.sampled_from(sorted(_serde_decode.DECODERS)),
            st.dictionaries(
                st.sampled_from(["v", "c", "n", "fs", "x", "p", "tz"]), inner, max_size=3
            ),
        )
    ),
    max_leaves=12,
)


@given(json_trees)
def test_crafted_tagged_json_loads_or_raises_deserialization_error(tree: Any) -> None:
    with contextlib.suppress(DeserializationError):
        loads(json.dumps(tree).encode())


@given(values, st.data())
@settings(deadline=None)
def test_truncated_or_flipped_encodings_raise_only_deserialization_error(
    value: Any, data: st.DataObject
) -> None:
    encoded = bytearray(dumps(value))
    cut = data.draw(st.integers(0, len(encoded)))
    flip = data.draw(st.integers(0, len(encoded) - 1))
    for corrupt in (bytes(encoded[:cut]), bytes(encoded[:flip] + b"\x7f" + encoded[flip + 1 :])):
        with contextlib.suppress(DeserializationError):
            loads(corrupt)


# -- explicit round trips ----------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        float("inf"),
        float("-inf"),
        -0.0,
        2**20_000,
        -(2**20_000),
        "lone \ud800 surrogate",
        b"\x00\xff",
        {"$": 1, "k": "$"},
        {1: "a", (2, 3): "b", None: "c", Color.RED: "d", frozenset({1}): "e"},
        {"b": 1, "a": 2},
        [(), (1,), [()], {}],
        {1, "1", 1.5, (1, 2)},
        frozenset({frozenset({1})}),
        Decimal("-0.00"),
        Decimal("1.2E+5"),
        uuid.UUID(int=7),
        Perm.R | Perm.W,
        Level.LOW,
        Point(1),
    ],
    ids=lambda v: type(v).__name__,
)
def test_values_roundtrip_with_exact_types(value: Any) -> None:
    back = roundtrip(value)
    assert back == value
    assert type(back) is type(value)
    if isinstance(value, dict):
        assert list(back) == list(value)


def test_nan_roundtrips() -> None:
    assert math.isnan(roundtrip(float("nan")))
    assert str(roundtrip(Decimal("NaN"))) == "NaN"


@pytest.mark.parametrize(
    "value",
    [
        dt.datetime(2024, 10, 27, 2, 30, tzinfo=ZoneInfo("Europe/Paris"), fold=1),
        dt.datetime(2024, 1, 1, 12, tzinfo=dt.timezone(dt.timedelta(hours=5, minutes=30), "IST")),
        dt.datetime(2024, 1, 1, 12, tzinfo=dt.timezone(-dt.timedelta(hours=3))),
        dt.datetime(2024, 1, 1, 12, 0, 0, 123, tzinfo=dt.UTC),
        dt.datetime(1, 1, 1),
        dt.time(23, 59, 59, 999_999, tzinfo=dt.timezone(dt.timedelta(hours=2))),
        dt.date(2024, 2, 29),
        dt.timedelta(days=-3, seconds=5, microseconds=7),
    ],
    ids=repr,
)
def test_datetimes_keep_zone_offset_name_and_fold(value: Any) -> None:
    back = roundtrip(value)
    assert back == value
    assert type(back) is type(value)
    if isinstance(value, dt.datetime | dt.time):
        assert back.tzinfo == value.tzinfo
        assert back.tzname() == value.tzname()
        assert back.fold == value.fold
        assert back.utcoffset() == value.utcoffset()


def test_dataclasses_nested_and_frozen() -> None:
    value = Box(Frozen(a=[1, (2,)], b={"k": Box(None)}), tags=[Frozen(1)])
    back = roundtrip(value)
    assert back == value
    assert isinstance(back.item, Frozen)
    assert isinstance(back.item.b["k"], Box)
    with pytest.raises(AttributeError):
        back.item.a = 2  # type: ignore[misc]


def test_loading_does_not_run_init_post_init_or_validators() -> None:
    calls: list[str] = []

    @dataclass
    class Counted:
        x: int

        def __post_init__(self) -> None:
            calls.append("post_init")

    class Validated(BaseModel):
        x: int

        @field_validator("x")
        @classmethod
        def _check(cls, v: int) -> int:
            calls.append("validator")
            return v

        def model_post_init(self, context: Any) -> None:
            calls.append("model_post_init")

    data = dumps([Counted(1), Validated(x=2)])
    calls.clear()
    counted, validated = loads(data)
    assert calls == []
    assert counted == Counted(1)
    assert validated.x == 2
    assert isinstance(validated, Validated)


def test_pydantic_models_keep_fields_set_extras_aliases_and_private_state() -> None:
    value = Aliased.model_validate({"v": 3, "extra_key": [1, (2,)]})
    value._secret = 9
    back = roundtrip(value)
    assert back == value
    assert back.model_fields_set == value.model_fields_set == {"value", "extra_key"}
    assert back.model_extra == {"extra_key": [1, (2,)]}
    assert back._secret == 9
    assert back.model_dump(by_alias=True, exclude_unset=True) == {
        "v": 3,
        "extra_key": [1, (2,)],
    }
    assert roundtrip(Numbers([1, 2])) == Numbers([1, 2])
    nested = Model(name=Model(name=Box(1)), items=[Model(name=None)])
    assert roundtrip(nested) == nested
    assert roundtrip(Model(name=1)).model_fields_set == {"name"}

    class Cached(BaseModel):
        x: int = 0
        _cache: dict[str, int] = PrivateAttr()

    assert Cached().__pydantic_private__ == {}
    assert roundtrip(Cached()) == Cached()
    assert roundtrip(Model.model_construct(name=1)) == Model.model_construct(name=1)


def test_langchain_messages_roundtrip_and_compare_equal() -> None:
    ai = AIMessage(
        content=[{"type": "text", "text": "calling"}],
        id="ai-1",
        tool_calls=[{"name": "search", "args": {"q": "x", "n": 2}, "id": "call-1"}],
        usage_metadata={"input_tokens": 1, "output_tokens": 2, "total_tokens": 3},
        response_metadata={"model": "m"},
    )
    history = [
        SystemMessage("be brief"),
        HumanMessage("hi", id="h-1", name="ann"),
        ai,
        ToolMessage("result", tool_call_id="call-1", artifact={"rows": (1, 2)}, status="error"),
        RemoveMessage(id="h-1"),
        AIMessageChunk(content="par", id="c-1"),
    ]
    back = roundtrip({"messages": history})["messages"]
    assert back == history
    assert [type(m) for m in back] == [type(m) for m in history]
    assert back[2].tool_calls == [
        {"name": "search", "args": {"q": "x", "n": 2}, "id": "call-1", "type": "tool_call"}
    ]
    assert back[3].artifact == {"rows": (1, 2)}
    assert back[4].id == "h-1"


def test_sgdebug_runtime_types_roundtrip() -> None:
    value = [
        Send("worker", {"x": (1, 2)}),
        Overwrite([1]),
        Interrupt({"ask": "?"}, id="abc"),
        Command(update={"a": 1}, goto=GOTO, resume={"id": 2}),
    ]
    back = roundtrip(value)
    assert back == value
    assert [type(v) for v in back] == [Send, Overwrite, Interrupt, Command]


def test_sets_encode_identically_whatever_the_hash_seed() -> None:
    code = (
        "import sys; from sgdebug.runtime.checkpoint.serde import dumps;"
        "sys.stdout.buffer.write(dumps({'s': {'alpha', 'beta', 'gamma', 'delta', 1, (2, 'x')},"
        " 'f': frozenset('abcdefgh')}))"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            check=True,
            env={"PYTHONHASHSEED": seed, "PATH": ""},
            cwd=Path(__file__).resolve().parents[2],
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(outputs) == 1


# -- safe loading ------------------------------------------------------------------------


@pytest.fixture
def temp_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Path]]:
    """A module on sys.path whose import leaves a marker file; not imported by the fixture."""
    name = f"sgdebug_serde_probe_{uuid.uuid4().hex}"
    marker = tmp_path / "imported"
    (tmp_path / f"{name}.py").write_text(
        textwrap.dedent(
            f"""
            import enum, pathlib
            from dataclasses import dataclass
            pathlib.Path({str(marker)!r}).write_text("yes")

            @dataclass
            class Point:
                x: int
                y: int

            class Mode(enum.Enum):
                ON = 1
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name, marker
    sys.modules.pop(name, None)


@pytest.mark.parametrize(
    "template",
    [
        '{"$":"dc","c":"MOD:Point","v":{"x":1,"y":2}}',
        '{"$":"e","c":"MOD:Mode","n":"ON","v":1}',
        '{"$":"pyd","c":"MOD:Point","fs":[],"v":{}}',
        '{"$":"nt","c":"MOD:Point","v":{}}',
        '{"$":"o","c":"MOD:Point","v":{}}',
        '{"$":"dc","c":"MOD.sub:Point","v":{}}',
    ],
)
def test_loads_never_imports_the_module_a_class_names(
    temp_module: tuple[str, Path], template: str
) -> None:
    name, marker = temp_module
    before = set(sys.modules)
    value = loads(template.replace("MOD", name).encode())
    assert isinstance(value, Unresolved)
    assert "is not imported" in value.reason
    assert set(sys.modules) == before
    assert not marker.exists()


def test_loads_does_not_import_antigravity() -> None:
    assert "antigravity" not in sys.modules
    value = loads(b'{"$":"dc","c":"antigravity:Fly","v":{"up":true}}')
    assert "antigravity" not in sys.modules
    assert value == Unresolved("antigravity.Fly", {"up": True}, value.reason, ref="antigravity:Fly")


def test_unresolved_placeholder_is_inspectable_and_written_back_unchanged(
    temp_module: tuple[str, Path],
) -> None:
    name, _ = temp_module
    module = __import__(name)
    original = {"p": [module.Point(1, (2, 3))], "m": {module.Mode.ON}}
    data = dumps(original, channel="state")
    assert loads(data) == original
    del sys.modules[name]
    loaded = loads(data)
    point = loaded["p"][0]
    assert isinstance(point, Unresolved)
    assert point.type == f"{name}.Point"
    assert point.data == {"x": 1, "y": (2, 3)}
    assert repr(point).startswith(f"Unresolved(type='{name}.Point', data={{'x': 1, 'y': (2, 3)}}")
    (mode,) = loaded["m"]
    assert mode.data == 1 and mode.meta == {"n": "ON"}
    assert dumps(loaded, channel="state") == data


def test_registered_class_resolves_without_its_module(temp_module: tuple[str, Path]) -> None:
    name, _ = temp_module
    module = __import__(name)
    data = dumps(module.Point(1, 2))
    del sys.modules[name]
    assert isinstance(loads(data), Unresolved)
    assert register(module.Point) is module.Point
    try:
        assert loads(data) == module.Point(1, 2)
    finally:
        _serde_lookup.REGISTRY.pop(f"{name}:Point")


def test_register_refuses_classes_it_cannot_store() -> None:
    with pytest.raises(TypeError, match="register"):
        register(socket.socket)


def test_classes_defined_in_functions_roundtrip_in_the_same_process() -> None:
    @dataclass
    class Local:
        v: Any

    class LocalModel(BaseModel):
        v: int

    assert roundtrip([Local(LocalModel(v=1))]) == [Local(LocalModel(v=1))]


def test_class_lookup_does_not_run_module_getattr() -> None:
    calls: list[str] = []
    module = types.ModuleType("sgdebug_serde_lazy")

    def lazy(attr: str) -> Any:
        calls.append(attr)
        return Frozen

    module.__getattr__ = lazy  # type: ignore[method-assign]
    sys.modules[module.__name__] = module
    try:
        value = loads(b'{"$":"dc","c":"sgdebug_serde_lazy:Frozen","v":{"a":1,"b":2}}')
    finally:
        del sys.modules[module.__name__]
    assert calls == []
    assert isinstance(value, Unresolved)


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        ('{"$":"dc","c":"os:system","v":{}}', "not a class"),
        ('{"$":"dc","c":"builtins:object","v":{}}', "not a dataclass"),
        ('{"$":"pyd","c":"HERE:Box","fs":[],"v":{"item":1,"tags":[]}}', "not a pydantic"),
        ('{"$":"e","c":"HERE:Color","n":"GREEN","v":3}', "no member 'GREEN'"),
        ('{"$":"dc","c":"HERE:Box","v":{"item":1}}', "fields of"),
        ('{"$":"nt","c":"HERE:Point","v":{"x":1,"z":2}}', "fields of"),
        ('{"$":"dc","c":"HERE:NoSuchClass","v":{}}', "not found"),
    ],
)
def test_classes_that_no_longer_fit_become_unresolved(payload: str, reason: str) -> None:
    value = loads(payload.replace("HERE", __name__).encode())
    assert isinstance(value, Unresolved)
    assert reason in value.reason


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"{",
        b"\xff\xfe",
        b'{"$":"nope"}',
        b'{"$":7}',
        b'{"$":"t","v":3}',
        b'{"$":"s","v":[[1]]}',
        b'{"$":"d","v":[[1]]}',
        b'{"$":"d","v":[[[1],2]]}',
        b'{"$":"b","v":"***"}',
        b'{"$":"i","v":"xyz"}',
        b'{"$":"f","v":"1.5"}',
        b'{"$":"dt","v":"yesterday"}',
        b'{"$":"dt","v":"2024-01-01T00:00:00","tz":["z","../../etc/passwd"]}',
        b'{"$":"dt","v":"2024-01-01T00:00:00","tz":["o",999999999999999]}',
        b'{"$":"td","v":[1,2]}',
        b'{"$":"dec","v":"one"}',
        b'{"$":"uuid","v":"not-a-uuid"}',
        b'{"$":"dc","v":{}}',
        b'{"$":"dc","c":"x:Y","v":[]}',
        b'{"$":"e","c":"x:Y","v":1}',
        b'{"$":"pyd","c":"x:Y","fs":[],"zz":1,"v":{}}',
        b"[" * 100_000 + b"]" * 100_000,
        "not bytes",
        None,
    ],
    ids=repr,
)
def test_corrupt_input_raises_deserialization_error(data: Any) -> None:
    with pytest.raises(DeserializationError):
        loads(data)


def test_deserialization_error_is_a_value_error_with_a_clear_message() -> None:
    with pytest.raises(ValueError, match="unknown tag 'nope'"):
        loads(b'{"$":"nope","v":1}')
    with pytest.raises(ValueError, match="not valid JSON"):
        loads(b"{")


# -- values that cannot be stored --------------------------------------------------------


def _generator() -> Iterator[int]:
    yield 1


class Opaque:
    pass


@pytest.mark.parametrize(
    ("make", "type_name"),
    [
        (_generator, "generator"),
        (lambda: lambda: 1, "function"),
        (lambda: socket.socket(), "socket.socket"),
        (lambda: open(__file__), "_io.TextIOWrapper"),  # noqa: SIM115
        (Opaque, f"{__name__}.Opaque"),
        (lambda: Exception("x"), "Exception"),
        (lambda: object(), "object"),
    ],
)
def test_unstorable_values_name_channel_and_type(make: Callable[[], Any], type_name: str) -> None:
    value = make()
    try:
        with pytest.raises(SerializationError) as caught:
            dumps(value, channel="x")
    finally:
        if hasattr(value, "close"):
            value.close()
    assert str(caught.value).startswith(
        f"cannot store channel 'x': value of type {type_name!r} is not serialisable ("
    )
    assert caught.value.channel == "x"
    assert caught.value.type_name == type_name
    assert isinstance(caught.value, TypeError)


@pytest.mark.parametrize(
    ("value", "path"),
    [
        ([0, 1, {"k": _generator()}], "[2]['k']"),
        ({1: [lambda: 0]}, "[1][0]"),
        ((0, Box(item=[Opaque()])), "[1].item[0]"),
        (Model(name={"deep": (1, Opaque())}), ".name['deep'][1]"),
        ({"s": {Opaque()}}, "['s']{...}"),
        ({Opaque(): 1}, "[<key #0>]"),
        (Point(1, y=[Opaque()]), ".y[0]"),
        (Send("n", Opaque()), ".arg"),
    ],
)
def test_unstorable_nested_value_names_its_path(value: Any, path: str) -> None:
    with pytest.raises(SerializationError) as caught:
        dumps(value, channel="x")
    assert caught.value.path == path
    assert f"value at x{path} of type " in str(caught.value)


def test_error_without_channel_names_the_path() -> None:
    with pytest.raises(SerializationError, match=r"^cannot serialise: value at \[0\] of type"):
        dumps([Opaque()])


def test_cycles_are_refused_not_recursed() -> None:
    loop: list[Any] = [1]
    loop.append({"back": loop})
    with pytest.raises(SerializationError, match=r"channel 'c': value at c\[1\]\['back'\].*cycle"):
        dumps(loop, channel="c")
    box = Box(None)
    box.item = [box]
    with pytest.raises(SerializationError, match="cycle"):
        dumps(box)


def test_shared_references_are_stored_by_value() -> None:
    shared = [1, 2]
    back = roundtrip({"a": shared, "b": shared})
    assert back == {"a": [1, 2], "b": [1, 2]}
    assert back["a"] is not back["b"]


def test_too_deep_nesting_is_a_serialization_error() -> None:
    deep: list[Any] = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(SerializationError, match="channel 'd': value is nested too deeply"):
        dumps(deep, channel="d")


def test_unsupported_subclasses_of_builtins_are_refused() -> None:
    class Tag(str):
        pass

    with pytest.raises(SerializationError, match="Tag"):
        dumps(Tag("x"))


# -- speed and imports -------------------------------------------------------------------


def _rows(count: int) -> list[dict[str, Any]]:
    return [{"id": i, "name": f"row{i}", "score": i / 2, "tags": ["a"]} for i in range(count)]


def _encoding_cpu_s(rows: list[dict[str, Any]]) -> float:
    """The least CPU time (not wall time: other processes do not count) of three encodings."""
    times = []
    for _ in range(3):
        start = time.process_time()
        dumps(rows)
        times.append(time.process_time() - start)
    return min(times)


def test_a_large_list_of_small_dicts_encodes_in_linear_time() -> None:
    # Relative, not a budget (benchmarks time things): 10x the rows take about 10x the time
    # here; quadratic work would take 100x. Both sizes are measured in this test, in CPU time.
    small, large = _rows(10_000), _rows(100_000)

    assert loads(dumps(large)) == large
    assert _encoding_cpu_s(large) < 40 * _encoding_cpu_s(small)


def test_serde_imports_only_the_standard_library() -> None:
    code = (
        "import sys; import sgdebug.runtime.checkpoint.serde;"
        "print(sorted(m for m in ('pydantic', 'langchain_core', 'textual', 'rich',"
        " 'prompt_toolkit') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    ).stdout
    assert out.strip() == "[]"


def test_a_send_keeps_its_timeout_and_one_stored_before_timeouts_still_loads() -> None:
    from sgdebug.runtime import Send
    from sgdebug.runtime.types import TimeoutPolicy

    sent = Send("work", {"n": 1}, timeout=TimeoutPolicy(run_timeout=2, idle_timeout=0.5))
    assert loads(dumps(sent)) == sent
    older = b'{"$":"o","c":"sgdebug.runtime.types:Send","v":{"node":"work","arg":1}}'
    assert loads(older) == Send("work", 1)
    assert type(loads(older.replace(b',"arg":1', b""))).__name__ == "Unresolved"
