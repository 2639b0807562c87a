"""Differential tests: the same graph programs on sgdebug.runtime and on LangGraph."""

from __future__ import annotations
