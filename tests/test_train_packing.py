"""Packed batches of prm-train: the same loss and gradients as the same chains padded, chains
kept whole and in order, the background reader and writer, and a packed run end to end."""

from __future__ import annotations

import json
import math
import shutil

import pytest
import torch

from pipelines.checkpoint.export import load_checkpoint, new_prm, save_checkpoint, weights_of
from pipelines.checkpoint.format import StepFormat
from pipelines.checkpoint.model import tokenize_row
from pipelines.cli import ConfigError
from pipelines.train.app import run
from pipelines.train.background import CheckpointWriter, Prefetcher, micro_batches, to_host
from pipelines.train.config import to_config
from pipelines.train.data import ChainStream
from pipelines.train.metrics import _forward_loss
from pipelines.train.packing import check_isolation, packed, padded
from tests.prm_fixtures import build_tiny_model, synthetic_rows, write_shards

CPU = torch.device("cpu")


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("packing")
    rows = synthetic_rows(40, 2, seed=3, steps=(2, 8))  # chains of differing lengths
    write_shards(rows, root / "labels", per_shard=25)
    texts = [r["prompt"] + " \n\n " + " \n\n ".join(r["completions"]) for r in rows]
    return root, rows, texts


def _prm(tmp_path, texts, arch, fmt):
    path = build_tiny_model(tmp_path / arch, texts, arch=arch)
    model, tok, fmt = new_prm(path, StepFormat(format=fmt, max_length=96))
    torch.manual_seed(1)
    with torch.no_grad():  # a fresh head scores every step 0.5: give it something to say
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.02)
    return model.float().train(), tok, fmt


def _loss_and_grads(model, batch, soft):
    model.zero_grad(set_to_none=True)
    loss, probs, _ = _forward_loss(model, batch, soft, CPU, use_bf16=False)
    loss.backward()
    grads = {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}
    return loss.detach(), probs, grads


@pytest.mark.parametrize(("arch", "fmt", "soft"), [("llama", "causal_lm", False),
                                                    ("qwen2", "qwen2_prm", True)])
