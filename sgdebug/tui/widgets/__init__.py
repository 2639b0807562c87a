"""The debugger's panes: one widget per module, each drawing part of a
:class:`~sgdebug.tui.frame.Frame`."""

from __future__ import annotations
