"""Headless Chromium (Debian's ``/usr/bin/chromium``) driven over the DevTools protocol.

The protocol is JSON over a websocket; aiohttp (already a dependency) is the websocket
client, so no browser-automation package is needed and nothing is downloaded. Each page
records console errors, uncaught exceptions and error-level log entries (CSP violations,
failed loads) so that a test can assert there were none.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import aiohttp

CHROMIUM = os.environ.get("SITEMAPKIT_CHROMIUM", "/usr/bin/chromium")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--remote-debugging-port=0",
    "--window-size=1280,900",
)
_TIMEOUT = 30.0


def chromium_path() -> str | None:
    """The browser, when installed (``.ci/run`` installs Debian's ``chromium``)."""
    return CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")


class Page:
    """One tab. Calls block until Chromium answers (at most 30 seconds each)."""

    def __init__(self, browser: Browser, session: str) -> None:
        self.browser = browser
        self.session = session
        self.errors: list[str] = []
        self.loaded = asyncio.Event()

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        return self.browser.run(self.browser.call(method, params, self.session))

    def navigate(self, url: str) -> None:
        self.loaded.clear()
        self.send("Page.navigate", url=url)
        self.browser.run(asyncio.wait_for(self.loaded.wait(), _TIMEOUT))

    def evaluate(self, expression: str) -> Any:
        answer = self.send(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in answer:
            raise AssertionError(f"{expression!r} raised: {answer['exceptionDetails']}")
        return answer["result"].get("value")

    def settle(self, seconds: float = 0.2) -> None:
        """Let late events (console messages, CSP reports) arrive."""
        self.browser.run(asyncio.sleep(seconds))

    def screenshot(self, path: Path, *, full_page: bool = True) -> None:
        import base64

        params: dict[str, Any] = {"format": "png", "captureBeyondViewport": full_page}
        if full_page:
            size = self.evaluate(
                "[document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
            )
            params["clip"] = {"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1}
        data = self.send("Page.captureScreenshot", **params)["data"]
        path.write_bytes(base64.b64decode(data))

    def event(self, method: str, params: dict[str, Any]) -> None:
        if method == "Runtime.consoleAPICalled" and params.get("type") in {"error", "assert"}:
            texts = [str(arg.get("value", arg.get("description", ""))) for arg in params["args"]]
            self.errors.append("console: " + " ".join(texts))
        elif method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            self.errors.append("exception: " + str(details.get("exception", details)))
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            entry = params["entry"]
            self.errors.append(f"log: {entry.get('text')} {entry.get('url', '')}".strip())
        elif method == "Page.loadEventFired":
            self.loaded.set()


class Browser:
    """A headless Chromium process with a fresh profile, and one websocket to it."""

    def __init__(self) -> None:
        executable = chromium_path()
        if executable is None:
            raise RuntimeError("chromium is not installed (apt-get install chromium)")
        self.profile = tempfile.mkdtemp(prefix="sitemapkit-chromium-")
        self.process = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.loop = asyncio.new_event_loop()
        self.ids = itertools.count(1)
        self.waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.pages: dict[str, Page] = {}
        try:
            self.run(self._connect(self._endpoint()))
        except BaseException:
            self.close()
            raise

    def _endpoint(self) -> str:
        """Chromium writes its port and path to DevToolsActivePort in the profile."""
        marker = Path(self.profile) / "DevToolsActivePort"
        deadline = time.monotonic() + _TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"chromium exited with status {self.process.returncode}")
            with suppress(OSError, ValueError):
                port, path = marker.read_text().split("\n")[:2]
                if port and path:
                    return f"ws://127.0.0.1:{int(port)}{path}"
            time.sleep(0.05)
        raise RuntimeError("chromium did not open its DevTools port")

    async def _connect(self, endpoint: str) -> None:
        self.http = aiohttp.ClientSession()
        self.socket = await self.http.ws_connect(endpoint, max_msg_size=0)
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        async for message in self.socket:
            if message.type != aiohttp.WSMsgType.TEXT:
                continue
            data = json.loads(message.data)
            if "id" in data:
                future = self.waiting.pop(data["id"], None)
                if future is not None and not future.done():
                    future.set_result(data)
            elif (page := self.pages.get(data.get("sessionId", ""))) is not None:
                page.event(data["method"], data.get("params", {}))

    async def call(
        self, method: str, params: dict[str, Any], session: str | None = None
    ) -> dict[str, Any]:
        number = next(self.ids)
        message: dict[str, Any] = {"id": number, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        future: asyncio.Future[dict[str, Any]] = self.loop.create_future()
        self.waiting[number] = future
        await self.socket.send_str(json.dumps(message))
        answer = await asyncio.wait_for(future, _TIMEOUT)
        if "error" in answer:
            raise AssertionError(f"{method}: {answer['error']}")
        return dict(answer.get("result", {}))

    def run(self, awaitable: Any) -> Any:
        return self.loop.run_until_complete(awaitable)

    def new_page(self) -> Page:
        target = self.run(self.call("Target.createTarget", {"url": "about:blank"}))["targetId"]
        session = self.run(
            self.call("Target.attachToTarget", {"targetId": target, "flatten": True})
        )["sessionId"]
        page = Page(self, session)
        self.pages[session] = page
        for domain in ("Page", "Runtime", "Log"):
            page.send(f"{domain}.enable")
        return page

    def close(self) -> None:
        with suppress(Exception):
            if hasattr(self, "socket"):
                self.run(self.socket.close())
            if hasattr(self, "http"):
                self.run(self.http.close())
        with suppress(Exception):
            if hasattr(self, "reader"):
                self.reader.cancel()
                self.run(asyncio.sleep(0))
        self.loop.close()
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        shutil.rmtree(self.profile, ignore_errors=True)


@contextmanager
def browser() -> Iterator[Browser]:
    instance = Browser()
    try:
        yield instance
    finally:
        instance.close()