def test_packed_batch_gives_the_loss_and_gradients_of_padded(setup, tmp_path, arch, fmt, soft):
    _, rows, texts = setup
    model, tok, f = _prm(tmp_path, texts, arch, fmt)
    column = "mc_scores" if soft else "labels"
    chains = [tokenize_row(r["prompt"], r["completions"], r[column], tok, f, soft)
              for r in rows[:5]]  # fmt: skip
    lengths = [len(c["input_ids"]) for c in chains]
    assert len(set(lengths)) > 1  # padding really pads
    budget = sum(lengths) + 7  # a tail of pad tokens too
    loss_pad, probs_pad, grads_pad = _loss_and_grads(model, padded(chains, tok.pad_token_id,
                                                                   soft), soft)  # fmt: skip
    batch = packed(chains, budget, tok.pad_token_id, soft)
    assert batch["input_ids"].shape == (1, budget)
    loss_pack, probs_pack, grads_pack = _loss_and_grads(model, batch, soft)
    torch.testing.assert_close(loss_pack, loss_pad, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(probs_pack, probs_pad, rtol=1e-5, atol=1e-6)
    assert grads_pack.keys() == grads_pad.keys()
    for name, g in grads_pad.items():
        torch.testing.assert_close(grads_pack[name], g, rtol=1e-4, atol=1e-6, msg=name)
    # Control: the same row read as one long sequence (no restarts) gives another loss.
    leaky = dict(batch, position_ids=torch.arange(budget).unsqueeze(0))
    loss_leak, _, _ = _loss_and_grads(model, leaky, soft)
    assert not torch.allclose(loss_leak, loss_pad, rtol=1e-4, atol=1e-5)


def test_the_probe_tells_isolating_attention_from_leaking(setup, tmp_path):
    _, _, texts = setup
    model, _, _ = _prm(tmp_path, texts, "llama", "causal_lm")
    assert check_isolation(model.body, CPU, use_bf16=False)

    class Leaky(torch.nn.Module):  # ignores position ids: reads the row as one sequence
        def __init__(self, body):
            super().__init__()
            self.body, self.config = body, body.config

        def forward(self, input_ids, position_ids=None, **_):
            return self.body(input_ids=input_ids)

    assert not check_isolation(Leaky(model.body), CPU, use_bf16=False)


def test_micro_batches_keep_chains_whole_in_order_within_the_budget(setup, tmp_path):
    root, _, texts = setup
    _, tok, f = _prm(tmp_path, texts, "llama", "causal_lm")
    cfg = to_config({"data": {"shards": [str(root / "labels")], "val_fraction": 0.0,
                              "shuffle_buffer": 0}}).data  # fmt: skip
    expected = [e.chain_id for e, _ in zip(ChainStream(cfg, 0), range(30), strict=False)]
    budget = 200
    for pack in (True, False):
        stream = ChainStream(cfg, 0)
        seen: list[int] = []
        batches = micro_batches(stream, tok, f, False, 4, budget, pack)
        for _ in range(6):
            mb = next(batches)
            assert mb.tensors["input_ids"].numel() <= budget
            assert mb.chain_tokens <= budget and mb.chains >= 1
            if pack:  # exactly the budget: one shape, whatever the chains
                assert mb.tensors["input_ids"].shape == (1, budget)
                starts = int((mb.tensors["position_ids"][0] == 0).sum())
                assert starts == mb.chains + (mb.chain_tokens < budget)
            seen.append(mb.position["taken"])
        # positions count whole chains, consecutively: nothing skipped or taken twice
        assert seen == sorted(seen) and seen[-1] <= len(expected)
    assert to_config({"train": {"tokens_per_batch": 2048}}).train.tokens_per_batch == 2048
    with pytest.raises(ConfigError, match="tokens_per_batch"):
        to_config({"train": {"tokens_per_batch": 64}, "model": {"max_length": 96}})


def test_prefetcher_hands_on_errors_and_the_writer_joins():
    def broken():
        yield 1
        raise ValueError("shard 7 is not Parquet")

    data = Prefetcher(broken, depth=1)
    assert data.get()[0] == 1
    with pytest.raises(ValueError, match="shard 7"):
        data.get()
    data.close()
    writer = CheckpointWriter()
    writer.submit(lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        writer.join()
    writer.submit(lambda x: x + 1, 41)
    writer.join()
    assert writer.result == 42


def _cfg(root, model, out, **train):
    return {
        "model": {"path": str(model), "max_length": 96},
        "data": {"shards": [str(root / "labels")], "val_fraction": 0.2},
        "optim": {"lr": 3e-3, "warmup_steps": 1},
        "train": {"max_steps": 4, "batch_size": 4, "grad_accum": 2, "eval_every": 2,
                  "save_every": 2, "torch_threads": 1, "tokens_per_batch": 256, **train},
        "output": {"dir": str(out)},
    }  # fmt: skip


@pytest.mark.train
def test_packed_training_runs_logs_data_wait_and_resumes_exactly(setup, tmp_path):
    root, _, texts = setup
    model = build_tiny_model(tmp_path / "tiny", texts)
    straight = run(_cfg(root, model, tmp_path / "a", gradient_checkpointing=True, log_every=2))
    rows = [json.loads(x) for x in (tmp_path / "a" / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows] == [2, 4]
    for r in rows:
        assert r["steps_averaged"] == 2 and r["tokens"] == 2 * 256  # two packed rows a step
        assert 0 < r["chain_tokens"] <= r["tokens"] and math.isfinite(r["loss"])
        assert 0 <= r["data_wait_s"] <= r["data_wait_max_s"] * 2 and 0 <= r["data_wait_share"] < 1
    reference, _, _ = load_checkpoint(straight["final"])
    # Resume from step 2 (as after a crash) and land on the same weights as straight through.
    shutil.rmtree(tmp_path / "a" / "checkpoints" / "step_0000004")
    shutil.rmtree(tmp_path / "a" / "final")
    resumed = run(_cfg(root, model, tmp_path / "a", gradient_checkpointing=True, log_every=2))
    assert resumed["resumed_from"].endswith("step_0000002") and resumed["steps_this_run"] == 2
    again, _, _ = load_checkpoint(resumed["final"])
    for (name, x), y in zip(reference.state_dict().items(), again.state_dict().values(),
                            strict=True):  # fmt: skip
        torch.testing.assert_close(x, y, rtol=1e-4, atol=1e-5, msg=name)


def test_a_snapshot_writes_what_a_direct_save_writes_tied_embeddings_too(setup, tmp_path):
    _, _, texts = setup
    base = build_tiny_model(tmp_path / "tied", texts, shape={"tie_word_embeddings": True})
    model, tok, _ = new_prm(base, StepFormat(max_length=96))
    assert model.lm.get_input_embeddings().weight is model.lm.get_output_embeddings().weight
    snap = to_host(weights_of(model))
    before = {k: v.clone() for k, v in model.state_dict().items()}
    with torch.no_grad():  # training goes on after the snapshot: the write must not see it
        for p in model.parameters():
            p.add_(1.0)
    save_checkpoint(model, tok, tmp_path / "snap", snap)
    written, _, _ = load_checkpoint(tmp_path / "snap")
    assert written.lm.get_input_embeddings().weight is written.lm.get_output_embeddings().weight
    for name, x in written.state_dict().items():
        torch.testing.assert_close(x, before[name], msg=name)
