"""The sample graphs (``sgdebug.sample_graphs``) as differential programs.

Each sample runs its ``EXAMPLE_INPUT``, plus the parameterised variants worth checking, and
records the ``debug`` task events besides invoke/updates/values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sgdebug.sample_graphs import SAMPLES, build, load
from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, program

VARIANTS: list[tuple[str, dict[str, Any]]] = [
    *((name, {}) for name in SAMPLES),
    ("fanout", {"width": 5}),
    ("map_reduce", {"items": 1}),
    ("loop", {"iterations": 1}),
    ("loop", {"iterations": 12}),
]


def _sample(name: str, params: dict[str, Any]) -> Callable[[EngineAPI], Case]:
    def sample(g: EngineAPI) -> Case:
        graph = build(name, g.name, **params).compile()
        return Case(draw=True, graph=graph, inputs=(load(name).EXAMPLE_INPUT,), modes=("debug",))

    suffix = "".join(f"_{key}_{value}" for key, value in params.items())
    sample.__name__ = sample.__qualname__ = f"sample_{name}{suffix}"
    return sample


for _name, _params in VARIANTS:
    program()(_sample(_name, _params))
