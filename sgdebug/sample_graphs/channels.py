"""One key of each kind: a LastValue, an EphemeralValue, a reducer and RemainingSteps.

``START -> announce -> react -> wrap_up -> END`` over this state:

* ``topic``: a plain key, stored in a ``LastValue`` channel (one write per step, last
  value kept);
* ``signal``: ``Annotated[str, EphemeralValue]``, a value that lives for exactly one
  superstep: ``announce`` writes it, ``react`` (the next step) reads it, and by the time
  ``wrap_up`` runs it has been cleared;
* ``history``: an ``operator.add`` reducer that every node appends to;
* ``remaining_steps``: the ``RemainingSteps`` managed value, computed from the
  ``recursion_limit`` for each task and never stored in a channel.

Things to look at in the debugger: step twice after ``announce`` and watch ``signal``
appear, then vanish without any node writing it; ``remaining_steps`` shows up in task
inputs but not in the channel table.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Final

from sgdebug.sample_graphs import lazy_graph, typed_dict
from sgdebug.sample_graphs._engines import Engine, api

__all__ = ["EXAMPLE_INPUT", "build"]

EXAMPLE_INPUT: Final[dict[str, Any]] = {"topic": "release", "history": []}
"""The topic to announce and an empty history."""


def build(engine: Engine = "sgdebug") -> Any:
    """``announce -> react -> wrap_up`` over four kinds of keys, on ``engine``."""
    lg = api(engine)
    State = typed_dict(
        "State",
        {
            "topic": str,
            "signal": Annotated[str, lg.EphemeralValue],
            "history": Annotated[list[str], operator.add],
            "remaining_steps": lg.RemainingSteps,
        },
        total=False,
    )

    def announce(state: dict[str, Any]) -> dict[str, Any]:
        """Raise a one-step signal about the topic."""
        return {
            "topic": state["topic"].upper(),
            "signal": f"news about {state['topic']}",
            "history": ["announce: signal raised"],
        }

    def react(state: dict[str, Any]) -> dict[str, Any]:
        """Read the signal written in the previous step."""
        heard = state.get("signal", "nothing")
        return {"history": [f"react: heard {heard!r} while topic is {state['topic']}"]}

    def wrap_up(state: dict[str, Any]) -> dict[str, Any]:
        """Note that the signal is gone and how many steps the run has left."""
        heard = state.get("signal", "nothing")
        left = state["remaining_steps"]
        return {"history": [f"wrap_up: heard {heard!r}, {left} steps left"]}

    builder = lg.StateGraph(State)
    builder.add_sequence([announce, react, wrap_up])
    builder.add_edge(lg.START, "announce")
    builder.add_edge("wrap_up", lg.END)
    return builder


def __getattr__(name: str) -> Any:
    return lazy_graph(__name__, name, build)
