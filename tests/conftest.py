"""Shared fixtures: the shared data folder, Hydra composition, a tiny random model."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pipelines.confdir import CONF_DIR  # noqa: F401  (tests import it from here)

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("PRM_DATA_DIR", ROOT.parent / "shared" / "data"))


def shared(rel: str) -> Path:
    """A file of ../shared/data, or skip the test cleanly when the folder is absent."""
    path = SHARED_DATA / rel
    if not path.exists():
        pytest.skip(f"{path} is not available (../shared is missing)")
    return path


def compose(overrides: list[str], config_name: str = "config", conf_dir: str = CONF_DIR):
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir

    from tests.apps import hydra_apps

    for app in hydra_apps().values():  # every app's schemas, found from [project.scripts]
        app.register()
    with initialize_config_dir(config_dir=str(conf_dir), version_base=None):
        return hydra_compose(config_name=config_name, overrides=overrides)


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory) -> Path:
    """A randomly initialised Llama small enough to start vLLM fast on CPU, with SmolLM2's
    tokenizer and chat template (head_dim 64: vLLM's CPU attention rejects 16)."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from pipelines.engine.prepare_model import prepare

    tok = AutoTokenizer.from_pretrained(prepare())
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=128,
        intermediate_size=256,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
        tie_word_embeddings=True,
    )
    model = LlamaForCausalLM(config).to(torch.bfloat16)
    out = tmp_path_factory.mktemp("tiny-llama")
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out


@pytest.fixture(scope="module")
def calc():
    """One calculator verifier (and its sympy worker) per test module."""
    from verifiers.calculator.verifier import CalculatorVerifier

    v = CalculatorVerifier(timeout_s=5.0)
    yield v
    v.close()


def calc_statuses(calc, steps, question=""):
    """The calculator's status per step, as plain strings."""
    return [str(v.status) for v in calc.check_steps(steps, question)]


def app_error_line(app: str, args: list[str], cwd: Path) -> str:
    """Run the installed console script `app` with `args`; assert it stopped the way a user
    mistake must (exit 2, exactly one line `<app>: error: ...`, no traceback) and return it."""
    import subprocess
    import sys

    proc = subprocess.run(
        [str(Path(sys.executable).with_name(app)), *args],
        capture_output=True, text=True, timeout=120, cwd=cwd,
        env=dict(os.environ, HYDRA_FULL_ERROR="0"),
    )
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert len(lines) == 1 and lines[0].startswith(f"{app}: error: "), proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    return lines[0]
