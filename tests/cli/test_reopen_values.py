"""A reopened session shows its values as the classes they were, in a fresh process."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import Sgdebug

CHATBOT = "sgdebug.sample_graphs.chatbot:graph"


def test_reopened_messages_are_messages_not_unresolved(sgdebug: Sgdebug, project: Path) -> None:
    # The runtime imports langchain-core's message classes when a run first merges messages;
    # reopening runs nothing, and the file's reader imports nothing it names.
    session = str(project / "chat.db")
    first = sgdebug("run", CHATBOT, "--session", session, "--input",
                    '{"messages": [["user", "hi"]]}', stdin="continue\n")  # fmt: skip
    assert first.returncode == 0, first.stderr
    reopened = sgdebug("run", CHATBOT, "--session", session, stdin="state\n")
    assert reopened.returncode == 0, reopened.stderr
    assert "HumanMessage(content='hi'" in reopened.stdout
    assert "AIMessage(" in reopened.stdout
    assert "Unresolved" not in reopened.stdout
