"""Ray nodes of a test's own, on this machine: `ray start` processes with their own ports,
temp dir and auth token, stopped by their own process ids (never `ray stop --force`, which
stops every Ray on the machine, other people's runs included).

A node's processes are the ones its `ray start` left behind (new since the call, naming the
node's temp dir or the cluster's GCS port on their command line) and everything they start
later (workers, agents): their descendants, collected before anything is killed, since an
orphan is re-parented and no longer found by descent.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

RAY = str(Path(sys.executable).with_name("ray"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cmdline(p: psutil.Process) -> str:
    try:
        return " ".join(p.cmdline())
    except psutil.Error:
        return ""


@dataclass
class RayNode:
    name: str
    temp_dir: Path
    pids: set[int] = field(default_factory=set)
    create_times: dict[int, float] = field(default_factory=dict)

    def processes(self) -> list[psutil.Process]:
        """The node's live processes and their descendants (same pid and start time only:
        a pid the kernel reused for someone else's process is not ours)."""
        found: dict[int, psutil.Process] = {}
        for pid in self.pids:
            try:
                p = psutil.Process(pid)
                if abs(p.create_time() - self.create_times[pid]) > 0.01:
                    continue
                found[pid] = p
                for child in p.children(recursive=True):
                    found[child.pid] = child
            except psutil.Error:
                continue
        return list(found.values())

    def kill(self) -> int:
        """SIGKILL every process of the node; how many there were."""
        procs = self.processes()
        for p in procs:
            with contextlib.suppress(psutil.Error):
                p.send_signal(signal.SIGKILL)
        psutil.wait_procs(procs, timeout=10)
        return len(procs)


class RayCluster:
    """A head and more nodes of the test's own. `stop()` kills every process they started."""

    def __init__(self, root: Path | None = None) -> None:
        # Short paths: Ray's unix sockets live under the temp dir (108-byte limit).
        self.root = Path(tempfile.mkdtemp(prefix="prmr-", dir="/tmp")) if root is None else root
        token = self.root / "auth_token"
        token.write_text(secrets.token_hex(32))
        self.env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(token),
                    # Notice a dead node in a few seconds, not the default ~30.
                    "RAY_health_check_period_ms": "500", "RAY_health_check_timeout_ms": "1000",
                    "RAY_health_check_failure_threshold": "3"}
        self._handed_out: set[int] = set()
        self.port = self._port()
        self.address = f"127.0.0.1:{self.port}"
        self.dashboard = f"http://127.0.0.1:{self._port()}"  # the head's (job submission)
        self.nodes: list[RayNode] = []

    def _port(self) -> int:
        """A free port no other component of this cluster was given: the kernel may hand the
        same free port to two binds in a row once the first socket is closed, and `ray start`
        refuses two components on one port (a CI run failed on gcs and dashboard both 46789)."""
        while (port := free_port()) in self._handed_out:
            pass
        self._handed_out.add(port)
        return port

    def _agent_ports(self) -> list[str]:
        flags = ("node-manager-port", "object-manager-port", "metrics-export-port",
                 "runtime-env-agent-port", "dashboard-agent-listen-port",
                 "dashboard-agent-grpc-port")
        return [*(f"--{flag}={self._port()}" for flag in flags), "--disable-usage-stats"]

    def start(self, name: str, cpus: int, resources: str, head: bool = False,
              extra: tuple[str, ...] = ()) -> RayNode:  # fmt: skip
        temp = self.root / name
        temp.mkdir()
        argv = [RAY, "start", f"--num-cpus={cpus}", f"--resources={resources}",
                f"--temp-dir={temp}", *self._agent_ports(), *extra]
        if head:
            argv += ["--head", f"--port={self.port}", f"--ray-client-server-port={self._port()}",
                     f"--dashboard-port={self.dashboard.rsplit(':', 1)[1]}"]
        else:
            argv += [f"--address={self.address}"]
        before = set(psutil.pids())
        node = RayNode(name, temp)
        self.nodes.append(node)  # stopped by stop() even when the start fails half-way
        done = subprocess.run(argv, env=self.env, capture_output=True, text=True, timeout=180)
        marks = (str(temp), f":{self.port}")
        for pid in set(psutil.pids()) - before:
            with contextlib.suppress(psutil.Error):
                p = psutil.Process(pid)
                if any(m in _cmdline(p) for m in marks):
                    node.pids.add(pid)
                    node.create_times[pid] = p.create_time()
        if done.returncode != 0:
            raise RuntimeError(f"ray start ({name}) failed: {done.stdout[-1500:]}"
                               f"{done.stderr[-1500:]}")  # fmt: skip
        return node

    def stop(self) -> None:
        """Kill every node's processes (the last started first), then remove the temp dirs."""
        for node in reversed(self.nodes):
            node.kill()
        # Drivers started by the test are its own children: the caller stops those.
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and any(n.processes() for n in self.nodes):
            time.sleep(0.1)
        shutil.rmtree(self.root, ignore_errors=True)
