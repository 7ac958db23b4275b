"""A small HTTP server on 127.0.0.1 that serves scripted responses, faults included.

Each path maps to a :class:`Route` or to a list of them served in turn (the last one
repeats): enough for 500-then-200, 429 with Retry-After, stalls, a connection reset in the
middle of a body, redirects and loops. Every request is recorded with its headers.
"""

from __future__ import annotations

import socket
import struct
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Route:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    stall: float = 0.0  # seconds to sleep after sending half of the body
    reset: bool = False  # send half of the body, then reset the connection


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]


class FaultServer:
    def __init__(self) -> None:
        self.routes: dict[str, Route | list[Route]] = {}
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                path = self.path.split("?", 1)[0]
                with server._lock:
                    server.requests.append(
                        Recorded(path, {k.lower(): v for k, v in self.headers.items()})
                    )
                    spec = server.routes.get(path, Route(404, b"not found"))
                    if isinstance(spec, list):
                        route = spec.pop(0) if len(spec) > 1 else spec[0]
                    else:
                        route = spec
                self.send_response(route.status)
                headers = {"Content-Length": str(len(route.body)), **route.headers}
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                if route.reset or route.stall:
                    half = route.body[: len(route.body) // 2]
                    self.wfile.write(half)
                    self.wfile.flush()
                    if route.reset:
                        self.connection.setsockopt(
                            socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
                        )
                        self.connection.close()
                        self.close_connection = True
                        return
                    time.sleep(route.stall)
                    with suppress(OSError):
                        self.wfile.write(route.body[len(half) :])
                    return
                self.wfile.write(route.body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._server.handle_error = lambda *_args: None  # type: ignore[method-assign]
        self.port = self._server.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def url(self, path: str) -> str:
        return self.base + path

    def add(self, path: str, body: bytes | str = b"", status: int = 200, **kwargs: object) -> str:
        data = body.encode() if isinstance(body, str) else body
        self.routes[path] = Route(status, data, **kwargs)  # type: ignore[arg-type]
        return self.url(path)

    def hits(self, path: str) -> int:
        return sum(1 for request in self.requests if request.path == path)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@contextmanager
def running() -> Iterator[FaultServer]:
    server = FaultServer()
    try:
        yield server
    finally:
        server.close()
