"""A node that many hostile programs cannot take down: as many sandboxes as the labelers
start run fork bombs of allocators at once, beside a process standing for an engine.

The budgets are planned for a small fake node (`FAKE_NODE_MB`), so the test itself never
holds more than its share of that (about 2 GB at the peak) on a machine shared with others.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import psutil
import pytest

from labeling.schema import Problem
from pipelines.label.sandbox_sizing import node_sandbox_slots, sandbox_config
from tests.conftest import compose, needs_sandbox
from verifiers.sandbox import memory
from verifiers.sandbox.result import SandboxConfig
from verifiers.sandbox.runner import Sandbox

FAKE_NODE_MB = 8192
SHARE = 0.25
SANDBOX_UID_LOW = SandboxConfig().uid_low  # programs and tests run as uids from here (root)

# Fork as many allocators as RLIMIT_NPROC lets through; each fills memory in 8 MB pieces
# (written, so the pages are real) until MemoryError and holds it. `hold` decides whether
# the parent frees its share and answers the tests or keeps it until the wall clock.
BOMB = """
import os, time
def grab(hold):
    held = []
    try:
        while True:
            held.append(b"\\x01" * (8 << 20))
    except MemoryError:
        pass
    if hold:
        time.sleep(60)
while True:
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        grab(True)
        os._exit(0)
grab({hold})
def echo(x):
    return x
"""
ECHO = Problem("echo", "code", "t", "", tests=("assert echo(2) == 2",))

# The engine's stand-in: holds 200 MB of its own and answers every line it reads.
ENGINE = """
import sys
weights = b"\\x02" * (200 << 20)
for line in sys.stdin:
    n = int(line)
    sys.stdout.write(str(sum(range(n)) + weights[n]) + "\\n")
    sys.stdout.flush()
"""


def _sandboxed_rss(root: int, skip: int) -> tuple[int, int]:
    """(bytes resident in the sandboxed uids' processes under `root`, sandboxes running)."""
    rss, trees = 0, 0
    for p in psutil.Process(root).children(recursive=True):
        try:
            if p.pid == skip:
                continue
            if p.name() == "bwrap" and p.ppid() == root:
                trees += 1
            if p.uids().real >= SANDBOX_UID_LOW:
                rss += p.memory_info().rss
        except psutil.Error:
            continue
    return rss, trees


@pytest.mark.sandbox
@needs_sandbox
def test_concurrent_allocator_bombs_stay_within_the_node_share(monkeypatch):
    # As many sandboxes at once as the labelers start on one node: 2 workers x 2 actors.
    cfg = compose(["engine=simulated", "ray=local", "ray.label_actors=2", "labels=[answer,tests]",
                   "sandbox.workers=2", f"sandbox.node_memory_share={SHARE}",
                   "sandbox.timeout_s=8"])
    slots = node_sandbox_slots(cfg)
    assert slots == 4
    config = sandbox_config(cfg.sandbox, slots)
    monkeypatch.setattr(memory, "machine_mb", lambda: FAKE_NODE_MB)
    memory.plan.cache_clear()
    try:
        sandbox = Sandbox(config)
    finally:
        memory.plan.cache_clear()
    plan = sandbox.memory
    assert plan.tree_mb * slots <= SHARE * FAKE_NODE_MB
    assert plan.processes >= 4  # the bombs spread over several processes each

    engine = subprocess.Popen([sys.executable, "-c", ENGINE], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    answered, peak, most = [0], [0], [0]
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            assert engine.stdin and engine.stdout
            engine.stdin.write("1000\n")
            engine.stdin.flush()
            if engine.stdout.readline().strip() == str(sum(range(1000)) + 2):
                answered[0] += 1
            rss, trees = _sandboxed_rss(psutil.Process().pid, engine.pid)
            peak[0], most[0] = max(peak[0], rss), max(most[0], trees)
            time.sleep(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        # Twice as many runs as slots, on as many threads: the slots hold half of them back.
        pairs = [(ECHO, BOMB.format(hold=i % 2 == 0)) for i in range(2 * slots)]
        results = sandbox.run_many(pairs, workers=2 * slots)
    finally:
        stop.set()
        watcher.join(timeout=10)
        alive = engine.poll() is None
        engine.kill()
        engine.wait()
    assert alive and answered[0] > 0  # the engine kept serving and survived
    assert len(results) == len(pairs)  # nothing lost
    for r in results:  # every run ends with a verdict: a result, never a setup failure
        assert r.started, r.error
        assert r.passed or r.timed_out or r.memory_exceeded or r.error
    assert any(r.timed_out for r in results)  # the holders ran into the wall clock
    assert 1 <= most[0] <= slots
    assert peak[0] <= plan.tree_mb * slots << 20, (peak[0] >> 20, plan)
