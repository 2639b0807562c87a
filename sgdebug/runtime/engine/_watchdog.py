"""The watchdog: a daemon thread that looks at the running steps of the executor every
:data:`HANDOFF_S` (see ``_executor``), so that tasks which wait for each other never wait
for a thread that will not come.

It costs nothing while no step runs (it sleeps until one is armed), a list append and
remove per step, and a wake-up per :data:`HANDOFF_S` while steps run and for
:data:`LINGER_LOOKS` looks after the last one, so that steps run back to back (an agent's
loop, a server's runs) do not each pay the system call and thread switch of waking it.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Protocol

__all__ = ["HANDOFF_S", "LINGER_LOOKS", "Watchdog", "Watched", "running_watchdog"]

HANDOFF_S = 0.01
"""How often the watchdog looks: a task of a step of fast ones still running after 10 to
20 ms hands the step's other tasks to the pool."""

_nap = time.sleep
"""Bound at import: a program (or its tests) patching ``time.sleep`` neither makes the
watchdog spin nor finds the watchdog's naps among its own calls."""

LINGER_LOOKS = 10
"""Looks (0.1 s) with nothing watched and no step armed before the watchdog goes to sleep."""


class Watched(Protocol):
    """A running step the watchdog looks at."""

    def look(self, watchdog: Watchdog) -> None:
        """Called in the watchdog's thread every :data:`HANDOFF_S` while it is armed."""


class Watchdog:
    """Looks at the steps in :attr:`watched` (each :meth:`arm`-ed by the thread running it,
    which removes it when the step ends) every :data:`HANDOFF_S` while there are any;
    with none it sleeps on :attr:`wake` until one is armed."""

    __slots__ = ("idle", "lock", "quiet", "wake", "watched")

    def __init__(self) -> None:
        self.watched: list[Watched] = []
        self.idle = True
        """Asleep on :attr:`wake` (or about to be): :meth:`arm` wakes it."""
        self.quiet = 0
        """Looks in a row that found nothing watched and no step armed since the last."""
        self.lock = threading.Lock()
        self.wake = threading.Lock()
        self.wake.acquire()

    def arm(self, step: Watched) -> None:
        """Watch ``step`` until the caller removes it from :attr:`watched`."""
        self.watched.append(step)
        self.quiet = 0
        if self.idle:
            with self.lock:
                if self.idle:
                    self.idle = False
                    self.wake.release()

    def watch(self) -> None:
        """The watchdog's thread."""
        while True:
            self.wake.acquire()
            while self._look():
                pass

    def _look(self) -> bool:
        """One look after :data:`HANDOFF_S`; False when nothing was watched for
        :data:`LINGER_LOOKS` looks (then idle)."""
        _nap(HANDOFF_S)
        watched = self.watched[:]
        for step in watched:
            try:
                step.look(self)
            except Exception:  # (the watchdog must go on: its failure is printed)
                sys.excepthook(*sys.exc_info())
        if watched:
            self.quiet = 0
            return True
        self.quiet += 1
        if self.quiet < LINGER_LOOKS:
            return True
        self.quiet = 0
        with self.lock:
            self.idle = True
            if not self.watched:
                return False
            self.idle = False  # (armed meanwhile, not woken: look again)
            return True


class _Watching:
    """The process's watchdog, started on first use (again in a forked child)."""

    def __init__(self) -> None:
        self.watchdog: Watchdog | None = None
        self.lock = threading.Lock()

    def start(self) -> Watchdog:
        with self.lock:
            if self.watchdog is None:
                watchdog = Watchdog()
                name = "sgdebug-watchdog"
                threading.Thread(target=watchdog.watch, name=name, daemon=True).start()
                self.watchdog = watchdog
            return self.watchdog

    def forget(self) -> None:
        self.watchdog = None
        self.lock = threading.Lock()


_watching = _Watching()
os.register_at_fork(after_in_child=_watching.forget)


def running_watchdog() -> Watchdog:
    """The process's watchdog, its thread started on first use."""
    return _watching.watchdog or _watching.start()
