"""Persistence: saving a run step by step, loading it back, and the threads of a saver."""

from __future__ import annotations
