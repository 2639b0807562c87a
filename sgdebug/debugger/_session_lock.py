"""One sgdebug per session file: an OS lock on a sidecar file, ``FILE.lock``.

The lock is the operating system's (``flock``; ``msvcrt.locking`` on Windows), so it goes
away with the process that holds it, however that process ends (``kill -9`` included): a
crashed sgdebug never leaves a session file locked. The sidecar holds the holder's pid, for
the message the next one prints, and is removed when the lock is released.
"""

from __future__ import annotations

import contextlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final

__all__ = ["SessionLock", "SessionLockedError", "lock_path"]

_ATTEMPTS: Final = 5
"""Tries when the sidecar is replaced under us (its holder released it meanwhile)."""

if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


class SessionLockedError(Exception):
    """Another process holds the session file; :attr:`pid` is its pid when known."""

    def __init__(self, message: str, pid: int | None) -> None:
        super().__init__(message)
        self.pid = pid
        """The holder's pid (``None``: the sidecar did not say)."""


def lock_path(path: Path) -> Path:
    """The sidecar that locks the session file at ``path`` (beside the file itself, so that
    two paths to one file, through a symbolic link, share it)."""
    real = path.resolve()
    return real.with_name(f"{real.name}.lock")


@dataclass(slots=True)
class SessionLock:
    """The held lock of one session file; :meth:`release` it when the file is closed."""

    path: Path
    """The sidecar file."""
    fd: int | None
    """Its descriptor while the lock is held."""

    @classmethod
    def acquire(cls, session_path: Path) -> SessionLock:
        """Lock the session file at ``session_path`` for this process.

        Raises :class:`SessionLockedError` when another process (or another open of the same
        file in this one) holds it, and ``OSError`` when the sidecar cannot be created.
        """
        sidecar = lock_path(session_path)
        for _ in range(_ATTEMPTS):
            fd = os.open(sidecar, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                _try_lock(fd)
            except OSError:
                os.close(fd)
                raise _locked(session_path, sidecar) from None
            if _same_file(sidecar, fd):
                _write_pid(fd)
                return cls(sidecar, fd)
            os.close(fd)  # the holder removed it as we opened it: lock the new one
        raise _locked(session_path, sidecar)

    def release(self) -> None:
        """Remove the sidecar and drop the lock (a second call does nothing)."""
        if self.fd is None:
            return
        if _same_file(self.path, self.fd):
            with contextlib.suppress(OSError):
                self.path.unlink()
        os.close(self.fd)
        self.fd = None


def _same_file(sidecar: Path, fd: int) -> bool:
    """Whether ``sidecar`` still names the file open as ``fd``."""
    try:
        named = sidecar.stat()
    except OSError:
        return False
    held = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


def _write_pid(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, f"{os.getpid()}\n".encode("ascii"))


def _locked(session_path: Path, sidecar: Path) -> SessionLockedError:
    pid = _read_pid(sidecar)
    if pid == os.getpid():
        holder = "this sgdebug (it is open twice in one process)"
    elif pid is not None:
        holder = f"another sgdebug (pid {pid})"
    else:
        holder = "another sgdebug"
    return SessionLockedError(
        f"{session_path} is open in {holder}: one session file is debugged by one sgdebug at "
        f"a time; close the other one, or choose another --session path",
        pid,
    )


def _read_pid(sidecar: Path) -> int | None:
    try:
        text = sidecar.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None
