"""The graph plan: schemas and their fields, messages, nodes and what they read and write."""

from __future__ import annotations
