"""Start and stop vLLM's own OpenAI-compatible server for a PRM checkpoint.

    with VLLMServer("outputs/prm/final") as server:        # 127.0.0.1, a free port, CPU
        PRMClient.for_server("outputs/prm/final", server.url).score_many(chains)

This runs exactly the documented command (`vllm serve <checkpoint> --runner pooling ...`, the
options from `pipelines.checkpoint.serving.serve_args`), in its own process group, logging to
`<log>`. It is for tests, benchmarks and local RL loops; on a cluster, run `vllm serve`
as any other service. It binds to 127.0.0.1 by default and never to other addresses unless
told.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

from pipelines.checkpoint.format import StepFormat
from pipelines.checkpoint.serving import serve_args, vllm_command


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


class VLLMServer:
    """`vllm serve` as a context manager: started on enter (waits for /health), stopped on exit."""

    def __init__(
        self,
        checkpoint: str | Path,
        host: str = "127.0.0.1",
        port: int | None = None,
        dtype: str = "float32",
        extra: list[str] | None = None,
        start_timeout_s: float = 600.0,
        log: str | Path | None = None,
    ) -> None:
        self.checkpoint = Path(checkpoint).expanduser()
        self.host, self.port = host, port or free_port(host)
        self.url = f"http://{host}:{self.port}"
        fmt = StepFormat.load(self.checkpoint)
        self.argv = [
            *vllm_command(),
            "serve",
            str(self.checkpoint),
            *serve_args(fmt),
            "--host",
            host,
            "--port",
            str(self.port),
            "--dtype",
            dtype,
            "--enforce-eager",
            *(extra or []),
        ]
        self.start_timeout_s = start_timeout_s
        self.log = (
            Path(log) if log else Path(tempfile.mkstemp(prefix="vllm-serve-", suffix=".log")[1])
        )
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> VLLMServer:
        env = dict(os.environ)
        env.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")  # GiB; vLLM's default asks for more
        # The server runs as documented (engine core in its own process), whatever the caller
        # chose for its own in-process engines.
        env.pop("VLLM_ENABLE_V1_MULTIPROCESSING", None)
        with self.log.open("w") as log:
            self.proc = subprocess.Popen(
                self.argv, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True
            )
        deadline = time.monotonic() + self.start_timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                tail = self.log.read_text(errors="replace")[-1500:]
                raise RuntimeError(f"vllm serve exited with {self.proc.returncode}:\n{tail}")
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=2) as resp:
                    if resp.status == 200:
                        return self
            except OSError:
                time.sleep(1.0)
        self.stop()
        raise TimeoutError(f"vllm serve did not answer /health in {self.start_timeout_s:.0f} s")

    def stop(self) -> None:
        """SIGTERM to the server's process group, SIGKILL if it is still there after 30 s."""
        if self.proc is None or self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)

    def __exit__(self, *exc: object) -> None:
        self.stop()
