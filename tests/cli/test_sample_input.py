"""``sgdebug repl`` and ``sgdebug run`` on a bundled sample start on its example input, as
``sgdebug demo`` does; ``--input`` still wins."""

from __future__ import annotations

import pytest

from .conftest import Sgdebug

CHATBOT = "sgdebug.sample_graphs.chatbot:graph"
SCRIPT = "step\nprint [m.content for m in messages]\n"


@pytest.mark.parametrize("command", ["run", "repl"])
def test_a_sample_starts_on_its_example_input(sgdebug: Sgdebug, command: str) -> None:
    done = sgdebug(command, CHATBOT, stdin=SCRIPT)
    assert done.returncode == 0, done.stderr
    assert "What's the weather in Paris, and what is 6 * 7?" in done.stdout
    assert "empty input" not in done.stdout + done.stderr


def test_input_given_on_the_command_line_wins_over_the_example(sgdebug: Sgdebug) -> None:
    done = sgdebug("run", CHATBOT, "--input", '{"messages": []}', stdin=SCRIPT)
    assert done.returncode == 0, done.stderr
    assert "[]" in done.stdout and "Paris" not in done.stdout
