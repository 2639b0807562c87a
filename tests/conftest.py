"""Settings shared by the whole suite."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings

# The suite runs on two shared cores next to other workers: a property test must not fail
# because one example was slow, only because it was wrong.
settings.register_profile("sgdebug", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("sgdebug")


REPO_ROOT = Path(__file__).resolve().parents[1]


def fresh_python_json(code: str) -> Any:
    """Run ``code`` in a fresh interpreter (nothing this test session imported is loaded
    there) from the repository root; the JSON value its last line of output prints."""
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])
