"""The prompt-toolkit front end: prompt, completer and command printing.

Views only: commands are parsed and run by ``sgdebug.debugger``; node and channel
names for completion come from ``sgdebug.inspect``. No graph logic lives here.
"""

from __future__ import annotations
