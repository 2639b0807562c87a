"""What the first screen of a demo imports, measured in a fresh subprocess: only what it
shows. (How fast it appears is a goal of ``benchmarks/startup.py``, not a test.)"""

from __future__ import annotations

from .conftest import fresh_python_json

# The chatbot demo as `sgdebug demo chatbot` opens it (a session in memory), its first
# frame built, then one step (the input's messages merged) and its frame.
CHATBOT_SESSION = """
import json, sys
from sgdebug.debugger import Session, Target
from sgdebug.debugger.frame import FrameBuilder
from sgdebug.sample_graphs import chatbot
session = Session(Target(chatbot.graph, {}, "chatbot"), input=chatbot.EXAMPLE_INPUT)
session.restart(chatbot.EXAMPLE_INPUT)
first = FrameBuilder(session).build()
before = "langchain_core" in sys.modules
diff_before = "sgdebug.inspect.step_diff" in sys.modules
drawing = "sgdebug.runtime._draw" in sys.modules
session.step()
after = FrameBuilder(session).build()
messages = next(r for r in after.channels if r.name == "messages")
print(json.dumps({"before": before, "after": "langchain_core" in sys.modules,
                  "diff_before": diff_before, "drawing": drawing,
                  "diff": [c.channel for c in after.step_diff.channels],
                  "first": [r.name for r in first.channels],
                  "classes": [type(m).__name__ for m in messages.value]}))
"""


def _run(code: str) -> dict[str, object]:
    found: dict[str, object] = fresh_python_json(code)
    return found


def test_the_chatbot_imports_langchain_core_when_a_step_first_merges_messages() -> None:
    found = _run(CHATBOT_SESSION)

    assert found["first"] == ["messages"]
    assert found["before"] is False, "the first frame (no message yet) imported langchain_core"
    assert found["after"] is True
    assert found["classes"] == ["HumanMessage"]


def test_the_diff_modules_are_imported_with_the_first_step_diff() -> None:
    found = _run(CHATBOT_SESSION)

    assert found["diff_before"] is False, "the first frame (no step yet) imported the diffs"
    assert found["diff"] == ["messages"]


def test_building_the_graph_and_its_first_frame_does_not_import_get_graphs_drawing() -> None:
    found = _run(CHATBOT_SESSION)

    # (add_node reads a node's Command destinations: that is not the drawing)
    assert found["drawing"] is False, "the first frame imported sgdebug.runtime._draw"
