"""A deterministic embedding for tests of the store's semantic search (the differential
programs and tests/runtime/test_store_search.py): letter counts folded into six dimensions.
langchain-core's own fakes need numpy, which the test extra does not install."""

from __future__ import annotations

from collections.abc import Sequence

DIMS = 6
"""The length of every vector :func:`letters` makes."""


def letters(texts: Sequence[str]) -> list[list[float]]:
    """Each text's letters counted, ``a`` and ``g`` in the first dimension, and so on."""
    vectors = []
    for text in texts:
        vector = [0.0] * DIMS
        for char in text.lower():
            if char.isalpha():
                vector[(ord(char) - 97) % DIMS] += 1
        vectors.append(vector)
    return vectors
