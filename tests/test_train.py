"""prm-train end to end on tiny synthetic shards: config, training, resume, Ray workers."""

from __future__ import annotations

import json
import math
import shutil

import pytest
import torch
from hydra import compose, initialize_config_dir

from pipelines.checkpoint.export import load_checkpoint as load_prm
from pipelines.checkpoint.format import ExportFormat
from pipelines.cli import ConfigError
from pipelines.confdir import CONF_DIR
from pipelines.train.app import run
from pipelines.train.config import LabelSource, register, to_config
from pipelines.train.metrics import auroc
from pipelines.train.worker import lr_factor
from tests.conftest import app_error_line
from tests.prm_fixtures import build_tiny_model, synthetic_rows, write_shards


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("train")
    rows = synthetic_rows(40, 2, seed=0)
    write_shards(rows, root / "labels", per_shard=25)
    texts = [r["prompt"] + " \n\n " + " \n\n ".join(r["completions"]) for r in rows]
    return root, build_tiny_model(root / "tiny", texts)


def _cfg(root, model, out, **train):
    return {
        "model": {"path": str(model), "max_length": 96},
        "data": {"shards": [str(root / "labels")], "val_fraction": 0.2},
        "optim": {"lr": 3e-3, "warmup_steps": 2},
        "train": {
            "max_steps": 6,
            "batch_size": 4,
            "grad_accum": 2,
            "eval_every": 3,
            "save_every": 2,
            "torch_threads": 1,
            **train,
        },
        "output": {"dir": str(out)},
    }


def test_every_config_composes():
    register()
    with initialize_config_dir(config_dir=CONF_DIR, version_base=None):
        cfg = compose("train", overrides=["train.workers=2", "data.shards=[x]"])
    typed = to_config(cfg)
    assert typed.train.workers == 2 and typed.data.shards == ["x"]
    assert typed.data.label_source is LabelSource.labels
    assert typed.export.format is ExportFormat.causal_lm


def test_bad_config_fails_early():
    with pytest.raises(ConfigError, match="grad_accum"):
        to_config({"train": {"grad_accum": 0}})
    with pytest.raises(ConfigError, match="label_tokens"):
        to_config({"export": {"label_tokens": ["<a>", "<a>"]}})


ENUM_TYPOS = [
    ("export.format=qwen2", "export.format"),
    ("data.label_source=gold", "data.label_source"),
    ("optim.schedule=cosin", "optim.schedule"),
    ("train.bf16=maybe", "train.bf16"),
]


@pytest.mark.app
@pytest.mark.parametrize(("override", "key"), ENUM_TYPOS)
def test_enum_typo_exits_2_with_one_sentence(tmp_path, override, key):
    line = app_error_line("prm-train", [override, f"output.dir={tmp_path}/o"], tmp_path)
    assert key in line and "expected one of" in line.lower()
    assert not (tmp_path / "o").exists()  # nothing started


def test_schedule_and_auroc():
    assert lr_factor(0, 4, 10, "cosine") == pytest.approx(0.2)
    assert lr_factor(4, 4, 10, "cosine") == pytest.approx(1.0)
    assert lr_factor(10, 4, 10, "linear") == pytest.approx(0.0)
    assert auroc([0.1, 0.4, 0.35, 0.8], [False, False, True, True]) == pytest.approx(0.75)
    assert auroc([0.5, 0.5], [False, True]) == pytest.approx(0.5)


@pytest.mark.train
def test_trains_writes_metrics_and_a_loadable_checkpoint(setup, tmp_path):
    root, model = setup
    summary = run(_cfg(root, model, tmp_path))
    lines = [json.loads(x) for x in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert [m["step"] for m in lines] == [1, 2, 3, 4, 5, 6]
    assert all(math.isfinite(m["loss"]) and m["loss"] > 0 for m in lines)
    assert {"val_loss", "val_acc", "val_auroc"} <= set(lines[2]) and "checkpoint" in lines[1]
    assert len(list((tmp_path / "checkpoints").glob("step_*"))) == 2  # save_total_limit
    assert summary["final"] == str(tmp_path / "final")
    _, _, fmt = load_prm(summary["final"])
    assert fmt.max_length == 96 and fmt.format == "causal_lm" and fmt.step_tag == "<extra_0>"
    assert (tmp_path / "final" / "config.json").exists()


@pytest.mark.train
def test_resume_continues_where_it_stopped(setup, tmp_path):
    root, model = setup
    straight = run(_cfg(root, model, tmp_path, save_every=2))
    reference, _, _ = load_prm(straight["final"])
    # Simulate a crash after step 4: the step-6 checkpoint and final/ never got written.
    shutil.rmtree(tmp_path / "checkpoints" / "step_0000006")
    shutil.rmtree(tmp_path / "final")
    resumed = run(_cfg(root, model, tmp_path, resume="auto"))
    assert resumed["steps_this_run"] == 2 and resumed["resumed_from"].endswith("step_0000004")
    again, _, _ = load_prm(resumed["final"])
    for (name, x), y in zip(
        reference.state_dict().items(), again.state_dict().values(), strict=True
    ):
        torch.testing.assert_close(x, y, rtol=1e-4, atol=1e-5, msg=name)


@pytest.mark.train
def test_soft_labels_in_the_qwen2_prm_format(setup, tmp_path):
    root, _ = setup
    texts = [r["prompt"] + " " + " ".join(r["completions"]) for r in synthetic_rows(40, 2)]
    qwen = build_tiny_model(tmp_path / "q", texts, arch="qwen2")
    cfg = _cfg(root, qwen, tmp_path / "out", max_steps=3, bf16="off")
    cfg["data"]["label_source"] = "mc_scores"
    cfg["export"] = {"format": "qwen2_prm"}
    summary = run(cfg)
    assert summary["loss"] > 0 and summary["bf16"] is False and summary["val_steps"] > 0
    config = json.loads((tmp_path / "out" / "final" / "config.json").read_text())
    assert config["architectures"] == ["Qwen2ForProcessRewardModel"]
    with pytest.raises(ConfigError, match="set export.format=qwen2_prm"):
        run(
            {
                **cfg,
                "model": {"path": summary["final"]},
                "export": {"format": "causal_lm"},
                "output": {"dir": str(tmp_path / "again")},
            }
        )


@pytest.mark.ray
@pytest.mark.train
def test_two_ray_train_workers(setup, tmp_path):
    root, model = setup
    summary = run(_cfg(root, model, tmp_path, workers=2, max_steps=4))
    assert summary["workers"] == 2 and summary["step"] == 4
    assert (tmp_path / "final" / "prm_format.json").exists()
    assert (tmp_path / "final" / "model.safetensors").exists()


@pytest.mark.train
def test_an_empty_validation_split_is_said(setup, tmp_path, caplog):
    # val_fraction holds out whole problems: on 3 problems, 0.1 holds out none
    root, model = setup
    write_shards(synthetic_rows(3, 2, seed=5), tmp_path / "few")
    cfg = _cfg(root, model, tmp_path / "out", max_steps=1, eval_every=0, save_every=0)
    cfg["data"] = {"shards": [str(tmp_path / "few")], "val_fraction": 0.1}
    cfg["optim"]["warmup_steps"] = 0
    with caplog.at_level("WARNING", logger="prm-train"):
        run(cfg)
    said = [r.getMessage() for r in caplog.records if "val_fraction" in r.getMessage()]
    assert len(said) == 1 and "no chain into validation" in said[0], caplog.text
