"""The review page driven like a person in a real headless Chromium (Debian's package),
over the DevTools protocol: clicks and key presses, blind reveal, a reload that keeps the
progress (localStorage), and an export file that holds exactly the answers given."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from tests.test_audit_import import ROWS, sample, write
from tests.test_report_page import chromium


class DevToolsError(RuntimeError):
    """Chromium answered a DevTools call with an error (e.g. the page's context was being
    replaced by a navigation when the call arrived)."""


class Tab:
    """A page in Chromium, driven through the DevTools protocol (websockets, sync client)."""

    def __init__(self, ws) -> None:
        self.ws = ws
        self.ids = itertools.count(1)

    def send(self, method: str, **params):
        mid = next(self.ids)
        self.ws.send(json.dumps({"id": mid, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv(timeout=30))
            if msg.get("id") == mid:
                if "error" in msg:
                    raise DevToolsError(str(msg["error"]))
                return msg.get("result", {})

    def js(self, expr: str):
        r = self.send("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        return r["result"].get("value")

    def key(self, k: str) -> None:
        code = {"ArrowRight": 39, "ArrowLeft": 37}[k] if len(k) > 1 else ord(k.upper())
        for kind in ("keyDown", "keyUp"):
            self.send("Input.dispatchKeyEvent", type=kind, key=k, windowsVirtualKeyCode=code,
                      **({"text": k} if kind == "keyDown" and len(k) == 1 else {}))

    def click(self, element_id: str) -> None:
        """A real mouse click at the element's centre."""
        box = self.js(f"(() => {{const r = document.getElementById('{element_id}')"
                      ".getBoundingClientRect();"
                      "return [r.x + r.width / 2, r.y + r.height / 2]})()")
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left",
                      clickCount=1)

    def load(self, url: str | None = None) -> None:
        """Open `url`, or reload the page (F5) when None, and wait for the *new* document:
        the old one is marked first, so a check that runs before the navigation replaced it
        cannot pass."""
        self.js("window.__replaced = true")
        if url is None:
            self.send("Page.reload")
        else:
            self.send("Page.navigate", url=url)
        self.wait("!window.__replaced && document.body.dataset.ready === '1'")

    def wait(self, expr: str, timeout: float = 20) -> None:
        """Poll `expr` until it is truthy; a call that lands while the page's context is
        being replaced is retried, not failed."""
        end = time.time() + timeout
        while True:
            try:
                if self.js(expr):
                    return
            except DevToolsError:
                pass
            assert time.time() < end, f"timed out waiting for {expr}"
            time.sleep(0.05)


@pytest.fixture
def browser(tmp_path: Path):
    profile = tmp_path / "profile"
    flags = ["--headless", "--disable-gpu", "--no-first-run", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", f"--user-data-dir={profile}",
             "--remote-debugging-port=0", "about:blank"]  # fmt: skip
    if os.geteuid() == 0:
        flags.insert(0, "--no-sandbox")
    proc = subprocess.Popen([chromium(), *flags], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        port_file = profile / "DevToolsActivePort"
        end = time.time() + 30
        while not port_file.exists() or not port_file.read_text().strip():
            assert time.time() < end and proc.poll() is None, "chromium did not start"
            time.sleep(0.1)
        port = port_file.read_text().split()[0]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json") as r:
            page = next(t for t in json.load(r) if t["type"] == "page")
        from websockets.sync.client import connect

        with connect(page["webSocketDebuggerUrl"], max_size=None) as ws:
            yield Tab(ws)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_a_person_reviews_reloads_and_exports(browser, tmp_path):
    ds = write(tmp_path / "v1", ROWS)
    pack = sample(ds)
    tab = browser
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    tab.send("Browser.setDownloadBehavior", behavior="allow", downloadPath=str(downloads))
    tab.load((pack / "review.html").as_uri())
    items = tab.js("JSON.parse(document.getElementById('data').textContent).items.map(x => x.key)")
    assert len(items) >= 4
    # blind: the sources' verdicts are hidden until the step is answered
    assert tab.js("document.getElementById('reveal').classList.contains('hidden')")
    tab.click("incorrect")
    assert not tab.js("document.getElementById('reveal').classList.contains('hidden')")
    tab.key("ArrowRight")
    tab.key("c")
    tab.click("next")
    tab.key("n")
    tab.key("ArrowRight")
    tab.key("s")
    tab.key("ArrowLeft")
    tab.click("correct")  # changes its mind on the third step: neutral -> correct
    want = {items[0]: "incorrect", items[1]: "correct", items[2]: "correct", items[3]: "skip"}
    assert tab.js("document.getElementById('progress').textContent").startswith("step 3 of")
    # what a person sees before closing the tab: every answer committed by the browser
    tab.wait("document.getElementById('saved').textContent === 'saved'")
    tab.load()  # reload (F5): progress kept
    assert tab.js("document.getElementById('progress').textContent").startswith("step 3 of")
    assert tab.js("document.getElementById('answered').textContent") == "your answer: correct"
    tab.js("(() => {const r = document.getElementById('reviewer'); r.focus(); return 1})()")
    tab.send("Input.insertText", text="ann")
    tab.js("document.body.focus()")
    tab.click("export")
    end = time.time() + 20
    while not list(downloads.glob("verdicts-*.json")):
        assert time.time() < end, "no download"
        time.sleep(0.1)
    time.sleep(0.2)
    got = json.loads(next(downloads.glob("verdicts-*.json")).read_text())
    assert got["reviewer"] == "ann" and got["pack"] == json.loads(
        (pack / "plan.json").read_text())["pack"]
    assert {v["item"]: v["verdict"] for v in got["verdicts"]} == want
    assert json.loads(tab.js("document.getElementById('export-text').value")) == got
