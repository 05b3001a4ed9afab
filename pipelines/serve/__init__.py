"""Serving a PRM: vLLM's own pooling server (or a local vLLM engine) and a client for it.

Public API: `PRMClient` (formats (prompt, steps) as training did, scores in batches),
`VLLMServer` (starts and stops `vllm serve <checkpoint> --runner pooling ...`), `ScoringError`.
"""

from pipelines.serve.client import PRMClient, ScoringError
from pipelines.serve.server import VLLMServer

__all__ = ["PRMClient", "ScoringError", "VLLMServer"]
