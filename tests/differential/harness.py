"""Run one graph program on an engine and record everything a user can observe of it.

A *program* is a function taking an :class:`EngineAPI` and returning a :class:`Case`: the
compiled graph plus the inputs to run. :func:`record` runs it and returns a flat dict, e.g.
``{"in0 invoke": ..., "in0 updates": [...], "in0 values": [...]}``; the differential tests
assert that sgdebug's record equals LangGraph's.

Normalisations (the only differences tolerated; everything else must be equal):

* **ids**: strings that are UUIDs (message ids added by ``add_messages``, task ids) or
  32-hex-digit strings (interrupt ids) are replaced by ``<id0>``, ``<id1>``... in order of
  first appearance in the record, so equal ids stay equal and distinct ids stay distinct.
* **timestamps**: the ``timestamp`` key of ``debug`` stream events is dropped.
* **engine types**: ``Send``, ``Command``, ``Overwrite`` and ``Interrupt`` objects become
  :class:`Obj` with their public fields (the two engines define different classes).
* **program types**: dataclass and pydantic instances become :class:`Obj` named by their
  ``__qualname__`` (each engine's run defines its own copy of a program's classes).
* **exceptions**: become :class:`Raised` (class name, nearest built-in base, ``str(exc)``);
  PEP 678 notes are not compared (their task ids are random).
* **parallel updates**: only for a case marked ``unordered`` (LangGraph's order of parallel
  tasks' ``updates`` events varies between runs there), the ``updates`` events are compared
  as a multiset (sorted by ``repr``).

Dict equality is order-sensitive (:class:`ODict`): LangGraph's key order is observable.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections.abc import Callable, Iterator
from copy import deepcopy
from dataclasses import dataclass, field
from typing import Any, TypedDict

from sgdebug.sample_graphs._engines import Engine, EngineAPI, api

TS = "\nFor troubleshooting, visit: https://docs.langchain.com/oss/python/langgraph/errors/"
"""Prefix of the troubleshooting suffix LangGraph appends to some messages."""

ENGINE_TYPES = frozenset({"Send", "Command", "Overwrite", "Interrupt"})
_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32}")


def ts(code: str) -> str:
    """The troubleshooting suffix for LangGraph error ``code``."""
    return TS + code


def typed_dict(name: str, fields: dict[str, Any], total: bool = True) -> Any:
    """A TypedDict whose annotations are real objects (engine classes, local classes).

    Program modules use ``from __future__ import annotations``, so a class-syntax TypedDict
    can only refer to module-level names; this builds one from evaluated annotations.
    """
    return TypedDict(name, fields, total=total)  # type: ignore[operator]


def say(word: str, **extra: Any) -> Callable[[Any], dict[str, Any]]:
    """A node that appends ``word`` to the ``log`` key and writes ``extra``."""

    def node(state: Any) -> dict[str, Any]:
        return {"log": [word], **extra}

    node.__name__ = node.__qualname__ = word
    return node


@dataclass(frozen=True, slots=True)
class Raised:
    """An exception as the user sees it."""

    name: str
    """The exception's class name."""
    message: str
    """``str(exc)``."""
    base: str = field(default="", compare=False)
    """Nearest built-in base class (``GraphRecursionError`` -> ``RecursionError``)."""

    @classmethod
    def of(cls, exc: BaseException) -> Raised:
        """Record ``exc``."""
        base = next(c.__name__ for c in type(exc).__mro__ if c.__module__ == "builtins")
        return cls(type(exc).__name__, str(exc), base)


def err(name: str, message: str) -> Raised:
    """An expected exception, for ``expect=``."""
    return Raised(name, message)


@dataclass(frozen=True, slots=True)
class Obj:
    """A normalised object: its class name and public fields."""

    cls: str
    fields: Any

    def __repr__(self) -> str:
        return f"{self.cls}({self.fields!r})"


class ODict(dict[Any, Any]):
    """A dict whose equality also compares key order."""

    def __eq__(self, other: object) -> bool:
        return dict.__eq__(self, other) is True and (
            not isinstance(other, dict) or list(self) == list(other)
        )

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None


@dataclass(frozen=True)
class Case:
    """A compiled graph and what to run on it (each input is a separate, fresh run)."""

    graph: Any
    inputs: tuple[Any, ...] = ({},)
    config: dict[str, Any] | None = None
    kwargs: dict[str, Any] = field(default_factory=dict)
    """Extra keyword arguments for every invoke/stream call (``context=`` ...)."""
    modes: tuple[Any, ...] = ()
    """Stream modes recorded besides ``updates`` and ``values`` (``None`` = the default)."""
    use_async: bool = False
    """Run through ``ainvoke``/``astream`` instead of ``invoke``/``stream``."""
    unordered: bool = False
    """Compare ``updates`` events order-insensitively (see the module docstring)."""
    expect: tuple[Any, ...] | None = None
    """LangGraph's invoke outcome per input, as the semantics document states it."""
    expect_updates: list[Any] | None = None
    """LangGraph's ``updates`` events for the first input, where the document states them."""
    draw: bool = False
    """Also compare ``graph.get_graph().draw_mermaid()``."""
    script: Callable[[], Iterator[tuple[str, Any]]] | None = None
    """Instead of ``inputs``: a sequence of calls on one thread yielding ``(label, observed)``
    pairs (checkpoint programs); each observation is normalised and compared."""
    spec: Callable[[dict[str, Any]], None] | None = None
    """For a script: asserts what the semantics document says about LangGraph's record; it
    receives ``{label: normalised observation}`` (labels without their index prefix)."""


