"""What each kind of server fault says, from real HTTP exchanges with a tiny local server.

A stand-in server answers every request with one status (or never answers at all), so the
SDK's real errors reach :class:`Link` as they would from a deployed server.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from sgdebug.debugger.engines import Server
from sgdebug.debugger.engines._remote_client import Link, ServerFault
from sgdebug.debugger.engines.remote import RemoteEngine


def _answering(status: int) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            body = b'{"detail": "stand-in says no"}'
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _answer

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


@pytest.fixture
def answering() -> Iterator[Callable[[int], str]]:
    servers: list[ThreadingHTTPServer] = []

    def start(status: int) -> str:
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), _answering(status))
        servers.append(httpd)
        threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
        return f"http://127.0.0.1:{httpd.server_address[1]}"

    yield start
    for httpd in servers:
        httpd.shutdown()
        httpd.server_close()


def _fault(url: str, timeout: float = 5.0) -> str:
    link = Link(Server(url, "g", api_key="k-123", timeout=timeout))
    with pytest.raises(ServerFault) as caught:
        link.call("listing threads", lambda c: c.threads.search())
    assert link.fault == str(caught.value)
    assert "k-123" not in str(caught.value)
    return str(caught.value)


@pytest.mark.parametrize(
    ("status", "said"),
    [
        (401, "server refused the API key (HTTP 401: stand-in says no): listing threads; give "
              "one with --api-key or LANGGRAPH_API_KEY / LANGSMITH_API_KEY"),
        (404, "not found on the server (HTTP 404: stand-in says no): listing threads; it may "
              "have been deleted"),
        (422, "server refused it (HTTP 422: stand-in says no): listing threads"),
        (500, "server error (HTTP 500: stand-in says no): listing threads; try again"),
    ],
)  # fmt: skip
def test_an_http_error_is_said_with_its_status_and_the_servers_words(
    answering: Callable[[int], str],
    status: int,
    said: str,
) -> None:
    assert _fault(answering(status)) == said


def test_a_server_that_never_answers_times_out_with_the_time_said() -> None:
    with socket.socket() as silent:  # accepts connections, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        said = _fault(url, timeout=0.5)
    assert said.startswith("server timed out (no answer within 0.5s): listing threads at ")


def test_a_closed_port_is_not_reachable_and_attaching_says_so() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}"  # closed once the block ends
    said = _fault(url)
    assert said.startswith("server not reachable (") and said.endswith(
        f"listing threads at {url}; start it, then try again"
    )
    with pytest.raises(ServerFault, match="server not reachable"):
        RemoteEngine(Server(url, "g"))
