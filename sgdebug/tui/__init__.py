"""The textual front end: widgets, screens and ``.tcss`` styles.

Views only: every action is a ``sgdebug.debugger`` verb and everything shown is
``sgdebug.inspect`` data. No graph logic lives here.
"""

from __future__ import annotations
