"""Opens a page in headless Chromium (Debian's package) through the DevTools protocol and reports
what a person would notice: console errors, uncaught exceptions, network requests, and what the
page's own script says it rendered; saves a screenshot."""

from __future__ import annotations

import asyncio
import base64
import json
import re
import shutil
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class PageCheck:
    """What opening a page showed."""

    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    value: Any = None
    screenshot: Path | None = None


def chromium() -> str:
    path = shutil.which("chromium")
    if path is None:
        raise RuntimeError("chromium is not installed: run scripts/setup-test-browser.sh (make test does)")
    return path


async def _session(ws_url: str, page: Path, expression: str, screenshot: Path, settle: float) -> PageCheck:
    from tornado.websocket import websocket_connect

    out = PageCheck()
    conn = await websocket_connect(ws_url, max_message_size=512 * 1024 * 1024)
    ids = iter(range(1, 1_000_000))
    pending: dict[int, asyncio.Future[Any]] = {}
    loaded = asyncio.Event()

    async def reader() -> None:
        while True:
            msg = await conn.read_message()
            if msg is None:
                return
            m = json.loads(msg)
            if "id" in m and m["id"] in pending:
                pending.pop(m["id"]).set_result(m)
                continue
            method, params = m.get("method"), m.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                out.errors.append("console: " + " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", [])))
            elif method == "Runtime.exceptionThrown":
                d = params.get("exceptionDetails", {})
                out.errors.append("exception: " + str(d.get("exception", {}).get("description") or d.get("text")))
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                out.errors.append("log: " + params["entry"].get("text", ""))
            elif method == "Network.requestWillBeSent":
                url = params.get("request", {}).get("url", "")
                if not url.startswith(("file:", "data:", "about:")):
                    out.requests.append(url)
            elif method == "Page.loadEventFired":
                loaded.set()

    task = asyncio.ensure_future(reader())

    async def call(method: str, **params: Any) -> Any:
        i = next(ids)
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        pending[i] = fut
        conn.write_message(json.dumps({"id": i, "method": method, "params": params}))
        reply = await asyncio.wait_for(fut, 60)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    for domain in ("Runtime", "Log", "Network", "Page"):
        await call(f"{domain}.enable")
    await call("Emulation.setDeviceMetricsOverride", width=1280, height=2000, deviceScaleFactor=1, mobile=False)
    await call("Page.navigate", url=page.resolve().as_uri())
    await asyncio.wait_for(loaded.wait(), 120)
    await asyncio.sleep(settle)
    res = await call("Runtime.evaluate", expression=expression, returnByValue=True)
    out.value = res.get("result", {}).get("value")
    shot = await call("Page.captureScreenshot", format="png")
    screenshot.parent.mkdir(parents=True, exist_ok=True)
    screenshot.write_bytes(base64.b64decode(shot["data"]))
    out.screenshot = screenshot
    conn.close()
    # The reader ends when the close handshake does, and the socket is closed with it.
    try:
        await asyncio.wait_for(task, 10)
    except TimeoutError:
        task.cancel()
    return out


def check_page(page: Path, expression: str, screenshot: Path, settle: float = 2.0) -> PageCheck:
    """Opens ``page``, waits for its load event and ``settle`` seconds, evaluates ``expression``
    in it, saves a screenshot (1280 × 2000) to ``screenshot``."""
    profile = tempfile.mkdtemp(prefix="reclaim-chromium-")
    proc = subprocess.Popen([chromium(), "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                             "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
                             "--disable-component-update", "--disable-sync", f"--user-data-dir={profile}",
                             "--remote-debugging-port=0", "about:blank"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        port = None
        deadline = time.monotonic() + 60
        while port is None and time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line and proc.poll() is not None:
                raise RuntimeError(f"chromium exited with status {proc.returncode}")
            m = re.search(r"DevTools listening on ws://127\.0\.0\.1:(\d+)/", line)
            if m:
                port = int(m.group(1))
        if port is None:
            raise RuntimeError("chromium did not open its DevTools port within 60 s")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
            targets = json.load(r)
        ws = next(t["webSocketDebuggerUrl"] for t in targets if t.get("type") == "page")
        return asyncio.run(_session(ws, page, expression, screenshot, settle))
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()
        shutil.rmtree(profile, ignore_errors=True)
