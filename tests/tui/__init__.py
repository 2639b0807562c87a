"""Tests of the Textual front end."""

from __future__ import annotations
