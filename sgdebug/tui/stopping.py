"""Stopping what runs: Ctrl+C on the engine thread, quitting past a stuck node, exit signals.

The engine runs in a worker thread, which no signal reaches. Ctrl+C (a key to the TUI) does
what it does in the REPL: the first press asks the session to pause at the next superstep
boundary; a second one, the command still running, raises ``KeyboardInterrupt`` in the
engine thread, which the session turns into "Interrupted (Ctrl-C); the unfinished step will
run again". A node blocked inside one long C call (``time.sleep(3600)``) sees it when that
call returns; quitting does not wait for it (see :data:`QUIT_GRACE_S`).

SIGTERM and SIGHUP exit the app the normal way, so the terminal is given back as it was
found (main screen, no mouse reporting), with status 128 + the signal's number.
"""

from __future__ import annotations

import asyncio
import ctypes
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from sgdebug.debugger import Session

__all__ = ["EXIT_SIGNALS", "QUIT_GRACE_S", "EngineStopper", "on_exit_signals"]

QUIT_GRACE_S: Final = 3.0
"""How long quitting waits for an interrupted node to stop before leaving it running."""
EXIT_SIGNALS: Final = (signal.SIGTERM, signal.SIGHUP)
"""Signals that end the app cleanly."""

_PAUSE_NOTE = (
    "Pause requested: stopping at the next superstep (Ctrl+C again interrupts the running node)."
)
_INTERRUPT_NOTE = "Interrupting the running node (Ctrl+C)."


def _raise_in(thread_id: int, exc: type[BaseException] | None) -> None:
    """Raise ``exc`` in thread ``thread_id`` at its next bytecode (``None``: cancel one)."""
    arg = ctypes.py_object(exc) if exc is not None else None
    changed = ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), arg)
    if changed > 1:  # more than one thread state had that id: take it back (CPython's advice)
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), None)


class EngineStopper:
    """Stops what the engine thread runs: Ctrl+C presses, and an interrupt when quitting."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._lock = threading.Lock()
        self._threads: list[int] = []
        """Engine threads inside :meth:`running`, oldest first (it holds the session)."""
        self._presses = 0
        self._idle = threading.Event()
        self._idle.set()

    @contextmanager
    def running(self) -> Iterator[None]:
        """Around a job of the engine thread: Ctrl+C may interrupt it while inside."""
        me = threading.get_ident()
        with self._lock:
            self._threads.append(me)
            self._presses = 0
            self._idle.clear()
        try:
            yield
        finally:
            self._leave(me)

    def _leave(self, me: int) -> None:
        """Forget this thread; an interrupt sent too late is cancelled, or dropped here."""
        while True:
            try:
                with self._lock:
                    if me in self._threads:
                        self._threads.remove(me)
                    _raise_in(me, None)
                    if not self._threads:
                        self._idle.set()
                return
            except KeyboardInterrupt:  # it arrived in these lines: the job is over anyway
                continue

    def press(self) -> str | None:
        """Ctrl+C: a pause first (a moving verb), then an interrupt; the note to show."""
        with self._lock:
            if not self._threads:
                return None
            self._presses += 1
            first = self._presses == 1
        if first and self.session.status == "running":
            self.session.request_pause()
            return _PAUSE_NOTE
        return _INTERRUPT_NOTE if self.interrupt() else None

    def interrupt(self) -> bool:
        """Raise ``KeyboardInterrupt`` in the engine thread; ``False`` when nothing runs."""
        with self._lock:
            if not self._threads:
                return False
            _raise_in(self._threads[0], KeyboardInterrupt)
            return True

    def wait_idle(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s for the engine thread to finish its job; whether it did."""
        return self._idle.wait(timeout)


def on_exit_signals(callback: Callable[[int], None]) -> Callable[[], None]:
    """Call ``callback(signum)`` on the running loop for SIGTERM and SIGHUP; returns a
    function that puts the previous handlers back. Does nothing off the main thread."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    loop = asyncio.get_running_loop()
    previous = {signum: signal.getsignal(signum) for signum in EXIT_SIGNALS}
    for signum in EXIT_SIGNALS:
        loop.add_signal_handler(signum, callback, signum)

    def restore() -> None:
        for signum, handler in previous.items():
            loop.remove_signal_handler(signum)
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)

    return restore
