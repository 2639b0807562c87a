"""Tests of the debugger layer: the session controller, commands, loading, session files."""
