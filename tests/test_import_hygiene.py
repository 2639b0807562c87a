"""What importing a layer pulls into the interpreter, measured in a fresh subprocess.

The runtime must run with no UI library and no LangChain/pydantic loaded (that it
imports fast is a goal of ``benchmarks/startup.py``, not a test: a busy machine must not
fail the suite). Each check runs in its own interpreter so nothing the test session has
already imported can hide a leak.
"""

from __future__ import annotations

import pytest

from .conftest import fresh_python_json

# What a user of the runtime writes after porting: the public names and submodules.
RUNTIME_IMPORT = (
    "from sgdebug.runtime import END, START, StateGraph\n"
    "import sgdebug.runtime.channels, sgdebug.runtime.errors, sgdebug.runtime.managed\n"
    "import sgdebug.runtime.types\n"
)
UI_LIBRARIES = ("textual", "rich", "prompt_toolkit", "typer", "click")
HEAVY_LIBRARIES = ("langgraph", "langchain_core", "pydantic")


def _probe(import_code: str) -> list[str]:
    """Run ``import_code`` in a fresh interpreter: the top-level modules it added."""
    probe = (
        "import sys, json\n"
        "before = set(sys.modules)\n"
        f"exec({import_code!r})\n"
        "added = sorted({m.split('.')[0] for m in set(sys.modules) - before})\n"
        "print(json.dumps(added))\n"
    )
    return [str(name) for name in fresh_python_json(probe)]


@pytest.mark.parametrize(
    ("layer", "import_code", "forbidden"),
    [
        pytest.param(layer, code, forbidden, id=layer)
        for layer, code, forbidden in [
            ("sgdebug", "import sgdebug", (*UI_LIBRARIES, *HEAVY_LIBRARIES)),
            ("sgdebug.runtime", RUNTIME_IMPORT, (*UI_LIBRARIES, *HEAVY_LIBRARIES)),
            ("sgdebug.inspect", "import sgdebug.inspect", UI_LIBRARIES),
            ("sgdebug.debugger", "import sgdebug.debugger", ("textual", "prompt_toolkit")),
        ]
    ],
)
def test_import_leaves_libraries_unloaded(
    layer: str, import_code: str, forbidden: tuple[str, ...]
) -> None:
    added = _probe(import_code)

    leaked = sorted(set(added) & set(forbidden))

    assert leaked == [], f"importing {layer} loaded {leaked}"


def _probe_modules(import_code: str) -> set[str]:
    """Run ``import_code`` in a fresh interpreter: every module (dotted name) it added."""
    probe = (
        "import sys, json\n"
        "before = set(sys.modules)\n"
        f"exec({import_code!r})\n"
        "print(json.dumps(sorted(set(sys.modules) - before)))\n"
    )
    return {str(name) for name in fresh_python_json(probe)}


# What the first screen of the TUI does not show: imported when the user opens it.
NOT_ON_THE_FIRST_SCREEN = (
    "sgdebug.tui.screens.edit_screen",
    "sgdebug.tui.screens.help_screen",
    "sgdebug.tui.screens.log_screen",
    "textual.widgets._text_area",
)
# What the command line may not import before a command needs it (the front ends, the
# session, the engines and what they pull in).
NOT_BEFORE_A_COMMAND = (
    "sgdebug.debugger",
    "sgdebug.runtime",
    "sgdebug.tui",
    "sgdebug.repl",
    "textual",
    "rich",
    "prompt_toolkit",
    "sqlite3",
    "langgraph",
    "langchain_core",
    "pydantic",
)


def test_the_tui_imports_no_screen_the_first_screen_does_not_show() -> None:
    added = _probe_modules("import sgdebug.tui.app")

    assert "sgdebug.tui.app" in added
    assert sorted(added & set(NOT_ON_THE_FIRST_SCREEN)) == []
    assert [m for m in added if m.split(".")[0] in ("prompt_toolkit", "langgraph")] == []


def test_importing_the_command_line_imports_no_front_end_and_no_engine() -> None:
    added = _probe_modules("import sgdebug.cli")

    leaked = sorted(m for m in added if any(m == n or m.startswith(f"{n}.")
                                            for n in NOT_BEFORE_A_COMMAND))  # fmt: skip

    assert "sgdebug.cli" in added
    assert leaked == [], f"importing sgdebug.cli loaded {leaked}"
