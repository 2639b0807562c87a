"""Modal screens of the debugger: help, node details, the value editor, quitting."""

from __future__ import annotations
