"""The one session controller that both front ends drive.

Breakpoints, step/continue/run-to, state edits, forks, the history cursor, the
command language (parse and execute) and session files. It builds on
``sgdebug.inspect`` and ``sgdebug.runtime`` and imports no UI toolkit.
"""

from __future__ import annotations
