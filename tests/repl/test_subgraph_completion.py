"""Completion of node paths into subgraphs (``research/summarize``), in the REPL and the
TUI's ``:`` line (both complete through ``sgdebug.debugger.complete``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from sgdebug.debugger import Session, complete
from sgdebug.repl.completer import repl_completer
from sgdebug.repl.python import PythonRunner

SessionFactory = Callable[..., Session]


@pytest.mark.parametrize("engine", ["native", "langgraph"])
def test_node_arguments_complete_paths_into_the_subgraph(
    make_session: SessionFactory, engine: str
) -> None:
    session = make_session("nested", engine=engine)
    completer = repl_completer(session, PythonRunner(session))
    found = list(
        completer.get_completions(
            Document("break before research/"), CompleteEvent(completion_requested=True)
        )
    )
    assert [c.text for c in found] == ["research/gather", "research/summarize"]
    assert [c.display_meta_text for c in found] == ["node in subgraph research"] * 2
    assert complete(session, "until res") == [
        "research", "research/gather", "research/summarize"
    ]  # fmt: skip
    assert complete(session, "break after ") == [
        "plan", "research", "research/gather", "research/summarize", "write", "*"
    ]  # fmt: skip


@pytest.mark.parametrize("engine", ["native", "langgraph"])
def test_watch_completes_a_subgraphs_channels_where_the_engine_stops_inside(
    make_session: SessionFactory, engine: str
) -> None:
    session = make_session("nested", engine=engine)
    inside = ["research/topic", "research/notes", "research/summary"]
    assert complete(session, "watch research/") == inside
    assert complete(session, "watch ") == ["topic", "summary", "report", *inside]
    assert complete(session, "set ") == ["topic", "summary", "report"]  # its frame's names
    completer = repl_completer(session, PythonRunner(session))
    found = list(
        completer.get_completions(
            Document("watch research/n"), CompleteEvent(completion_requested=True)
        )
    )
    assert [(c.text, c.display_meta_text) for c in found] == [
        ("research/notes", "channel of subgraph research")
    ]
