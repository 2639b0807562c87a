"""Rules of the code's shape that no linter checks (STYLE.md, issue 14): modules stay small
enough to read whole, and the runtime reads a channel's ``.value`` only through types that
declare it."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "sgdebug"
MAX_LINES = 500


def test_no_module_of_the_package_is_over_500_lines() -> None:
    long = {
        str(path.relative_to(PACKAGE)): lines
        for path in PACKAGE.rglob("*.py")
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}, f"split these (one job per module): {long}"


def test_the_runtime_has_no_attr_defined_ignore() -> None:
    flagged = [
        f"{path.relative_to(PACKAGE)}:{number}"
        for path in (PACKAGE / "runtime").rglob("*.py")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "type: ignore[attr-defined]" in line
    ]
    assert flagged == []
