"""What importing a layer pulls into the interpreter, measured in a fresh subprocess.

The runtime must run with no UI library and no LangChain/pydantic loaded, and
importing it must be cheap: a program ported from LangGraph should start faster,
not slower. Each check runs in its own interpreter so nothing the test session
has already imported can hide a leak.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

# What a user of the runtime writes after porting: the public names and submodules.
RUNTIME_IMPORT = (
    "from sgdebug.runtime import END, START, StateGraph\n"
    "import sgdebug.runtime.channels, sgdebug.runtime.errors, sgdebug.runtime.managed\n"
    "import sgdebug.runtime.types\n"
)
UI_LIBRARIES = ("textual", "rich", "prompt_toolkit", "typer", "click")
HEAVY_LIBRARIES = ("langgraph", "langchain_core", "pydantic")
RUNTIME_IMPORT_BUDGET_S = 0.100


def _probe(import_code: str) -> tuple[float, list[str]]:
    """Run ``import_code`` in a fresh interpreter: its CPU seconds and the top-level modules added.

    The clock starts after interpreter start-up, so only the import itself is timed. It is
    CPU time, not wall time, so that other test workers sharing the machine do not count.
    """
    probe = (
        "import sys, time, json\n"
        "before = set(sys.modules)\n"
        "t0 = time.process_time()\n"
        f"exec({import_code!r})\n"
        "elapsed = time.process_time() - t0\n"
        "added = sorted({m.split('.')[0] for m in set(sys.modules) - before})\n"
        "print(json.dumps([elapsed, added]))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    elapsed, added = json.loads(result.stdout.strip().splitlines()[-1])
    return float(elapsed), [str(name) for name in added]


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
    _, added = _probe(import_code)

    leaked = sorted(set(added) & set(forbidden))

    assert leaked == [], f"importing {layer} loaded {leaked}"


def test_runtime_import_is_fast() -> None:
    # Best of three, so one slow run on a busy machine does not fail the test.
    elapsed = min(_probe(RUNTIME_IMPORT)[0] for _ in range(3))

    assert elapsed < RUNTIME_IMPORT_BUDGET_S, (
        f"importing sgdebug.runtime took {elapsed * 1000:.0f} ms of CPU "
        f"(budget {RUNTIME_IMPORT_BUDGET_S * 1000:.0f} ms); "
        "run `python -X importtime -c 'import sgdebug.runtime'` to find the cost"
    )