@dataclass(frozen=True)
class Program:
    """A registered graph program."""

    name: str
    build: Callable[[EngineAPI], Case]
    expect_build: Raised | None = None
    """The error building the graph raises (builder/compile error programs)."""


CORE: dict[str, Program] = {}
"""Programs the runtime core (issue 2) must run like LangGraph."""
CHECKPOINT: dict[str, Program] = {}
"""Programs needing checkpoints/interrupts (issue 3); see test_checkpoint_programs.py."""


def program(
    *, raises: Raised | None = None, registry: dict[str, Program] = CORE
) -> Callable[[Callable[[EngineAPI], Case]], Callable[[EngineAPI], Case]]:
    """Register a program under its function name; ``raises`` = expected build error."""

    def register(fn: Callable[[EngineAPI], Case]) -> Callable[[EngineAPI], Case]:
        assert fn.__name__ not in registry, f"duplicate program {fn.__name__}"
        registry[fn.__name__] = Program(fn.__name__, fn, raises)
        return fn

    return register


def run_program(
    prog: Program, engine: Engine, saver: Callable[[], Any] | None = None
) -> dict[str, Any]:
    """Build ``prog`` on ``engine``, run every input, return the normalised record.

    ``saver`` replaces the engine's ``InMemorySaver`` factory (e.g. to run the programs on
    sgdebug's ``SqliteSaver``).
    """
    g = api(engine)
    if saver is not None:
        g = dataclasses.replace(g, InMemorySaver=saver)
    try:
        case = prog.build(g)
    except Exception as exc:
        return {"build": Raised.of(exc)}
    ids: dict[str, str] = {}

    def norm(value: Any) -> Any:
        return normalise(value, ids)

    rec: dict[str, Any] = {}
    if case.draw:
        rec["mermaid"] = attempt(lambda: case.graph.get_graph().draw_mermaid())
    if case.script is not None:
        try:
            for i, (label, value) in enumerate(case.script()):
                rec[f"{i:02d} {label}"] = norm(value)
        except Exception as exc:
            rec["script raised"] = norm(exc)
        return rec
    for i, inp in enumerate(case.inputs):
        runner = _arun if case.use_async else _run
        for key, value in runner(case, inp, norm):
            rec[f"in{i} {key}"] = value
    if case.unordered:
        for key in rec:
            if key.endswith(" updates"):
                rec[key] = sorted(rec[key], key=repr)
    return rec


def _stream_kwargs(case: Case, mode: Any) -> dict[str, Any]:
    kwargs = dict(case.kwargs)
    if mode is not None:
        kwargs["stream_mode"] = mode
    return kwargs


def _modes(case: Case) -> list[Any]:
    return ["updates", "values", *case.modes]


Norm = Callable[[Any], Any]


def _run(case: Case, inp: Any, norm: Norm) -> Iterator[tuple[str, Any]]:
    """Record one input: every event is normalised (so copied) as soon as it arrives,
    and every call gets its own deep copy of the input, so in-place mutation by nodes
    cannot leak between calls or rewrite earlier events."""
    try:
        result = norm(case.graph.invoke(deepcopy(inp), _config(case), **case.kwargs))
    except Exception as exc:
        result = norm(exc)
    yield "invoke", result
    for mode in _modes(case):
        events: list[Any] = []
        kwargs = _stream_kwargs(case, mode)
        try:
            for event in case.graph.stream(deepcopy(inp), _config(case), **kwargs):
                events.append(norm(drop_timestamp(event)))
        except Exception as exc:
            events.append(norm(exc))
        yield _mode_key(mode), events


def _arun(case: Case, inp: Any, norm: Norm) -> Iterator[tuple[str, Any]]:
    """Like :func:`_run`, through ``ainvoke``/``astream``."""

    async def collect(mode: Any) -> list[Any]:
        events: list[Any] = []
        kwargs = _stream_kwargs(case, mode)
        try:
            async for event in case.graph.astream(deepcopy(inp), _config(case), **kwargs):
                events.append(norm(drop_timestamp(event)))
        except Exception as exc:
            events.append(norm(exc))
        return events

    async def invoke() -> Any:
        try:
            return norm(await case.graph.ainvoke(deepcopy(inp), _config(case), **case.kwargs))
        except Exception as exc:
            return norm(exc)

    yield "invoke", asyncio.run(invoke())
    for mode in _modes(case):
        yield _mode_key(mode), asyncio.run(collect(mode))


