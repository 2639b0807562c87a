"""Pure functions from runtime objects to plain frozen data for the views.

Topology and layout, channel rows, task rows, reducer diffs, snapshot diffs, the
history tree and value previews. No state, no I/O, no UI library: it imports only
``sgdebug.runtime`` and the standard library.
"""

from __future__ import annotations
