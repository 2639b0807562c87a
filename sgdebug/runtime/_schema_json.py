"""JSON Schemas of a compiled graph's input, output and context, as LangGraph gives them.

A TypedDict or pydantic state schema is described as it is (its own title, docstring and
every annotated key); a dataclass state is described by its channel fields, with their
defaults, titled ``LangGraphInput`` / ``LangGraphOutput``; a root channel
(``StateGraph(Annotated[list, add])``) by its value type, defaulting to ``null``. The
context schema is described as it is. pydantic builds the schemas (imported only here).
"""

from __future__ import annotations

import dataclasses
from types import UnionType
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    Union,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)

from sgdebug.runtime.graph._schema import is_dataclass_type, is_pydantic_model

if TYPE_CHECKING:
    from sgdebug.runtime._compiled import CompiledStateGraph

__all__ = ["context_jsonschema", "input_jsonschema", "output_jsonschema"]


def input_jsonschema(graph: CompiledStateGraph, config: Any = None) -> dict[str, Any]:
    """``get_input_jsonschema()``: what ``invoke`` takes."""
    return _state_jsonschema(graph, graph.builder.input_schema, "LangGraphInput")


def output_jsonschema(graph: CompiledStateGraph, config: Any = None) -> dict[str, Any]:
    """``get_output_jsonschema()``: what ``invoke`` returns."""
    return _state_jsonschema(graph, graph.builder.output_schema, "LangGraphOutput")


def context_jsonschema(graph: CompiledStateGraph) -> dict[str, Any] | None:
    """``get_context_jsonschema()``: the context schema's, ``None`` without one."""
    schema = graph.builder.context_schema
    return None if schema is None else _described(schema)


def _described(schema: Any) -> dict[str, Any]:
    if is_pydantic_model(schema):
        described: dict[str, Any] = schema.model_json_schema()
        return described
    from pydantic import TypeAdapter

    adapted: dict[str, Any] = TypeAdapter(_pydantic_typed_dict(schema)).json_schema()
    return adapted


def _pydantic_typed_dict(schema: Any) -> Any:
    """``typing.TypedDict`` classes rebuilt as ``typing_extensions`` ones, which pydantic
    needs before Python 3.12 (same name, docstring, keys and required keys)."""
    if not is_typeddict(schema):
        return schema
    from typing import NotRequired, Required

    from typing_extensions import TypedDict

    hints = get_type_hints(schema, include_extras=True)
    required = schema.__required_keys__
    keys = {
        k: Required[hints[k]] if k in required else NotRequired[hints[k]]
        for k in schema.__annotations__
    }
    rebuilt = TypedDict(schema.__name__, keys)  # type: ignore[misc]
    rebuilt.__doc__ = schema.__doc__
    return rebuilt


def _state_jsonschema(graph: CompiledStateGraph, schema: Any, title: str) -> dict[str, Any]:
    if graph.root:
        described = {**_described(schema), "default": None, "title": title}
        return dict(sorted(described.items()))  # pydantic's key order
    if is_dataclass_type(schema):
        return _dataclass_jsonschema(graph, schema, title)
    return _described(schema)


def _dataclass_jsonschema(graph: CompiledStateGraph, schema: Any, title: str) -> dict[str, Any]:
    from pydantic import create_model

    hints = get_type_hints(schema, include_extras=True)
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(schema):
        if f.name in graph.state_keys:
            fields[f.name] = (hints[f.name], _default(f, hints[f.name]))
    model = create_model(title, **fields)
    described: dict[str, Any] = model.model_json_schema()
    return described


def _default(f: dataclasses.Field[Any], hint: Any) -> Any:
    """The field's default; a field without one is required unless it admits ``None``."""
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return None if _admits_none(hint) else ...


def _admits_none(hint: Any) -> bool:
    if get_origin(hint) is Annotated:
        return _admits_none(get_args(hint)[0])
    return get_origin(hint) in (Union, UnionType) and type(None) in get_args(hint)
