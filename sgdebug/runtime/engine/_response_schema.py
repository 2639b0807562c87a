"""``interrupt(value, response_schema=...)``: the schema the caller's answer must match.

The interrupt carries the schema as JSON Schema (a dict is taken as it is; a pydantic
model, TypedDict, dataclass or any other type is converted by pydantic). On resume the
answer is validated against the type and returned as the type builds it (a model or
dataclass instance; a TypedDict keeps its own keys); a dict schema returns the answer
unchanged. An answer that does not match raises pydantic's ``ValidationError``, which
:func:`is_invalid_resume` tells apart from a node's own validation errors.
"""

from __future__ import annotations

from typing import Any

__all__ = ["is_invalid_resume", "schema_json", "validated_answer"]

_MARK = "_sgdebug_invalid_resume"


def schema_json(response_schema: Any) -> dict[str, Any] | None:
    """The JSON Schema an interrupt shows for ``response_schema``."""
    if response_schema is None or isinstance(response_schema, dict):
        return response_schema
    if _is_model(response_schema):
        schema: dict[str, Any] = response_schema.model_json_schema()
        return schema
    from pydantic import TypeAdapter

    adapted: dict[str, Any] = TypeAdapter(response_schema).json_schema()
    return adapted


def validated_answer(response_schema: Any, answer: Any) -> Any:
    """``answer`` checked against ``response_schema`` (unchanged for none or a dict)."""
    if response_schema is None or isinstance(response_schema, dict):
        return answer
    from pydantic import TypeAdapter, ValidationError

    try:
        if _is_model(response_schema):
            return response_schema.model_validate(answer)
        return TypeAdapter(response_schema).validate_python(answer)
    except ValidationError as error:
        setattr(error, _MARK, True)
        raise


def is_invalid_resume(error: BaseException) -> bool:
    """Whether ``error`` was raised because an answer did not match ``response_schema``."""
    return getattr(error, _MARK, False) is True


def _is_model(schema: Any) -> bool:
    return isinstance(schema, type) and hasattr(schema, "model_validate")