def _config(case: Case) -> dict[str, Any] | None:
    return None if case.config is None else dict(case.config)


def _mode_key(mode: Any) -> str:
    return "default" if mode is None else "+".join(mode) if isinstance(mode, list) else mode


def drop_timestamp(event: Any) -> Any:
    """Drop the wall-clock ``timestamp`` of debug events (also inside ``(mode, event)``,
    ``(namespace, event)`` and ``(namespace, mode, event)``)."""
    if isinstance(event, tuple) and len(event) in (2, 3) and isinstance(event[0], str | tuple):
        return (*event[:-1], drop_timestamp(event[-1]))
    if isinstance(event, dict) and "timestamp" in event and "type" in event:
        return {k: v for k, v in event.items() if k != "timestamp"}
    return event


def normalise(value: Any, ids: dict[str, str]) -> Any:
    """``value`` with the documented normalisations applied (``ids`` maps seen ids)."""
    if isinstance(value, str):
        return _ID.sub(lambda m: ids.setdefault(m.group(0), f"<id{len(ids)}>"), value)
    if isinstance(value, dict):
        return ODict((normalise(k, ids), normalise(v, ids)) for k, v in value.items())
    if isinstance(value, list | tuple):
        return type(value)(normalise(v, ids) for v in value)
    if isinstance(value, BaseException):
        value = Raised.of(value)
    if isinstance(value, Raised):
        return Raised(value.name, normalise(value.message, ids), value.base)
    if isinstance(value, Obj):
        return value
    cls = type(value)
    if cls.__name__ in ENGINE_TYPES and cls.__module__.startswith(("langgraph", "sgdebug")):
        return Obj(cls.__name__, normalise(_engine_fields(value), ids))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        return Obj(cls.__qualname__, normalise(fields, ids))
    if hasattr(value, "model_dump") and hasattr(cls, "model_fields"):
        return Obj(cls.__qualname__, normalise(value.model_dump(), ids))
    return value


def _engine_fields(value: Any) -> dict[str, Any]:
    names = {
        "Send": ("node", "arg"),
        "Command": ("graph", "update", "resume", "goto"),
        "Overwrite": ("value",),
        "Interrupt": ("value", "id"),
    }[type(value).__name__]
    return {name: getattr(value, name, None) for name in names}


def diff(expected: dict[str, Any], got: dict[str, Any], names: tuple[str, str]) -> str:
    """A readable report of the keys where two records differ ('' if equal)."""
    lines: list[str] = []
    for key in [*expected, *(k for k in got if k not in expected)]:
        want, have = expected.get(key, "<missing>"), got.get(key, "<missing>")
        if want != have:
            lines += [f"{key}:", f"  {names[0]:>9}: {want!r}", f"  {names[1]:>9}: {have!r}"]
            lines += _first_difference(want, have, names)
    return "\n".join(lines)


def _first_difference(want: Any, have: Any, names: tuple[str, str], at: str = "") -> list[str]:
    """Lines locating the first place where two unequal values differ (for long values)."""
    if type(want) is type(have) and isinstance(want, list | tuple) and len(want) == len(have):
        for i, (w, h) in enumerate(zip(want, have, strict=True)):
            if w != h:
                return _first_difference(w, h, names, f"{at}[{i}]")
    if isinstance(want, dict) and isinstance(have, dict):
        if list(want) != list(have):
            return [f"  keys at {at or 'top'}: {list(want)} != {list(have)}"]
        for k in want:
            if want[k] != have[k]:
                return _first_difference(want[k], have[k], names, f"{at}[{k!r}]")
    if not at:
        return []
    return [
        f"  first difference at {at}:",
        f"  {names[0]:>9}: {want!r}",
        f"  {names[1]:>9}: {have!r}",
    ]


def attempt(call: Callable[[], Any]) -> Any:
    """``call()``, or the :class:`Raised` record of what it raised (for scripts)."""
    try:
        return call()
    except Exception as exc:
        return Raised.of(exc)


def check_expectations(prog: Program, rec: dict[str, Any]) -> None:
    """Assert that ``rec`` (LangGraph's record) shows what the program expects."""
    if prog.expect_build is not None:
        assert rec.get("build") == prog.expect_build
        return
    assert "build" not in rec, rec["build"]
    case = prog.build(api("langgraph"))
    if case.expect is not None:
        assert len(case.expect) == len(case.inputs)
        got = [rec[f"in{i} invoke"] for i in range(len(case.inputs))]
        assert got == [normalise(e, {}) for e in case.expect]
    if case.expect_updates is not None:
        assert rec["in0 updates"] == normalise(case.expect_updates, {})
    if case.spec is not None:
        assert "script raised" not in rec, rec["script raised"]
        case.spec(script_view(rec))


def script_view(rec: dict[str, Any]) -> dict[str, Any]:
    """A script's record keyed by label alone (``"03 paused"`` -> ``"paused"``)."""
    view = {key.split(" ", 1)[1]: value for key, value in rec.items()}
    assert len(view) == len(rec), f"duplicate script labels in {list(rec)}"
    return view
