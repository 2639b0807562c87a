"""The debugger's panes: one widget per module, each drawing part of a
:class:`~sgdebug.debugger.frame.Frame`."""

from __future__ import annotations
