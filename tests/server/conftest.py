"""A real LangGraph server for the tests: ``langgraph dev`` on 127.0.0.1 and a free port.

The server (from ``langgraph-cli[inmem]``, in the test extra) serves the sample graphs of
``graphs/`` (a loop, a graph that asks with ``interrupt()``, a graph with a subgraph) from a
copy in a temporary directory (it writes its in-memory store there). It is started once
per test worker, waited for until ``/ok`` answers, and always stopped, whatever the tests
did. :class:`DevServer` can also be stopped and started again on the same port (the fault
tests kill it mid-session).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

GRAPHS = Path(__file__).parent / "graphs"
READY_WITHIN = 90.0
"""Seconds a starting server may take to answer (a busy machine is slow to import)."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _quiet_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        LANGGRAPH_CLI_NO_ANALYTICS="1",
        LANGSMITH_TRACING="false",
        LANGCHAIN_TRACING_V2="false",
        LANGSMITH_API_KEY="",
        LANGGRAPH_API_KEY="",
        PYTHONUNBUFFERED="1",
    )
    env.pop("PYTHONPATH", None)  # the server imports the sample graphs, not sgdebug
    return env


class DevServer:
    """``langgraph dev --no-browser --no-reload`` on one port, in its own process group."""

    def __init__(self, workdir: Path, port: int) -> None:
        self.workdir, self.port = workdir, port
        self.url = f"http://127.0.0.1:{port}"
        self.log = workdir / "server.log"
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        command = [sys.executable, "-m", "langgraph_cli", "dev", "--no-browser", "--no-reload",
                   "--host", "127.0.0.1", "--port", str(self.port)]  # fmt: skip
        with self.log.open("ab") as log:
            self._process = subprocess.Popen(
                command, cwd=self.workdir, env=_quiet_env(), stdout=log, stderr=log,
                stdin=subprocess.DEVNULL, start_new_session=True,
            )  # fmt: skip
        self._wait_ready()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + READY_WITHIN
        while time.monotonic() < deadline:
            assert self._process is not None
            if self._process.poll() is not None:
                raise RuntimeError(f"langgraph dev exited:\n{self.log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/ok", timeout=1) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"langgraph dev did not answer:\n{self.log.read_text()[-3000:]}")

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def stop(self) -> None:
        """Stop the server and everything it started (SIGTERM, then SIGKILL)."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        for sig, grace in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 10.0)):
            try:
                os.killpg(process.pid, sig)
            except ProcessLookupError:
                return
            try:
                process.wait(grace)
                return
            except subprocess.TimeoutExpired:
                continue

    def kill(self) -> None:
        """Kill it at once (a crash, as far as a client can tell)."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)


def _server(root: Path) -> DevServer:
    workdir = root / "graphs"
    shutil.copytree(GRAPHS, workdir, ignore=shutil.ignore_patterns("__pycache__", ".langgraph*"))
    return DevServer(workdir, free_port())


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevServer]:
    """One server for this test worker's tests (stopped at the end, even after failures)."""
    dev = _server(tmp_path_factory.mktemp("langgraph-dev"))
    try:
        dev.start()
        yield dev
    finally:
        dev.stop()


@pytest.fixture(scope="session")
def _restartable(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevServer]:
    dev = _server(tmp_path_factory.mktemp("langgraph-dev-restartable"))
    try:
        yield dev
    finally:
        dev.stop()


@pytest.fixture
def own_server(_restartable: DevServer) -> DevServer:
    """A second server, for the tests that stop and start it again (running when a test
    begins; stopped at the end of the session, even after failures)."""
    if not _restartable.running:
        _restartable.start()
    return _restartable
