"""The keys a saver files a thread's checkpoints under: the root graph's by thread id,
each subgraph namespace's by thread id and namespace."""

from __future__ import annotations

__all__ = ["NS_KEY_SEP", "split_thread_key", "thread_key"]

NS_KEY_SEP = "\x1f"
"""Joins a thread id and a checkpoint namespace in the key a saver files a subgraph's
checkpoints under (the ASCII unit separator: not part of a thread id anyone types)."""


def thread_key(thread_id: str, checkpoint_ns: str = "") -> str:
    """The key a saver stores the checkpoints of ``(thread_id, checkpoint_ns)`` under.

    A root graph's namespace is ``""`` and its key is the thread id itself; a subgraph's
    checkpoints get a key of their own, so the root thread's history never lists them.
    """
    return f"{thread_id}{NS_KEY_SEP}{checkpoint_ns}" if checkpoint_ns else thread_id


def split_thread_key(key: str) -> tuple[str, str]:
    """``thread_key``'s inverse: the thread id and the checkpoint namespace of a key."""
    thread_id, _, checkpoint_ns = key.partition(NS_KEY_SEP)
    return thread_id, checkpoint_ns
