"""Safe serialisation of channel values: a tagged JSON format that never runs code on load.

``dumps(value, channel=...)`` gives compact UTF-8 JSON; ``loads(data)`` rebuilds the value.
JSON's own types map to themselves. Everything else is an object whose ``"$"`` key names a
tag (``{"$": "t", "v": [1, 2]}`` is the tuple ``(1, 2)``); a user dict with a ``"$"`` key or
non-``str`` keys is stored as ``{"$": "d", "v": [[key, value], ...]}``, so any plain JSON also
loads. Round-trips exactly: ``None``, ``bool``, ``int``, ``float`` (nan, inf), ``str``,
``bytes``, ``list``, ``tuple``, ``dict``, ``set``, ``frozenset``, ``datetime``/``date``/
``time`` (fixed offsets and ``zoneinfo`` zones; other tzinfo classes become a fixed offset),
``timedelta``, ``Decimal``, ``UUID``, enum members, dataclasses, pydantic v2 models (so
langchain-core messages), named tuples and ``Send``. Exact types only: a subclass of
``str``/``dict``/``datetime``... that is none of the above is refused.

Output is deterministic: the same value gives the same bytes. Dicts keep insertion order
(part of a Python dict's value); set members are sorted by their encoding. Shared references
are stored once per occurrence (identity is not kept); a reference cycle, and nesting deeper
than the recursion limit allows (a few hundred levels), are refused.

Security: ``loads`` never unpickles or evaluates, and never imports a module named by the
data (its one import is the standard library's ``zoneinfo``, for a stored IANA zone). A class
is found by ``module:qualname`` in :func:`register`'s registry, then among classes with
``<locals>`` in their name that ``dumps`` met in this process (the newest of that name wins),
then in a module already in ``sys.modules``, by reading ``__dict__`` entries (no ``getattr``,
so no module ``__getattr__`` runs). A class that cannot be found (module not imported, class
renamed, fields changed) decodes to an :class:`Unresolved` placeholder holding the stored
data, not an error: a debugger can show a session file without importing its program, and
``dumps`` writes the placeholder back unchanged. Objects are rebuilt without user code:
dataclasses by ``object.__new__`` plus ``object.__setattr__`` per field, pydantic models the
way ``model_construct`` does it but without its ``model_post_init`` call, named tuples by
``tuple.__new__``, enum members by name. The trade-off: ``__init__``, ``__post_init__``,
validators and ``model_post_init`` do not run, so an attribute that is not a declared field
is not restored, and a value is trusted to fit its annotation.

This module is the public face; the code is in ``_serde_encode`` (``dumps`` and
``Unresolved``), ``_serde_decode`` (``loads``) and ``_serde_lookup`` (the class registry).
"""

from __future__ import annotations

from sgdebug.runtime.checkpoint._serde_decode import DeserializationError, loads
from sgdebug.runtime.checkpoint._serde_encode import SerializationError, Unresolved, dumps
from sgdebug.runtime.checkpoint._serde_lookup import register

__all__ = ["DeserializationError", "SerializationError", "Unresolved", "dumps", "loads", "register"]
