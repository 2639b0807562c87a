"""sgdebug: a debugger, REPL and fast LangGraph-compatible runtime for StateGraph programs.

The package root imports nothing heavy: ``sgdebug --help`` must be instant.
"""

from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["__version__"]
