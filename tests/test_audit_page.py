"""The review page driven like a person in a real headless Chromium (Debian's package),
over the DevTools protocol: clicks and key presses, blind reveal, a reload that keeps the
progress (IndexedDB), and an export file that holds exactly the answers given, in both
modes; the chain-mode export is imported and the resulting labels checked."""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from tests.test_audit_import import ROWS, do_import, rows_of, sample, write
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
        arrows = {"ArrowRight": 39, "ArrowLeft": 37, "ArrowUp": 38, "ArrowDown": 40}
        code = arrows[k] if len(k) > 1 else ord(k.upper())
        for kind in ("keyDown", "keyUp"):
            self.send("Input.dispatchKeyEvent", type=kind, key=k, windowsVirtualKeyCode=code,
                      **({"text": k} if kind == "keyDown" and len(k) == 1 else {}))

    def text(self, element_id: str) -> str:
        return self.js(f"document.getElementById('{element_id}').textContent")

    def hidden(self, element_id: str) -> bool:
        return self.js(f"document.getElementById('{element_id}').classList.contains('hidden')")

    def click(self, element_id: str) -> None:
        """A real mouse click at the element's centre, scrolled into view first (as a person
        scrolls to it: a click outside the viewport reaches nothing)."""
        box = self.js(f"(() => {{const e = document.getElementById('{element_id}');"
                      "e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
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


def open_pack(tab: Tab, pack: Path, downloads: Path) -> None:
    downloads.mkdir()
    tab.send("Browser.setDownloadBehavior", behavior="allow", downloadPath=str(downloads))
    tab.load((pack / "review.html").as_uri())


def reload_when_saved(tab: Tab) -> None:
    """What a person sees before closing the tab: every answer committed by the browser;
    then F5, waiting for the new document."""
    tab.wait("document.getElementById('saved').textContent === 'saved'")
    tab.load()


def export(tab: Tab, downloads: Path) -> tuple[Path, dict]:
    tab.js("(() => {const r = document.getElementById('reviewer'); r.focus(); return 1})()")
    tab.send("Input.insertText", text="ann")
    tab.js("document.body.focus()")
    tab.click("export")
    end = time.time() + 20
    while not list(downloads.glob("verdicts-*.json")):
        assert time.time() < end, "no download"
        time.sleep(0.1)
    path = next(downloads.glob("verdicts-*.json"))
    tab.wait("document.getElementById('export-text').value.length > 0")
    # the download is complete once it parses and equals what the page shows
    end = time.time() + 20
    while True:
        try:
            got = json.loads(path.read_text())
            break
        except ValueError:
            assert time.time() < end, "the download never completed"
            time.sleep(0.1)
    assert json.loads(tab.js("document.getElementById('export-text').value")) == got
    return path, got


@pytest.mark.browser
def test_a_person_reviews_steps_reloads_and_exports(browser, tmp_path):
    ds = write(tmp_path / "v1", ROWS)
    pack = sample(ds, review_mode="step")
    tab, downloads = browser, tmp_path / "downloads"
    open_pack(tab, pack, downloads)
    qs = tab.js("questions().map(q => q.type + ' ' + (q.item ? q.item.key + ' ' + q.claim"
                " : q.chain))")
    # each sampled step is asked the question of every claim its labels make: calc's True
    # on p3's last step "does the arithmetic hold?", the policy's False "is it correct?";
    # calc's True alone on p0's first steps only the arithmetic
    first = [tuple(q.split()[1:]) for q in qs[:4]]
    assert first == [("p3-c0#2", "step"), ("p3-c0#2", "arithmetic"), ("p0-c0#1", "arithmetic"),
                     ("p0-c0#0", "arithmetic")]  # fmt: skip
    assert not any(q.startswith("step p0-c0#0 step") for q in qs)
    # a label that claims the prefix (p1's step 2, False after calc's flag) is asked as its
    # chain's question, right after that step's own questions
    i = qs.index("step p1-c0#2 step")
    assert qs[i + 1: i + 3] == ["step p1-c0#2 arithmetic", "chain p1-c0"]
    assert tab.text("progress").startswith(f"question 1 of {len(qs)} · 0 answered · step mode")
    assert tab.text("question") == "Is step 2 (highlighted) itself correct?"
    # blind: the sources' verdicts are hidden until the step is answered
    assert tab.hidden("reveal") and not tab.hidden("step-buttons") and tab.hidden("chain-buttons")
    tab.click("incorrect")
    assert not tab.hidden("reveal")
    # what each label claims, in its claim's words: calc's ✓ only the arithmetic
    said = tab.text("said")
    assert "correct: the arithmetic in this step holds" in said
    assert "incorrect: this step is wrong" in said
    tab.key("ArrowRight")
    # the arithmetic question, with its own answers: holds / wrong, no neutral
    assert tab.text("question").startswith("Does the arithmetic in step 2 (highlighted) hold?")
    assert (tab.text("correct"), tab.text("incorrect")) == ("holds (c)", "wrong (i)")
    assert tab.hidden("neutral") and "n neutral" not in tab.text("keys")
    tab.key("c")
    assert tab.text("answered") == "your answer: holds"
    tab.click("next")
    tab.key("n")  # not an answer to "does the arithmetic hold?"
    assert tab.text("answered") == "not answered yet"
    tab.key("i")
    tab.key("ArrowRight")
    tab.key("s")
    tab.key("ArrowLeft")
    tab.click("correct")  # changes its mind on the third question: wrong -> holds
    want = {("p3-c0#2", "step"): "incorrect", ("p3-c0#2", "arithmetic"): "correct",
            ("p0-c0#1", "arithmetic"): "correct", ("p0-c0#0", "arithmetic"): "skip"}
    assert tab.text("progress").startswith(f"question 3 of {len(qs)} · 4 answered")
    reload_when_saved(tab)  # progress kept
    assert tab.text("progress").startswith(f"question 3 of {len(qs)} · 4 answered")
    assert tab.text("answered") == "your answer: holds"
    path, got = export(tab, downloads)
    assert got["reviewer"] == "ann" and got["pack"] == json.loads(
        (pack / "plan.json").read_text())["pack"]
    # every record names the claim it answers
    assert {(v["item"], v["claim"]): v["verdict"] for v in got["verdicts"]} == want
    assert {v["mode"] for v in got["verdicts"]} == {"step"}
    # imported: the step verdict is a human label; the arithmetic answers are not (they
    # say nothing of whether the step is right) and go to audit.checks
    man = do_import(ds, tmp_path / "v2", [path])
    assert (man["audit"]["quarantined"], man["audit"]["verdicts_used"]) == (0, 1)
    assert man["audit"]["check_answers_used"] == 2 and man["audit"]["read_as_step"] == {}
    assert {k: v["verdict"] for k, v in man["audit"]["checks"]["arithmetic"].items()} == {
        "p3-c0#2": "correct", "p0-c0#1": "correct"}
    new = rows_of(tmp_path / "v2")
    assert new["p3"]["human_labels"] == [None, None, False]
    assert new["p0"]["human_labels"] == rows_of(ds)["p0"]["human_labels"]


@pytest.mark.browser
def test_a_person_reviews_chains_reloads_exports_and_imports(browser, tmp_path):
    ds = write(tmp_path / "v1", ROWS)
    pack = sample(ds)  # chain mode: the default
    tab, downloads = browser, tmp_path / "downloads"
    open_pack(tab, pack, downloads)
    chains = tab.js("CHAINS")
    assert sorted(chains) == ["p0-c0", "p1-c0", "p2-c0", "p3-c0"]
    # a step question follows a chain answer that puts the first error before its step; a
    # check's question ("does the arithmetic hold?") is asked whatever the answer
    assert tab.js("questions().every(q => q.type === 'chain' || q.claim !== 'step')")
    assert tab.js("questions().some(q => q.claim === 'arithmetic')")
    assert tab.text("progress").startswith("question 1 of ")
    assert tab.text("progress").endswith(" · 0 answered · chain mode")
    assert tab.hidden("reveal") and tab.hidden("step-buttons") and not tab.hidden("chain-buttons")
    assert "Steps count from 0" in tab.text("keys") and tab.text("step-0").startswith("Step 0.")
    # The data's own human labels, which the person's answers agree with: p0 and p1 all
    # right, p2 wrong at step 1; p3 has none (the person puts its first error at step 0).
    answers = {"p0-c0": -1, "p1-c0": -1, "p2-c0": 1, "p3-c0": 0}
    by_mouse = True
    for chain in chains:
        assert tab.js("current()[0][current()[1]].chain") == chain
        fe = answers[chain]
        if fe < 0 and by_mouse:
            tab.click("step-2")  # a slip: the first wrong step at 2 ...
            assert tab.text("answered") == "your answer: first error at step 2"
            tab.click("all-correct")  # ... then "every step is right"
        elif fe < 0:
            tab.key("a")
        elif by_mouse:
            tab.click(f"step-{fe}")
        else:
            for _ in range(fe):
                tab.key("ArrowDown")
            tab.key("i")
        by_mouse = not by_mouse
        said = "all steps correct" if fe < 0 else f"first error at step {fe}"
        assert tab.text("answered") == f"your answer: {said}"
        assert not tab.hidden("reveal")  # the sources' labels, once answered
        tab.key("ArrowRight")
        # then the chain's own step questions: a sampled step claim after the first error,
        # asked on its own, and each check's question (left unanswered here)
        asked = []
        while True:
            q = tab.js("current()[0][current()[1]]")
            if q["type"] == "chain" or q["chain"] != chain:
                break
            asked.append((q["item"]["key"], q["claim"]))
            if q["claim"] == "step":
                assert "comes after it" in tab.text("question")
                if chain == "p2-c0":
                    tab.key("i")
                else:
                    tab.click("correct")
            last = tab.js("current()[1] === current()[0].length - 1")
            tab.key("ArrowRight")
            if last:
                break
        steps = [k for k, c in asked if c == "step"]
        assert steps == ([f"{chain}#2"] if fe >= 0 and chain in ("p2-c0", "p3-c0") else [])
    total = tab.js("questions().length")
    assert tab.text("progress").startswith(f"question {total} of {total} · 6 answered · chain")
    reload_when_saved(tab)
    assert tab.text("progress").startswith(f"question {total} of {total} · 6 answered · chain")
    # the other mode asks the same sample step by step; the answers stay
    tab.key("m")
    assert "step mode" in tab.text("progress") and not tab.hidden("step-buttons")
    tab.click("mode")
    assert tab.text("progress").endswith("6 answered · chain mode")
    path, got = export(tab, downloads)
    assert sorted((v["mode"], v.get("chain") or v["item"], v.get("first_error", v.get("verdict")))
                  for v in got["verdicts"]) == sorted(
        [("chain", c, fe) for c, fe in answers.items()]
        + [("step", "p2-c0#2", "incorrect"), ("step", "p3-c0#2", "correct")])  # fmt: skip
    assert {v.get("claim") for v in got["verdicts"] if v["mode"] == "step"} == {"step"}
    # the export, imported: every step up to each first error is the person's
    man = do_import(ds, tmp_path / "v2", [path])
    assert man["audit"]["quarantined"] == 0 and man["audit"]["chain_answers_used"] == 4
    new = rows_of(tmp_path / "v2")
    assert new["p0"]["labels"] == new["p1"]["labels"] == [True, True, True]
    assert new["p2"]["labels"] == [True, False, False]
    assert new["p2"]["human_labels"] == [True, False, False]
    # p3: wrong at step 0, step 1 unreviewed (after the error: False), step 2 judged right
    assert new["p3"]["labels"] == [False, False, True] and new["p3"]["first_error_step"] == 0
    assert new["p3"]["human_labels"] == [False, None, True]
    assert new["p3"]["human_first_error"] == 0


@pytest.mark.browser
@pytest.mark.parametrize("sections", [False, True], ids=["steps", "sections"])
def test_the_page_shows_its_first_question_in_plain_headless_chromium(tmp_path, sections):
    """Plain `chromium --headless` (no DevTools, a fresh profile, storage that may never
    open): the first question is on the page and in a screenshot's DOM, not a blank card;
    for reasoning traces cut into sections the question is about a section."""
    ds = write(tmp_path / "v1", ROWS)
    if sections:
        manifest = json.loads((ds / "manifest.json").read_text())
        manifest["split"] = {"mode": "sections", "after_error": "keep"}
        (ds / "manifest.json").write_text(json.dumps(manifest))
    pack = sample(ds, review_mode="step")
    flags = ["--headless", "--disable-gpu", f"--user-data-dir={tmp_path / 'profile'}",
             "--window-size=1000,900"]  # fmt: skip
    if os.geteuid() == 0:
        flags.insert(0, "--no-sandbox")
    page = (pack / "review.html").as_uri()
    shot = tmp_path / "shot.png"
    subprocess.run([chromium(), *flags, f"--screenshot={shot}", page], capture_output=True,
                   timeout=120, check=False)  # fmt: skip
    assert shot.stat().st_size > 0
    dom = subprocess.run([chromium(), *flags, "--dump-dom", page], capture_output=True,
                         text=True, timeout=120, check=False).stdout  # fmt: skip
    dom = re.sub(r"<script.*?</script>", "", dom, flags=re.S)  # what shows, not the code
    assert "itself correct?" in dom and "question 1 of" in dom, dom[-2000:]
    unit = "section" if sections else "step"
    assert f"Is {unit} " in dom and f"{unit.title()} 0." in dom
    assert ("Judge what the section itself claims" in dom) is sections


@pytest.mark.browser
def test_a_person_marks_the_wrong_sections_of_traces(browser, tmp_path):
    """A trace pack opens in sections mode (audit.review_mode=auto): per chain, every wrong
    section, each judged on its own (DeltaBench's protocol), by mouse and by keyboard; the
    export names the mode and the import gives every section the person's verdict."""
    ds = write(tmp_path / "v1", ROWS)
    manifest = json.loads((ds / "manifest.json").read_text())
    manifest["split"] = {"mode": "sections", "after_error": "keep"}
    (ds / "manifest.json").write_text(json.dumps(manifest))
    pack = sample(ds)
    tab, downloads = browser, tmp_path / "downloads"
    open_pack(tab, pack, downloads)
    assert tab.text("progress").endswith("· 0 answered · sections mode")
    assert tab.text("question").startswith("Which sections are wrong, each judged on its own")
    assert tab.text("all-correct") == "all sections correct (a)"
    assert tab.text("first-wrong") == "wrong: the marked section (i)"
    # p0: all right; p1: skipped; p2: section 1 (by mouse, a slip on 2 undone); p3: 0 and 2
    answers = {"p0-c0": [], "p1-c0": None, "p2-c0": [1], "p3-c0": [0, 2]}
    for chain in tab.js("CHAINS"):
        while tab.js("current()[0][current()[1]].chain") != chain or tab.js(
                "current()[0][current()[1]].type") != "chain":
            tab.key("ArrowRight")
        want = answers[chain]
        if want is None:
            tab.key("s")
            assert tab.text("answered") == "your answer: skip"
        elif not want:
            tab.key("a")
            assert tab.text("answered") == "your answer: every section correct, each on its own"
        elif chain == "p2-c0":
            tab.click("step-1")
            tab.click("step-2")
            assert tab.text("answered") == "your answer: wrong: sections 1, 2"
            tab.click("step-2")  # unmarked
            assert "bad" in tab.js("document.getElementById('step-1').className")
            assert "ok" in tab.js("document.getElementById('step-2').className")
        else:
            tab.key("i")  # the cursor starts on section 0
            tab.key("ArrowDown")
            tab.key("ArrowDown")
            tab.key("i")
        if want:
            assert tab.text("answered") == "your answer: wrong: sections " + ", ".join(
                map(str, want))
    assert tab.text("progress").split(" · ")[1] == "4 answered"
    reload_when_saved(tab)
    assert tab.text("progress").split(" · ")[1] == "4 answered"
    modes = []
    for _ in range(3):  # m cycles the three modes; the answers stay
        tab.key("m")
        modes.append(tab.text("progress").rsplit(" · ", 1)[1])
    assert modes == ["chain mode", "step mode", "sections mode"]
    path, got = export(tab, downloads)
    records = {v["chain"]: v for v in got["verdicts"] if v["mode"] in ("sections", "chain")}
    assert {c: v.get("wrong", v.get("verdict")) for c, v in records.items()} == {
        "p0-c0": [], "p1-c0": "skip", "p2-c0": [1], "p3-c0": [0, 2]}
    assert {v["mode"] for v in records.values() if "wrong" in v} == {"sections"}
    man = do_import(ds, tmp_path / "v2", [path])
    assert (man["audit"]["chain_answers_used"], man["audit"]["quarantined"]) == (3, 0)
    new = rows_of(tmp_path / "v2")
    assert new["p2"]["human_labels"] == [True, False, True]  # section 2 right on its own
    assert new["p3"]["human_labels"] == [False, True, False]
    assert new["p3"]["human_first_error"] == 0
