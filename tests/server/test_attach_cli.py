"""``sgdebug run --attach URL`` as a user runs it (a subprocess), and where the API key goes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sgdebug.debugger.engines import Server
from sgdebug.debugger.engines._remote_client import Link, api_key_from
from tests.server.conftest import DevServer

pytestmark = pytest.mark.server

ROOT = Path(__file__).resolve().parents[2]
SECRET = "lsv2-test-key-7f3a9c"


def sgdebug(
    *args: str, stdin: str = "", key: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["PYTHONPATH"] = str(ROOT)
    if key is not None:
        env["LANGGRAPH_API_KEY"] = key
    return subprocess.run([sys.executable, "-m", "sgdebug", *args], input=stdin, env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def test_run_attach_starts_a_run_steps_it_and_never_shows_the_key(server: DevServer) -> None:
    script = "step\nstate\ninfo\nhistory\nprint graph\nquit\n"
    done = sgdebug("run", "--attach", server.url, "--graph", "loop", "--input", '{"limit": 2}',
                   "--api-key", SECRET, "--script", "-", stdin=script)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "count = 1" in done.stdout and "tick 1" in done.stdout
    assert "remote" in done.stdout and server.url in done.stdout
    assert SECRET not in done.stdout + done.stderr
    assert SECRET not in server.log.read_text()


def test_run_attach_lists_threads_then_opens_the_one_named(server: DevServer) -> None:
    started = sgdebug("run", "--attach", server.url, "-g", "ask", "--input", '{"topic": "x"}',
                      "--script", "-", stdin="continue\n", key=SECRET)  # fmt: skip
    assert started.returncode == 3, started.stderr  # waiting at the interrupt()
    listed = sgdebug("run", "--attach", server.url, "-g", "ask", "--script", "-", key=SECRET)
    assert listed.returncode == 2
    assert "which thread? Give --thread ID" in listed.stderr
    thread = listed.stderr.split("1. ", 1)[1].split()[0]
    opened = sgdebug("run", "--attach", server.url, "-g", "ask", "--thread", thread,
                     "--script", "-", stdin="resume 'ok'\nprint state['verdict']\n",
                     key=SECRET)  # fmt: skip
    assert opened.returncode == 0, opened.stderr
    assert "interrupted" in opened.stdout and "'ok'" in opened.stdout
    assert SECRET not in started.stdout + listed.stderr + opened.stdout + opened.stderr


def test_options_that_need_a_local_program_are_refused_with_attach(tmp_path: Path) -> None:
    session = tmp_path / "s.sqlite"
    done = sgdebug("run", "--attach", "http://127.0.0.1:9", "--session", str(session),
                   "--script", "-", key=SECRET)  # fmt: skip
    assert done.returncode == 2
    assert "--session: not available with --attach" in done.stderr
    assert not session.exists()  # nothing is written, the key least of all


def test_a_server_that_is_down_is_said_in_one_line() -> None:
    done = sgdebug("run", "--attach", "http://127.0.0.1:9", "--script", "-", key=SECRET)
    assert done.returncode == 2
    assert "not reachable" in done.stderr and "Traceback" not in done.stderr
    assert SECRET not in done.stderr


def test_the_api_key_comes_from_the_option_then_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("LANGGRAPH_API_KEY", raising=False)
    monkeypatch.setenv("LANGSMITH_API_KEY", "from-langsmith")
    assert api_key_from(None) == "from-langsmith"
    monkeypatch.setenv("LANGGRAPH_API_KEY", "from-langgraph")
    assert api_key_from(None) == "from-langgraph"
    assert api_key_from("given") == "given"
    server = Server("http://127.0.0.1:9", "loop", api_key=SECRET)
    assert SECRET not in repr(server) and SECRET not in server.label
    assert Link(server).client.http.client.headers["x-api-key"] == SECRET  # sent, only there


def test_the_command_line_starts_without_the_sdk_or_an_http_client() -> None:
    probe = (
        "import sys, sgdebug.cli, sgdebug.debugger.engines; "
        "print(sorted(m for m in ('langgraph_sdk', 'httpx') if m in sys.modules))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
